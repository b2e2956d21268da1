package drive

import (
	"context"
	"errors"
	"fmt"
	"regexp"
	"strconv"
	"strings"

	smart "github.com/anatol/smart.go"
	"github.com/diskdoctor/diskdoctor/machine"
)

// Cache is the drive's own write-cache state, as the drive reports it.
type Cache struct {
	Supported *bool // nil: not reported
	Enabled   *bool
	Source    string // the command or interface it came from
	Value     string // the line or words that say so
}

var hdparmW = regexp.MustCompile(`^\s*write-caching\s*=\s*(\d+)\s*\((on|off)\)`)

// ReadHdparmW runs `hdparm -W /dev/<dev>`, which asks the drive (ATA
// IDENTIFY) and changes nothing.
func ReadHdparmW(ctx context.Context, h *machine.Host, dev string) (*Cache, error) {
	res, err := h.Run(ctx, "hdparm", "-W", "/dev/"+dev)
	if err != nil {
		return nil, err
	}
	dc, perr := ParseHdparmW(res.Stdout)
	if perr != nil {
		msg := strings.TrimSpace(string(res.Stderr))
		if strings.Contains(msg, "ermission denied") {
			return nil, fmt.Errorf("%s: %s: %w", res, msg, machine.ErrPermission)
		}
		if msg != "" {
			return nil, fmt.Errorf("%s: %s: %w", res, msg, perr)
		}
		return nil, fmt.Errorf("%s: %w", res, perr)
	}
	dc.Source = res.String()
	return dc, nil
}

// ParseHdparmW reads " write-caching =  1 (on)". A drive without the
// feature prints "not supported".
func ParseHdparmW(b []byte) (*Cache, error) {
	// Lines, not a bufio.Scanner: the output is a few lines, and a
	// Scanner allocates a buffer of its own per disk.
	for line := range strings.Lines(string(b)) {
		line = strings.TrimRight(line, "\r\n")
		if m := hdparmW.FindStringSubmatch(line); m != nil {
			on := m[2] == "on"
			if (m[1] == "1") != on {
				return nil, fmt.Errorf("%w: %q", machine.ErrParse, line)
			}
			yes := true
			return &Cache{Supported: &yes, Enabled: &on, Value: strings.TrimSpace(line)}, nil
		}
		if strings.Contains(line, "write-caching") && strings.Contains(line, "not supported") {
			no := false
			return &Cache{Supported: &no, Enabled: &no, Value: strings.TrimSpace(line)}, nil
		}
	}
	return nil, fmt.Errorf("%w: no write-caching line", machine.ErrParse)
}

// ReadATAIdentify asks a SATA drive for IDENTIFY DEVICE through smart.go
// (an SG_IO read; nothing is written, nothing lands in the drive's logs).
// Word 82 bit 5: volatile write cache supported; word 85 bit 5: enabled.
// Live machines only.
func ReadATAIdentify(ctx context.Context, h *machine.Host, dev string) (*Cache, error) {
	if !h.IsLive() {
		return nil, fmt.Errorf("ATA IDENTIFY of /dev/%s: recorded machine, no device access: %w", dev, machine.ErrNotAvailable)
	}
	type result struct {
		dc  *Cache
		err error
	}
	ch := make(chan result, 1)
	node, err := h.DevicePath("/dev/" + dev)
	if err != nil {
		return nil, err
	}
	go func() {
		d, err := smart.OpenSata(node)
		if err != nil {
			ch <- result{nil, machine.DeviceErr(dev, err)}
			return
		}
		defer d.Close()
		id, err := d.Identify()
		if err != nil {
			ch <- result{nil, machine.DeviceErr(dev, err)}
			return
		}
		ch <- result{IdentifyWriteCache(id.CommandsSupported1, id.CommandsEnabled1), nil}
	}()
	select {
	case r := <-ch:
		if r.dc != nil {
			r.dc.Source = "ATA IDENTIFY /dev/" + dev + " (smart.go)"
		}
		return r.dc, r.err
	case <-ctx.Done():
		return nil, fmt.Errorf("ATA IDENTIFY of /dev/%s: %w", dev, machine.CtxErr(ctx.Err()))
	}
}

// IdentifyWriteCache decodes IDENTIFY words 82 and 85 (bit 5: volatile write
// cache supported / enabled).
func IdentifyWriteCache(word82, word85 uint16) *Cache {
	sup := word82&(1<<5) != 0
	en := sup && word85&(1<<5) != 0
	return &Cache{Supported: &sup, Enabled: &en, Value: fmt.Sprintf("word 82 = 0x%04x, word 85 = 0x%04x", word82, word85)}
}

var nvmeFeatureValue = regexp.MustCompile(`Current value:\s*(0x[0-9a-fA-F]+)`)

// ReadNVMeWriteCache asks an NVMe drive for its volatile write cache, not
// the kernel's writable queue/write_cache: nvme-cli's Get Features 0x06
// (Volatile Write Cache; bit 0 WCE) where it is installed or recorded,
// else Identify Controller VWC (byte 525 bit 0: a volatile cache is
// present) through smart.go on a live host.
func ReadNVMeWriteCache(ctx context.Context, h *machine.Host, ns, ctrl string) (*Cache, error) {
	res, err := h.Run(ctx, "nvme", "get-feature", "-f", "0x06", "/dev/"+ns)
	if err == nil {
		return ParseNVMeGetFeatureVWC(res)
	}
	if !errors.Is(err, machine.ErrToolMissing) || !h.IsLive() || ctrl == "" {
		return nil, err
	}
	return readNVMeIdentifyVWC(ctx, h, ctrl)
}

// ParseNVMeGetFeatureVWC reads `nvme get-feature -f 0x06` output, e.g.
// "get-feature:0x06 (Volatile Write Cache), Current value:0x00000001". A
// controller without a volatile cache rejects the feature (Invalid Field
// in Command): then none is present.
func ParseNVMeGetFeatureVWC(res machine.CmdResult) (*Cache, error) {
	out := string(res.Stdout) + string(res.Stderr)
	if m := nvmeFeatureValue.FindStringSubmatch(out); m != nil && res.Exit == 0 {
		v, err := strconv.ParseUint(m[1][2:], 16, 32)
		if err != nil {
			return nil, fmt.Errorf("%s: %w: %q", res, machine.ErrParse, m[0])
		}
		yes, on := true, v&1 == 1
		return &Cache{Supported: &yes, Enabled: &on, Source: res.String(), Value: strings.TrimSpace(m[0])}, nil
	}
	if res.Exit != 0 && (strings.Contains(out, "INVALID_FIELD") || strings.Contains(out, "Invalid Field")) {
		no := false
		return &Cache{Supported: &no, Enabled: &no, Source: res.String(), Value: firstLine(out)}, nil
	}
	return nil, fmt.Errorf("%s: exit %d: %w: %q", res, res.Exit, machine.ErrParse, firstLine(out))
}

func firstLine(s string) string {
	s = strings.TrimSpace(s)
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		s = s[:i]
	}
	if len(s) > 200 {
		s = s[:200]
	}
	return s
}

func readNVMeIdentifyVWC(ctx context.Context, h *machine.Host, ctrl string) (*Cache, error) {
	type result struct {
		dc  *Cache
		err error
	}
	node, err := h.DevicePath("/dev/" + ctrl)
	if err != nil {
		return nil, err
	}
	ch := make(chan result, 1)
	go func() {
		d, err := smart.OpenNVMe(node)
		if err != nil {
			ch <- result{nil, machine.DeviceErr(ctrl, err)}
			return
		}
		defer d.Close()
		id, _, err := d.Identify()
		if err != nil {
			ch <- result{nil, machine.DeviceErr(ctrl, err)}
			return
		}
		present := id.Vwc&1 == 1
		// Identify says whether a cache exists, not whether it is on.
		ch <- result{&Cache{Supported: &present, Source: "NVMe Identify Controller /dev/" + ctrl + " (smart.go)", Value: fmt.Sprintf("VWC = 0x%02x", id.Vwc)}, nil}
	}()
	select {
	case r := <-ch:
		return r.dc, r.err
	case <-ctx.Done():
		return nil, fmt.Errorf("NVMe Identify of /dev/%s: %w", ctrl, machine.CtxErr(ctx.Err()))
	}
}
