package checks

import (
	"context"
	"errors"
	"fmt"
	"sync"

	"github.com/diskdoctor/diskdoctor/machine"
	"github.com/diskdoctor/diskdoctor/probes/drive"
)

func init() {
	Register(Check{Name: "hdparm-power", Description: "each ATA hard disk's power state as hdparm -C reads it (CHECK POWER MODE, which does not wake a drive): a disk found in standby", Run: hdparmPower})
}

// errAsleep is why a command that may spin a drive up was not run: the
// drive was found in standby, and the doctor does not wake a sleeping disk.
var errAsleep = errors.New("not asked: the drive is in standby (hdparm -C) and this command may spin it up")

// PowerModes asks each judged ATA disk that may spin for its power state,
// once per run, before anything else is sent to it: `hdparm -B` and
// `hdparm -W` read IDENTIFY DEVICE, which some drives answer only after
// spinning up, and they wait for this (smartctl asks with -n standby
// itself). A disk missing from the map was not asked or did not answer:
// its state is unknown.
func (env *Env) PowerModes(ctx context.Context) map[string]*drive.PowerMode {
	m, _ := env.powerModes.get(ctx, env.run, func(run context.Context) (map[string]*drive.PowerMode, error) {
		out := map[string]*drive.PowerMode{}
		var mu sync.Mutex
		var fs []func()
		for _, d := range env.Judged(run) {
			if !isATA(d) || d.Rotational != nil && !*d.Rotational {
				continue
			}
			fs = append(fs, func() {
				p, err := RunCommand(run, env, func(ctx context.Context) (*drive.PowerMode, error) {
					return drive.ReadHdparmC(ctx, env.Host, d.Name)
				})
				if err != nil {
					// Optional: a recording without the argv, or no hdparm.
					if !errors.Is(err, machine.ErrNotAvailable) && !errors.Is(err, machine.ErrToolMissing) {
						env.Skip("hdparm -C", d.Name, err)
					}
					return
				}
				mu.Lock()
				out[d.Name] = p
				mu.Unlock()
			})
		}
		together(fs...)
		return out, nil
	})
	return m
}

// asleep reports whether dev was found in standby or sleep; the caller
// then leaves it alone and records why.
func (env *Env) asleep(ctx context.Context, probe, dev string) bool {
	p := env.PowerModes(ctx)[dev]
	if !p.Asleep() {
		return false
	}
	env.Skip(probe, dev, withHint(fmt.Errorf("%w (%s: %s)", errAsleep, p.Source, p.Value),
		"run the doctor again while the disk is active, or the command by hand if waking it is acceptable"))
	return true
}

// hdparmPower puts each asked disk's power state on it: a member of a
// redundant array found in standby has a standby timer running, whatever
// set it (hdparm.conf, a udev rule, hd-idle, the drive's own APM).
func hdparmPower(ctx context.Context, env *Env) []*Observation {
	modes := env.PowerModes(ctx)
	var out []*Observation
	for _, d := range env.Judged(ctx) {
		p := modes[d.Name]
		if p == nil {
			continue
		}
		o := NewObservation("hdparm-power", KindDevice, d.Name)
		o.Set("hdparm_power_state", p.State, Evidence{p.Source, p.Value})
		out = append(out, o)
	}
	return out
}
