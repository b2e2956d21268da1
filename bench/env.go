package bench

import (
	"context"
	"fmt"
	"io"

	"github.com/diskdoctor/diskdoctor/doctor"
	"github.com/diskdoctor/diskdoctor/machine"
	"github.com/diskdoctor/diskdoctor/report"
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

// Output is how `diskdoctor bench` shows its result.
type Output struct {
	Format string // text or json
	Color  string // auto, always, never
	Width  int    // 0: the terminal's
}

// Main is `diskdoctor bench PATH`: it wires the machine, the runner and the
// doctor into a run (NewEnv) and renders its result; SIGHUP, SIGINT and
// SIGTERM stop it cleanly with the signal's exit status (WatchSignals). A
// recorded machine's bench run replays with its recorded settings where
// the command line gives none (changed; Recording.Apply).
func Main(ctx context.Context, root, path string, o Options, out Output, changed func(string) bool, stdout, stderr io.Writer) error {
	ctx, sig := WatchSignals(ctx)
	defer sig.Stop()
	env, err := NewEnv(ctx, root, o)
	if err != nil {
		return &ExitError{Code: rules.ExitUnknown, Err: err}
	}
	env.Notes = stderr
	switch {
	case env.Recording != nil:
		if path, err = env.Recording.Apply(&o, path, changed); err != nil {
			return &ExitError{Code: rules.ExitUnknown, Err: err}
		}
	case path == "":
		return &ExitError{Code: rules.ExitUnknown, Err: NoRecording(root)}
	}
	o.Width = out.Width
	if o.Width == 0 {
		o.Width = report.TerminalWidth(stdout)
	}
	if report.IsTerminal(stderr) {
		o.Progress = stderr
	}
	if o.DryRun {
		text, err := DryRun(ctx, path, o, env)
		if err != nil {
			return sig.Exit(err)
		}
		sig.Stop()
		_, err = io.WriteString(stdout, text)
		return err
	}
	res, err := Run(ctx, path, o, env)
	sig.Stop()
	if res != nil {
		if out.Format == "json" {
			if jerr := WriteJSON(stdout, res); err == nil {
				err = jerr
			}
		} else if err == nil {
			WriteText(stdout, res, report.ColorWanted(out.Color, stdout), o.Width)
		}
	}
	return sig.Exit(err)
}
