package checks

import (
	"context"
	"fmt"
	"sort"
	"strconv"
	"strings"

	"github.com/diskdoctor/diskdoctor/probes/system"
)

func init() {
	Register(Check{Name: "cpu-power", Description: "CPU frequency governor, scaling driver, intel_pstate mode, current frequencies, C-state limits on the kernel command line", Run: cpuPower})
}

// cstateParams are kernel parameters that limit idle states, frequency
// scaling or link power saving (Documentation/admin-guide/kernel-parameters.txt):
// their presence is latency tuning done on purpose.
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
	med := s[len(s)/2]
	if len(s)%2 == 0 {
		// An even count's median is the mean of its two middle values.
		med = (s[len(s)/2-1] + s[len(s)/2]) / 2
	}
	return fmt.Sprintf("cpu MHz min %.0f, median %.0f, max %.0f over %d CPUs", s[0], med, s[len(s)-1], len(s))
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
