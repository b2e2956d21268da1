package checks

import (
	"context"
	"fmt"

	"github.com/diskdoctor/diskdoctor/probes/system"
	"github.com/prometheus/procfs"
)

func init() {
	Register(Check{Name: "pressure", Description: "pressure stall information for io, cpu and memory (/proc/pressure)", Run: pressure})
}

// pressure records the share of recent time that tasks stalled on I/O, CPU
// and memory: the avg10/avg60/avg300 of /proc/pressure/* are percentages
// over 10 s, 60 s and 300 s windows (Documentation/accounting/psi.rst).
func pressure(ctx context.Context, env *Env) []*Observation {
	p, err := Probe(ctx, env, func(ctx context.Context) (*system.Pressure, error) {
		return system.ReadPressure(ctx, env.Host)
	})
	if err != nil {
		env.Skip("pressure", "", err)
	}
	if p == nil {
		return nil
	}
	o := NewObservation("pressure", KindHost, "host")
	set := func(res string, st *procfs.PSIStats) {
		if st == nil {
			return
		}
		file := "/proc/pressure/" + res
		if st.Some != nil {
			ev := Evidence{file, psiLine("some", st.Some)}
			o.Set(res+"_some_avg10", st.Some.Avg10, ev)
			o.Set(res+"_some_avg60", st.Some.Avg60, ev)
			o.Set(res+"_some_avg300", st.Some.Avg300)
		}
		if st.Full != nil {
			ev := Evidence{file, psiLine("full", st.Full)}
			o.Set(res+"_full_avg10", st.Full.Avg10, ev)
			o.Set(res+"_full_avg60", st.Full.Avg60, ev)
			o.Set(res+"_full_avg300", st.Full.Avg300)
		}
	}
	set("io", p.IO)
	set("cpu", p.CPU)
	set("memory", p.Memory)
	return []*Observation{o}
}

func psiLine(kind string, l *procfs.PSILine) string {
	return fmt.Sprintf("%s avg10=%.2f avg60=%.2f avg300=%.2f total=%d", kind, l.Avg10, l.Avg60, l.Avg300, l.Total)
}
