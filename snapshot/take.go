package snapshot

import (
	"context"
	"fmt"
	"time"

	"github.com/diskdoctor/diskdoctor/checks"
	"github.com/diskdoctor/diskdoctor/probes"
)

// RecordOptions tune Record.
type RecordOptions struct {
	// KeepSerials turns redaction off.
	KeepSerials  bool
	ProbeTimeout time.Duration
	// Progress, when set, is told what is being done.
	Progress func(string)
}

// Record runs every check on src with a recorder attached and collects what
// the probes read: the list of what to capture is derived from the probes
// themselves. src is read only through its Host methods.
func Record(ctx context.Context, src *probes.Host, o RecordOptions) (*Recording, error) {
	rec := NewRecorder()
	h := rec.Attach(src) // src.WithTracer(rec), counting commands in flight
	opts := checks.Options{ProbeTimeout: o.ProbeTimeout, Context: "auto"}
	if o.Progress != nil {
		o.Progress("examining the machine")
	}
	res, err := checks.Run(ctx, h, opts)
	if err != nil {
		return nil, err
	}
	// A second pass judges the devices a default run leaves out (virtual
	// ones, NVMe multipath paths), so that a replay with --device NAME finds
	// what that reads too. Judging is per device and the host-wide reads
	// are the same, so the devices of the first pass need no second one
	// (on a 1,000-disk machine that halves the work).
	var names []string
	byDefault := &checks.Env{} // its IsJudged with no --device: the default set
	for _, d := range res.Devices {
		if !byDefault.IsJudged(d) {
			names = append(names, d.Name)
		}
	}
	if len(names) > 0 {
		opts.Devices = names
		if _, err := checks.Run(ctx, h, opts); err != nil {
			return nil, err
		}
	}
	// A probe that timed out returns at its deadline while its command is
	// still being killed (the exec runner waits up to a second more): let
	// those finish so that they are recorded as timed out, not missing.
	if !rec.Wait(ctx, o.ProbeTimeout+3*time.Second) {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
	}
	var prog func(done, total int)
	if o.Progress != nil {
		prog = func(done, total int) { o.Progress(fmt.Sprintf("recording %d/%d paths", done, total)) }
	}
	return rec.Collect(ctx, src, CollectOptions{Redact: !o.KeepSerials, ReadTimeout: o.ProbeTimeout, Progress: prog})
}
