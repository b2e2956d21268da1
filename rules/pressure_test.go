package rules

import (
	"testing"

	"github.com/diskdoctor/diskdoctor/checks"
)

// pressureHost is the host observation the pressure and sample checks
// make, with role and context as the role check sets them.
func pressureHost(role, context string, facts map[string]any) *checks.Observation {
	o := checks.NewObservation("test", checks.KindHost, "host")
	o.Set("role", role)
	o.Set("context", context)
	for k, v := range facts {
		o.Set(k, v, checks.Evidence{Source: "/proc/pressure/x", Value: "x"})
	}
	return o
}

func severityOf(fs []Finding, rule string) string {
	for _, f := range fs {
		if f.Rule == rule {
			return f.Severity
		}
	}
	return ""
}

// CPU pressure: only sustained (avg60 too) and only where it matters
// (a server, a benchmark); the figures of fixtures/bench-vm-loop (some
// avg10=89.63 avg60=82.25, the machine of issue #25) fire it before a
// benchmark and not on a VM judged for health; a short burst does not.
func TestCPUPressure(t *testing.T) {
	busy := map[string]any{"cpu_some_avg10": 89.63, "cpu_some_avg60": 82.25, "cpu_some_avg300": 51.95}
	burst := map[string]any{"cpu_some_avg10": 95.0, "cpu_some_avg60": 20.0, "cpu_some_avg300": 5.0}
	calmNow := map[string]any{"cpu_some_window_pct": 10.0, "cpu_some_avg10": 60.0, "cpu_some_avg60": 60.0, "cpu_some_avg300": 40.0}
	for _, c := range []struct {
		name, role, context string
		facts               map[string]any
		want                string
	}{
		{"bench-vm-loop before a benchmark", "vm", "benchmark", busy, Warning},
		{"bench-vm-loop on a server", "server", "auto", busy, Warning},
		{"bench-vm-loop judged for health", "vm", "auto", busy, ""},
		{"a desktop", "desktop", "desktop", busy, ""},
		{"a burst", "server", "benchmark", burst, ""},
		{"calm in the window", "server", "benchmark", calmNow, ""},
		{"unknown", "server", "benchmark", map[string]any{}, ""},
	} {
		fs := judge(t, pressureHost(c.role, c.context, c.facts))
		if got := severityOf(fs, "cpu-pressure-high"); got != c.want {
			t.Errorf("%s: cpu-pressure-high %q, want %q", c.name, got, c.want)
		}
	}
}

// Memory pressure: "full" (every task stalled at once), warning from 10 %
// now or 5 % over a minute, critical beyond systemd-oomd's default limit
// sustained over a minute; fixtures' figures (hpe-microserver: full
// avg60=0.01) do not fire it.
func TestMemoryPressure(t *testing.T) {
	for _, c := range []struct {
		name  string
		facts map[string]any
		want  string
	}{
		{"hpe-microserver", map[string]any{"memory_full_avg10": 0.0, "memory_full_avg60": 0.01}, ""},
		{"thrashing now", map[string]any{"memory_full_avg10": 12.0, "memory_full_avg60": 2.0}, Warning},
		{"over a minute", map[string]any{"memory_full_avg10": 4.0, "memory_full_avg60": 6.0}, Warning},
		{"window calm, avg10 high", map[string]any{"memory_full_window_pct": 0.0, "memory_full_avg10": 12.0, "memory_full_avg60": 1.0}, ""},
		{"window thrashing", map[string]any{"memory_full_window_pct": 30.0, "memory_full_avg10": 3.0, "memory_full_avg60": 1.0}, Warning},
		{"beyond oomd's limit", map[string]any{"memory_full_avg10": 80.0, "memory_full_avg60": 65.0}, Critical},
		{"unknown", map[string]any{}, ""},
	} {
		fs := judge(t, pressureHost("server", "auto", c.facts))
		if got := severityOf(fs, "memory-pressure-high"); got != c.want {
			t.Errorf("%s: memory-pressure-high %q, want %q", c.name, got, c.want)
		}
	}
}
