package checks

import (
	"fmt"

	"github.com/diskdoctor/diskdoctor/probes/window"
	"github.com/prometheus/procfs"
)

// addSteal sets cpu_steal_window_pct: the share of the window's CPU time
// the hypervisor ran something else while this guest wanted the CPU;
// nil when /proc/stat was not read at both ends.
func addSteal(o *Observation, w *window.Window) {
	pct, ok := window.StealPct(w.Start.CPU, w.End.CPU)
	if !ok {
		o.Set("cpu_steal_window_pct", nil)
		return
	}
	pct = round(pct, 2)
	o.Set("cpu_steal_window_pct", pct, Evidence{"/proc/stat, 2 readings", fmt.Sprintf("cpu steal +%.2f s of +%.2f s of CPU time in %.1f s = %.1f %%",
		w.End.CPU.Steal-w.Start.CPU.Steal, cpuTotal(w.End.CPU)-cpuTotal(w.Start.CPU), w.Seconds, pct)})
}

// cpuTotal is the seconds in every state but guest (counted in user).
func cpuTotal(c *procfs.CPUStat) float64 {
	return c.User + c.Nice + c.System + c.Idle + c.Iowait + c.IRQ + c.SoftIRQ + c.Steal
}
