package checks

import (
	"context"
	"errors"
	"fmt"
	"runtime/debug"
	"sync"
	"time"

	"github.com/diskdoctor/diskdoctor/machine"
	"github.com/diskdoctor/diskdoctor/probes/block"
	"github.com/diskdoctor/diskdoctor/probes/system"
)

// Options select and tune a run.
type Options struct {
	ProbeTimeout time.Duration
	Devices      []string // judge only these (virtual ones included when named)
	Disabled     []string // check names not to run
	Context      string   // auto, server, desktop, laptop, vm, benchmark
	// Sample is the length of a measuring window (0: configuration only).
	Sample time.Duration
	// LiveWindow is the window taken when Sample is 0 and the Host is this
	// machine: a default run looks at what the machine is doing (a
	// competing writer, a busy device) before it says OK. A recorded
	// machine keeps what it was asked: its window only with Sample.
	LiveWindow time.Duration
	// Progress is told how far the window has come (a terminal's progress line).
	Progress func(elapsed time.Duration)

	// inventoryPerDevice is InventoryPerDevice (0), or another in a test
	// (negative: none).
	inventoryPerDevice time.Duration
}

// Result is every observation and skipped entry of a run.
type Result struct {
	Observations []*Observation
	Skipped      []Skipped
	Devices      []*block.Device
	Platform     *system.Platform
	Sample       *Sample // nil without --sample
}

// Run runs every enabled check concurrently against the host.
func Run(ctx context.Context, h *machine.Host, opts Options) (*Result, error) {
	if opts.ProbeTimeout <= 0 {
		opts.ProbeTimeout = 5 * time.Second
	}
	env := newEnv(h, opts)
	env.run = ctx
	disabled := map[string]bool{}
	for _, d := range opts.Disabled {
		disabled[d] = true
	}
	var checks []Check
	for _, c := range registry {
		if !disabled[c.Name] {
			checks = append(checks, c)
		}
	}
	results := make([][]*Observation, len(checks))
	crashes := make([]error, len(checks))
	var wg sync.WaitGroup
	for i, c := range checks {
		wg.Add(1)
		go func() {
			defer wg.Done()
			// A check that panics is a bug; the run cannot say what the
			// check would have found, so it ends without a verdict.
			defer func() {
				if r := recover(); r != nil {
					crashes[i] = fmt.Errorf("check %s crashed (a bug in diskdoctor; please report it): %v\n%s", c.Name, r, debug.Stack())
				}
			}()
			results[i] = c.Run(ctx, env)
		}()
	}
	// The checks start with the inventory, not after it: each waits for it
	// where it needs the devices, and what comes first (the kernel log's
	// parsing, the CPU's and the platform's files) runs in the time the
	// inventory's workers leave a core idle.
	_, invErr := env.Devices(ctx)
	wg.Wait()
	if invErr != nil {
		// The inventory is what every device check stands on: without it
		// the machine cannot be examined at all.
		return nil, fmt.Errorf("cannot list block devices: %w", invErr)
	}
	if err := errors.Join(crashes...); err != nil {
		return nil, err
	}
	res := &Result{Skipped: env.skipped()}
	for _, r := range results {
		for _, o := range r {
			if o.Kind == KindSample {
				res.Sample, _ = o.Get("summary").(*Sample)
				continue
			}
			res.Observations = append(res.Observations, o)
		}
	}
	res.Devices, _ = env.Devices(ctx)
	res.Platform, _ = env.Platform(ctx)
	return res, nil
}
