package kernlog

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"regexp"
	"strings"
	"time"

	"github.com/diskdoctor/diskdoctor/machine"
)

// Log is the kernel ring buffer as dmesg prints it.
type Log struct {
	Source string // the command it came from
	Lines  []Line
}

// Line is one kernel message with its timestamp (seconds since boot; -1
// when the line carries none).
type Line struct {
	Num  int // 1-based line number in the output
	Time float64
	// Wall is the wall-clock time the line carries (dmesg -T, syslog,
	// journalctl); zero when it has none. A syslog time has no year.
	Wall time.Time
	// TimeFromWall: Time was derived from Wall and the boot banner's wall
	// time (to the second), not printed by the kernel.
	TimeFromWall bool
	// EarlierBoot: the line belongs to a boot before the last one in the
	// log, so its age cannot be known from /proc/uptime.
	EarlierBoot bool
	Text        string // the message without the timestamp
	Raw         string
}

// Read runs dmesg. Reading the ring buffer needs root or
// kernel.dmesg_restrict=0: a refusal wraps ErrPermission.
func Read(ctx context.Context, h *machine.Host) (*Log, error) {
	res, err := h.Run(ctx, "dmesg")
	if err != nil {
		return nil, err
	}
	if res.Exit != 0 {
		msg := strings.TrimSpace(string(res.Stderr))
		if strings.Contains(msg, "not permitted") || strings.Contains(msg, "ermission denied") {
			return nil, fmt.Errorf("%s: %w", msg, machine.ErrPermission)
		}
		return nil, fmt.Errorf("dmesg exited %d: %s", res.Exit, msg)
	}
	return &Log{Source: res.String(), Lines: Parse(res.Stdout)}, nil
}

// Parse splits kernel log output into lines, taking every form of
// time prefix off each (see splitKernelStamp): raw dmesg, dmesg -T and
// --time-format iso, syslog files and journalctl -k in its short,
// short-precise, short-iso and short-monotonic forms. It stops at the
// first line of maxLineBytes or more (the scanner's ErrTooLong): a
// printk record is at most 1 KiB (PRINTKRB_RECORD_MAX,
// kernel/printk/internal.h), so such a line is no kernel log's.
func Parse(b []byte) []Line {
	var out []Line
	sc := bufio.NewScanner(bytes.NewReader(b))
	sc.Buffer(nil, maxLineBytes)
	for n := 1; sc.Scan(); n++ {
		raw := sc.Text()
		mono, wall, text := splitKernelStamp(raw)
		out = append(out, Line{Num: n, Time: mono, Wall: wall, Text: text, Raw: raw})
	}
	fillBootTimes(out)
	markEarlierBoots(out)
	return out
}

// maxLineBytes is the scanner's buffer: a line and its newline.
const maxLineBytes = 1 << 20

// WriteCacheLine is the SCSI disk driver's boot message about a drive cache.
type WriteCacheLine struct {
	Device  string // sda
	Enabled bool
	Line    Line
}

var writeCacheMsg = regexp.MustCompile(`^sd \d+:\d+:\d+:\d+: \[(\w+)\] Write cache: (enabled|disabled)`)

// WriteCacheLines finds "sd 2:0:0:0: [sda] Write cache: disabled, read cache:
// enabled" messages; the last one per device wins (a later revalidation).
func (k *Log) WriteCacheLines() map[string]WriteCacheLine {
	out := map[string]WriteCacheLine{}
	if k == nil {
		return out
	}
	for _, l := range k.Lines {
		if m := writeCacheMsg.FindStringSubmatch(l.Text); m != nil {
			out[m[1]] = WriteCacheLine{Device: m[1], Enabled: m[2] == "enabled", Line: l}
		}
	}
	return out
}

// sd_read_cache_type (drivers/scsi/sd.c) when a device answers MODE SENSE
// without a Caching mode page (page 8, SBC): "No Caching mode page found"
// (3.x–6.x; "No Caching mode page present" in 2.6), then "Assuming drive
// cache: write through". The device has no write cache to switch on.
var noCachePageMsg = regexp.MustCompile(`^sd \d+:\d+:\d+:\d+: \[(\w+)\] No Caching mode page (?:found|present)`)

// NoCachePageLines finds, per disk, the SCSI disk driver's "No Caching
// mode page found" line; a later "Write cache:" line for the same disk (a
// revalidation that found the page) takes it back.
func (k *Log) NoCachePageLines() map[string]Line {
	out := map[string]Line{}
	if k == nil {
		return out
	}
	for _, l := range k.Lines {
		if m := noCachePageMsg.FindStringSubmatch(l.Text); m != nil {
			out[m[1]] = l
		} else if m := writeCacheMsg.FindStringSubmatch(l.Text); m != nil {
			delete(out, m[1])
		}
	}
	return out
}

// PCIeBandwidthLine is the PCI core's "available PCIe bandwidth, limited by"
// warning for one function.
type PCIeBandwidthLine struct {
	Address string // 0000:04:00.0
	Line    Line
}

var pcieLimited = regexp.MustCompile(`^pci (\S+): .*available PCIe bandwidth, limited by`)

// PCIeBandwidthLines finds the link-bandwidth warnings, by PCI address.
func (k *Log) PCIeBandwidthLines() map[string]PCIeBandwidthLine {
	out := map[string]PCIeBandwidthLine{}
	if k == nil {
		return out
	}
	for _, l := range k.Lines {
		if m := pcieLimited.FindStringSubmatch(l.Text); m != nil {
			out[m[1]] = PCIeBandwidthLine{Address: m[1], Line: l}
		}
	}
	return out
}
