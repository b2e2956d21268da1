package checks

import (
	"context"
	"fmt"
	"math"
	"sort"
	"strconv"
	"strings"

	"github.com/diskdoctor/diskdoctor/probes/pcie"
	"github.com/diskdoctor/diskdoctor/probes/system"
	"github.com/prometheus/procfs"
)

func init() {
	Register(Check{Name: "pcie-link", Description: "each NVMe controller's PCIe link: current against maximum speed and width", Run: pcieLink})
	Register(Check{Name: "cpu-power", Description: "CPU frequency governor, scaling driver, intel_pstate mode, current frequencies, C-state limits on the kernel command line", Run: cpuPower})
	Register(Check{Name: "pressure", Description: "pressure stall information for io, cpu and memory (/proc/pressure)", Run: pressure})
	Register(Check{Name: "scheduler", Description: "the active I/O scheduler of each device", Run: scheduler})
}

// laneGBs is the usable bandwidth of one lane per direction in GB/s
// (8b/10b encoding up to 5 GT/s, 128b/130b from 8 GT/s).
func laneGBs(gts float64) float64 {
	if gts <= 5 {
		return gts * 0.8 / 8
	}
	return gts * 128 / 130 / 8
}

func pcieLink(ctx context.Context, env *Env) []*Observation {
	log, _ := env.KernelLog(ctx)
	limited := log.PCIeBandwidthLines()
	var out []*Observation
	for _, d := range env.Judged(ctx) {
		if d.Transport != "nvme" {
			continue
		}
		var worst *pcie.Link
		worstFrac := 2.0
		for _, c := range d.Controllers {
			l, err := Probe(ctx, env, func(ctx context.Context) (*pcie.Link, error) {
				if fn, ok := d.ControllerFunction(c); ok {
					return pcie.ReadLink(ctx, env.Host, fn)
				}
				return pcie.ReadNVMeLink(ctx, env.Host, c)
			})
			if err != nil || l.MaxGTs == 0 || l.MaxLanes == 0 {
				if err != nil {
					env.Skip("pcie-link", d.Name, err)
				}
				continue
			}
			if f := bandwidth(l.CurGTs, l.CurLanes) / bandwidth(l.MaxGTs, l.MaxLanes); f < worstFrac {
				worst, worstFrac = l, f
			}
		}
		if worst == nil {
			continue
		}
		o := NewObservation("pcie-link", KindDevice, d.Name)
		l := worst
		o.Set("pcie_address", l.Address)
		o.Set("pcie_cur_gts", l.CurGTs, Evidence{l.Files["current_link_speed"], l.CurSpeed})
		o.Set("pcie_max_gts", l.MaxGTs, Evidence{l.Files["max_link_speed"], l.MaxSpeed})
		o.Set("pcie_cur_width", l.CurLanes, Evidence{l.Files["current_link_width"], l.CurWidth})
		o.Set("pcie_max_width", l.MaxLanes, Evidence{l.Files["max_link_width"], l.MaxWidth})
		o.Set("pcie_cur_gbs", round(bandwidth(l.CurGTs, l.CurLanes), 2))
		o.Set("pcie_max_gbs", round(bandwidth(l.MaxGTs, l.MaxLanes), 2))
		o.Set("pcie_fraction", round(worstFrac, 3))
		o.Set("pcie_degraded", l.CurGTs < l.MaxGTs || l.CurLanes < l.MaxLanes)
		o.Set("pcie_link", fmt.Sprintf("%s x%d of %s x%d", l.CurSpeed, l.CurLanes, l.MaxSpeed, l.MaxLanes))
		if line, ok := limited[l.Address]; ok {
			o.AddEvidence("pcie_degraded", Evidence{"dmesg line " + strconv.Itoa(line.Line.Num), line.Line.Raw})
		}
		out = append(out, o)
	}
	return out
}

func bandwidth(gts float64, lanes int) float64 { return laneGBs(gts) * float64(lanes) }

// cstateParams are kernel parameters that limit idle states or link power
// saving: their presence is the latency tuning of domain.md §1B.
var cstateParams = []string{"intel_idle.max_cstate", "processor.max_cstate", "idle", "pcie_aspm", "nvme_core.default_ps_max_latency_us", "intel_pstate", "amd_pstate"}

func cpuPower(ctx context.Context, env *Env) []*Observation {
	c, err := Probe(ctx, env, func(ctx context.Context) (*system.CPUPower, error) {
		return system.ReadCPUPower(ctx, env.Host)
	})
	o := NewObservation("cpu-power", KindHost, "host")
	var limits []string
	if c != nil {
		for _, arg := range c.CmdLine {
			k, _, _ := strings.Cut(arg, "=")
			for _, p := range cstateParams {
				if k == p {
					limits = append(limits, arg)
				}
			}
		}
		// The whole command line is the evidence: it shows absent limits too.
		o.Set("cstate_limits", nonNil(limits), Evidence{"/proc/cmdline", strings.Join(c.CmdLine, " ")})
		o.Set("cpu_model", c.ModelName)
		if len(c.MHz) > 0 {
			o.Set("cpu_mhz_avg", round(mean(c.MHz), 0), Evidence{"/proc/cpuinfo", mhzSummary(c.MHz)})
		}
	}
	if err != nil {
		env.Skip("cpu-power", "", err)
		return []*Observation{o}
	}
	govs := map[string]int{}
	var atMin int
	var curs []float64
	for _, s := range c.CPUs {
		govs[s.Governor]++
		if s.ScalingCurrentFrequency != nil && s.CpuinfoMinimumFrequency != nil {
			cur, lo := float64(*s.ScalingCurrentFrequency), float64(*s.CpuinfoMinimumFrequency)
			curs = append(curs, cur/1000)
			if cur <= lo*1.05 {
				atMin++
			}
		}
	}
	gov := majority(govs)
	first := c.CPUs[0]
	dir := "/sys/devices/system/cpu/cpu" + first.Name + "/cpufreq/"
	o.Set("governor", gov, Evidence{dir + "scaling_governor", gov + governorSummary(govs, len(c.CPUs))})
	o.Set("scaling_driver", first.Driver, Evidence{dir + "scaling_driver", first.Driver})
	o.Set("pstate_status", c.PstateStatus)
	if c.PstateStatus != "" {
		o.AddEvidence("pstate_status", Evidence{"/sys/devices/system/cpu/intel_pstate/status", c.PstateStatus})
	}
	o.Set("cpus", len(c.CPUs))
	if len(curs) > 0 {
		frac := float64(atMin) / float64(len(curs))
		o.Set("cpus_at_min_fraction", round(frac, 2), Evidence{"/sys/devices/system/cpu/cpu*/cpufreq/scaling_cur_freq", fmt.Sprintf("%d of %d CPUs at the minimum (%s MHz); %s", atMin, len(curs), khzToMHz(first.CpuinfoMinimumFrequency), mhzSummary(curs))})
		o.Set("cpus_at_min", atMin)
		o.Set("cpus_sampled", len(curs))
		o.Set("cpu_min_mhz", khzFloat(first.CpuinfoMinimumFrequency))
		o.Set("cpu_max_mhz", khzFloat(first.CpuinfoMaximumFrequency))
	} else {
		o.Set("cpus_at_min_fraction", nil)
	}
	return []*Observation{o}
}

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

func majority(m map[string]int) string {
	best, n := "", -1
	for _, k := range sortedKeys(m) {
		if m[k] > n {
			best, n = k, m[k]
		}
	}
	return best
}

func governorSummary(m map[string]int, total int) string {
	if len(m) == 1 {
		return fmt.Sprintf(" (all %d CPUs)", total)
	}
	var parts []string
	for _, k := range sortedKeys(m) {
		parts = append(parts, fmt.Sprintf("%s on %d", k, m[k]))
	}
	return " (" + strings.Join(parts, ", ") + ")"
}

func mean(xs []float64) float64 {
	s := 0.0
	for _, x := range xs {
		s += x
	}
	return s / float64(len(xs))
}

func mhzSummary(xs []float64) string {
	s := append([]float64(nil), xs...)
	sort.Float64s(s)
	return fmt.Sprintf("cpu MHz min %.0f, median %.0f, max %.0f over %d CPUs", s[0], s[len(s)/2], s[len(s)-1], len(s))
}

func khzFloat(v *uint64) any {
	if v == nil {
		return nil
	}
	return float64(*v) / 1000
}

func khzToMHz(v *uint64) string {
	if v == nil {
		return "?"
	}
	return strconv.FormatUint(*v/1000, 10)
}

func round(x float64, digits int) float64 {
	p := math.Pow(10, float64(digits))
	return math.Round(x*p) / p
}
