package bench

import (
	"context"
	"fmt"

	"github.com/diskdoctor/diskdoctor/doctor"
	"github.com/diskdoctor/diskdoctor/machine"
	"github.com/diskdoctor/diskdoctor/rules"
)

// NewEnv is the live machine and the runner that executes fio and dd, or,
// with root, a recorded machine, its recorded bench run (Recorded, nil
// when it holds none) and the runner that answers from it; the doctor
// examines the same machine, with --context benchmark, o's probe timeout
// and datasheets.
func NewEnv(ctx context.Context, root string, o Options) (Env, error) {
	host, runner := machine.Live(), Runner(&Exec{})
	var rec *Recording
	if root != "" {
		h, err := machine.Recorded(root)
		if err != nil {
			return Env{}, err
		}
		if rec, err = Recorded(ctx, h); err != nil {
			return Env{}, fmt.Errorf("the recorded bench run of %s: %w", root, err)
		}
		if rec != nil {
			rec.Root = root
		}
		host, runner = h, &Replay{Host: h, Root: root, Recording: rec}
	}
	examine := func(ctx context.Context, devices []string) (*rules.Report, error) {
		return doctor.Examine(ctx, doctor.Options{Root: root, ProbeTimeout: o.ProbeTimeout, Datasheets: o.Datasheets, Context: "benchmark", Devices: devices})
	}
	return Env{Host: host, Runner: runner, Examine: examine, Recording: rec}, nil
}
