package checks

import (
	"context"
	"errors"
	"strconv"

	"github.com/diskdoctor/diskdoctor/machine"
	"github.com/diskdoctor/diskdoctor/probes/drive"
)

func init() {
	Register(Check{Name: "hdparm-apm", Description: "each ATA hard disk's APM level as hdparm -B reads it, for head parking where smartctl gives none", Run: hdparmAPM})
}

// hdparmAPM reads `hdparm -B` on each judged ATA disk that may spin: the
// APM level (ATA8-ACS: 1-127 allow standby and head unloading, 128-254
// do not spin down, 254 is the least aggressive) where smartctl's ata_apm
// is not there (smartctl before 7.0, or a recording without -g apm); the
// rule reads smartctl's first. A recording without the argv leaves the
// facts unset: it is optional, and smartctl is the first source.
func hdparmAPM(ctx context.Context, env *Env) []*Observation {
	var out []*Observation
	for _, d := range env.Judged(ctx) {
		if !isATA(d) || d.Rotational != nil && !*d.Rotational {
			continue
		}
		if env.asleep(ctx, "hdparm -B", d.Name) {
			continue
		}
		a, err := RunCommand(ctx, env, func(ctx context.Context) (*drive.APM, error) {
			return drive.ReadHdparmB(ctx, env.Host, d.Name)
		})
		if err != nil {
			if !errors.Is(err, machine.ErrNotAvailable) && !errors.Is(err, machine.ErrToolMissing) {
				env.Skip("hdparm -B", d.Name, err)
			}
			continue
		}
		o := NewObservation("hdparm-apm", KindDevice, d.Name)
		ev := Evidence{a.Source, a.Value}
		switch {
		case !a.Supported:
			o.Set("hdparm_apm_enabled", false, ev)
		case !a.Enabled:
			o.Set("hdparm_apm_enabled", false, ev)
		default:
			o.Set("hdparm_apm_enabled", true, ev)
			o.Set("hdparm_apm_level", a.Level, Evidence{a.Source, "APM_level = " + strconv.Itoa(a.Level)})
		}
		out = append(out, o)
	}
	return out
}
