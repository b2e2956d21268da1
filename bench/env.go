package bench

import (
	"context"

	"github.com/diskdoctor/diskdoctor/doctor"
	"github.com/diskdoctor/diskdoctor/machine"
	"github.com/diskdoctor/diskdoctor/rules"
)

// NewEnv is the live machine and the runner that executes fio and dd, or,
// with root, a recorded machine and its recorded fio outputs; the doctor
// examines the same machine, with --context benchmark, o's probe timeout
// and datasheets.
func NewEnv(root string, o Options) (Env, error) {
	host, runner := machine.Live(), Runner(&Exec{})
	if root != "" {
		h, err := machine.Recorded(root)
		if err != nil {
			return Env{}, err
		}
		host, runner = h, &Replay{Host: h}
	}
	examine := func(ctx context.Context, devices []string) (*rules.Report, error) {
		return doctor.Examine(ctx, doctor.Options{Root: root, ProbeTimeout: o.ProbeTimeout, Datasheets: o.Datasheets, Context: "benchmark", Devices: devices})
	}
	return Env{Host: host, Runner: runner, Examine: examine}, nil
}
