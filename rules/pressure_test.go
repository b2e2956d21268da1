package rules

import (
	"strings"
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

// A device held back on reads is described by its reads: the rate, the
// latency and the datasheet figure of the direction that fell short, not
// its writes set against the rated write rate.
func TestBelowDatasheetOnReads(t *testing.T) {
	facts := map[string]any{"sample_util_pct": 95.0, "sample_r_mbs": 20.0, "sample_rareq_kib": 128.0, "sample_r_await_ms": 30.0,
		"sample_r_s": 156.0, "sample_w_mbs": 0.2, "sample_wareq_kib": 8.0, "sample_w_await_ms": 1.0, "sample_w_s": 25.0, "sample_aqu_sz": 1.0}
	var f *Finding
	fs := judge(t, device("sda", facts))
	for i := range fs {
		if fs[i].Rule == "device-below-datasheet" {
			f = &fs[i]
		}
	}
	if f == nil {
		t.Fatalf("no device-below-datasheet: %+v", fs)
	}
	for _, want := range []string{"reads 20.0 MB/s", "30.0 ms read await (requests of 128.0 KiB)", "its datasheet allows ~560 MB/s: 3.6 %"} {
		if !strings.Contains(f.Observed, want) {
			t.Errorf("observed %q lacks %q", f.Observed, want)
		}
	}
	if want := "3.6 % of the datasheet's sequential read; everything waiting on this device waits 30.0 ms per read"; !strings.Contains(f.Impact, want) {
		t.Errorf("impact %q lacks %q", f.Impact, want)
	}
}

// What is expected is said of the quantity observed: a window's share
// against a window's threshold, a saturation against its queue and
// latency limits (never a datasheet the rule does not read).
func TestWindowRulesExpectWhatTheyMeasure(t *testing.T) {
	fs := judge(t, pressureHost("server", "auto", map[string]any{"io_some_window_pct": 38.0, "io_full_window_pct": 21.0, "io_some_avg60": 0.12, "io_full_avg60": 0.08, "sample_seconds": 5.0}))
	for _, f := range fs {
		if f.Rule == "io-pressure-high" && f.Expected != "io some below 20 % of the window, full below 10 %" {
			t.Errorf("io-pressure-high over a window expects %q", f.Expected)
		}
	}
	fs = judge(t, device("sdb", map[string]any{"rotational": true, "sample_util_pct": 99.2, "sample_aqu_sz": 4.1, "sample_w_await_ms": 45.0, "sample_r_await_ms": 22.5,
		"sample_w_s": 91.0, "sample_r_s": 8.0, "sample_w_mbs": 11.9, "sample_r_mbs": 0.3, "sample_wareq_kib": 128.0}))
	found := false
	for _, f := range fs {
		if f.Rule == "device-saturated" {
			found = true
			if f.Expected != "under 90 % busy, or fewer than 2 requests queued and under 20 ms per request" {
				t.Errorf("device-saturated expects %q", f.Expected)
			}
		}
	}
	if !found {
		t.Errorf("no device-saturated: %+v", fs)
	}
}
