package drive

import (
	"context"
	"fmt"
	"strings"

	"github.com/diskdoctor/diskdoctor/machine"
)

// PowerMode is a drive's power state as `hdparm -C` reads it with ATA
// CHECK POWER MODE (ACS-3 7.3), a command a drive in standby answers
// without spinning up.
type PowerMode struct {
	// State is hdparm's word: "standby", "sleeping", "idle",
	// "active/idle", "NVcache_spindown", "NVcache_spinup" or "unknown"
	// (hdparm.c, do_get_powermode).
	State  string
	Source string
	Value  string
}

// Asleep reports whether the spindle is stopped: a drive in standby or
// sleep spins up on the next media access, and on IDENTIFY for some.
func (p *PowerMode) Asleep() bool {
	return p != nil && (p.State == "standby" || p.State == "sleeping" || p.State == "NVcache_spindown")
}

// ReadHdparmC runs `hdparm -C /dev/<dev>`. It only asks (CHECK POWER
// MODE); a drive in standby stays there.
func ReadHdparmC(ctx context.Context, h *machine.Host, dev string) (*PowerMode, error) {
	res, err := h.Run(ctx, "hdparm", "-C", "/dev/"+dev)
	if err != nil {
		return nil, err
	}
	p, perr := ParseHdparmC(res.Stdout)
	if perr != nil {
		if msg := strings.TrimSpace(string(res.Stderr)); msg != "" {
			return nil, fmt.Errorf("%s: %s: %w", res, msg, perr)
		}
		return nil, fmt.Errorf("%s: %w", res, perr)
	}
	p.Source = res.String()
	return p, nil
}

// powerStates are the words hdparm prints after "drive state is:".
var powerStates = []string{"standby", "sleeping", "idle", "active/idle", "NVcache_spindown", "NVcache_spinup", "unknown"}

// ParseHdparmC reads " drive state is:  standby" under hdparm's "/dev/sdb:"
// header.
func ParseHdparmC(b []byte) (*PowerMode, error) {
	for line := range strings.Lines(string(b)) {
		v, ok := strings.CutPrefix(strings.TrimSpace(line), "drive state is:")
		if !ok {
			continue
		}
		v = strings.TrimSpace(v)
		for _, s := range powerStates {
			if v == s {
				return &PowerMode{State: s, Value: "drive state is:  " + s}, nil
			}
		}
		return nil, fmt.Errorf("%w: %q", machine.ErrParse, strings.TrimSpace(line))
	}
	return nil, fmt.Errorf("%w: no \"drive state is\" line", machine.ErrParse)
}
