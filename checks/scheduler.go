package checks

import (
	"context"
	"strings"
)

func init() {
	Register(Check{Name: "scheduler", Description: "the active I/O scheduler of each device", Run: scheduler})
}

// scheduler records each device's active I/O scheduler: queue/scheduler
// lists the available ones with the active one in brackets
// (Documentation/block/switching-sched.rst).
func scheduler(ctx context.Context, env *Env) []*Observation {
	var out []*Observation
	for _, d := range env.Judged(ctx) {
		if d.Queue.Scheduler == "" {
			continue
		}
		o := NewObservation("scheduler", KindDevice, d.Name)
		o.Set("scheduler", d.Queue.Scheduler, Evidence{d.Files["scheduler"], strings.Join(bracket(d.Queue.Schedulers, d.Queue.Scheduler), " ")})
		o.Set("schedulers_available", nonNil(d.Queue.Schedulers))
		out = append(out, o)
	}
	return out
}

// bracket writes the list back as queue/scheduler shows it.
func bracket(all []string, active string) []string {
	out := make([]string, len(all))
	for i, s := range all {
		if s == active && len(all) > 1 {
			s = "[" + s + "]"
		}
		out[i] = s
	}
	return out
}
