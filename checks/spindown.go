package checks

import (
	"context"
	"errors"

	"github.com/diskdoctor/diskdoctor/machine"
	"github.com/diskdoctor/diskdoctor/probes/bootcfg"
)

func init() {
	Register(Check{Name: "spindown", Description: "the standby (spin-down) timer /etc/hdparm.conf sets for each hard disk (spindown_time, hdparm -S)", Run: spindown})
}

// spindown records, per hard disk, the standby timer hdparm.conf gives it
// at boot and hot-plug. A disk of an md or ZFS array that spins down
// stalls the array for the seconds it takes to spin up again, and a
// member slow to answer on wake is a member that times out: the rules
// combine this with the disk's array membership and with a drive found in
// standby (smart_standby).
func spindown(ctx context.Context, env *Env) []*Observation {
	var out []*Observation
	var stanzas []bootcfg.Spindown
	var readErr error
	read := false
	for _, d := range env.Judged(ctx) {
		if d.Rotational == nil || !*d.Rotational {
			continue
		}
		if !read {
			read = true
			stanzas, readErr = Probe(ctx, env, func(ctx context.Context) ([]bootcfg.Spindown, error) {
				return bootcfg.ReadSpindowns(ctx, env.Host)
			})
			// An absent file is no stanza on a live machine, and unknown in
			// a recording without /etc (the write-cache check's skipped
			// entry already says the recording has none).
			if readErr != nil && !errors.Is(readErr, machine.ErrNotAvailable) {
				env.Skip("spindown", "", readErr)
			}
		}
		o := NewObservation("spindown", KindDevice, d.Name)
		switch {
		case readErr != nil:
			o.Set("spindown_conf_s", nil)
			o.Set("spindown_conf_value", nil)
		default:
			secs, val := 0, 0
			var ev []Evidence
			for _, s := range stanzas {
				if s.Covers(env.Host, d) {
					if v, ok := bootcfg.SpindownSeconds(s.Value); ok {
						secs, val = v, s.Value
						ev = []Evidence{{s.Line.Source(), s.Line.Text}}
					}
				}
			}
			o.Set("spindown_conf_s", secs, ev...)
			o.Set("spindown_conf_value", val)
		}
		out = append(out, o)
	}
	return out
}
