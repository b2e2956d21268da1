package bootcfg

import (
	"context"
	"regexp"
	"strconv"
	"strings"

	"github.com/diskdoctor/diskdoctor/machine"
	"github.com/diskdoctor/diskdoctor/probes/block"
)

// Spindown is a standby (spin-down) timer that /etc/hdparm.conf sets for
// a device at boot and at each hot-plug (Debian's /usr/lib/udev/hdparm
// runs hdparm -S with the stanza's spindown_time).
type Spindown struct {
	Dev   string // the stanza's device: /dev/sda, /dev/disk/by-id/ata-…
	Value int    // spindown_time, hdparm -S's argument
	Line  Line
}

var spindownOpt = regexp.MustCompile(`^spindown_time\s*=\s*(\d{1,3})\s*$`)

// ReadSpindowns reads every "DEV { … spindown_time = N … }" stanza of
// /etc/hdparm.conf (hdparm.conf(5): options apply to the block's device
// only). The error is the file's: absent, unreadable.
func ReadSpindowns(ctx context.Context, h *machine.Host) ([]Spindown, error) {
	b, err := h.ReadFileLimit(ctx, "/etc/hdparm.conf", 1<<20)
	if err != nil {
		return nil, err
	}
	return ParseSpindowns(b), nil
}

// ParseSpindowns is ReadSpindowns on the file's bytes.
func ParseSpindowns(b []byte) []Spindown {
	var out []Spindown
	dev := ""
	for i, raw := range strings.Split(string(b), "\n") {
		t := strings.TrimSpace(raw)
		if t == "" || strings.HasPrefix(t, "#") {
			continue
		}
		if m := stanzaStart.FindStringSubmatch(t); m != nil {
			dev = m[1]
			t = strings.TrimSpace(t[strings.Index(t, "{")+1:])
		}
		if strings.HasPrefix(t, "}") {
			dev = ""
			continue
		}
		if m := spindownOpt.FindStringSubmatch(t); m != nil && dev != "" && len(out) < 1024 {
			v, _ := strconv.Atoi(m[1])
			if v <= 255 {
				out = append(out, Spindown{Dev: printable(dev), Value: v, Line: Line{File: "/etc/hdparm.conf", Num: i + 1, Text: printable(dev) + " { " + printable(t) + " }"}})
			}
		}
	}
	return out
}

// Covers says whether the stanza names disk d (its kernel name, a by-id
// link of it, or a glob matching its name).
func (s Spindown) Covers(h *machine.Host, d *block.Device) bool { return deviceNamed(h, d, s.Dev) }

// SpindownSeconds is the timeout hdparm -S N sets, in seconds (hdparm(8),
// -S; ATA STANDBY timer values): 0 disables it, 1-240 are multiples of 5
// s, 241-251 of 30 minutes, 252 is 21 minutes, 253 a vendor-defined 8 to
// 12 hours (8 h given), 255 21 minutes 15 s; 254 is reserved (ok false).
func SpindownSeconds(v int) (int, bool) {
	switch {
	case v == 0:
		return 0, true
	case v >= 1 && v <= 240:
		return v * 5, true
	case v >= 241 && v <= 251:
		return (v - 240) * 1800, true
	case v == 252:
		return 21 * 60, true
	case v == 253:
		return 8 * 3600, true
	case v == 255:
		return 21*60 + 15, true
	}
	return 0, false
}

// printable drops control characters: a recorded /etc is hostile.
func printable(s string) string {
	return strings.Map(func(r rune) rune {
		if r < 0x20 || r == 0x7f {
			return -1
		}
		return r
	}, s)
}
