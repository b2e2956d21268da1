package rules

import (
	"testing"

	"github.com/diskdoctor/diskdoctor/checks"
)

// The NVMe power rules: APST blamed only when it was allowed, ASPM only
// when APST is ruled out or before a benchmark, thermal history as a note
// or a warning and never twice with smart-temperature; unknown never fires.
func TestNVMePowerRules(t *testing.T) {
	nvme := map[string]any{"transport": "nvme", "nvme_pm_controller": "nvme0", "nvme_pm_latency_us": "100000",
		"nvme_pm_apst_allowed": true, "nvme_pm_controller_down": 0, "nvme_pm_power_hint": false, "aspm_link_states": []string{}}
	with := func(extra map[string]any) map[string]any { return merged(nvme, extra) }
	down := map[string]any{"nvme_pm_controller_down": 2, "nvme_pm_power_hint": true}
	downOff := with(map[string]any{"nvme_pm_controller_down": 2, "nvme_pm_apst_allowed": false, "nvme_pm_latency_us": "0", "aspm_link_states": []string{"l1"}})
	tests := []struct {
		name, rule string
		facts      map[string]any
		context    string
		want       string // "" for no finding
	}{
		{"down under APST", "nvme-apst-controller-down", with(down), "auto", Critical},
		{"down, APST off", "nvme-apst-controller-down", downOff, "auto", ""},
		{"down, APST unknown", "nvme-apst-controller-down", with(map[string]any{"nvme_pm_controller_down": 2, "nvme_pm_apst_allowed": nil}), "auto", ""},
		{"APST on, clean log", "nvme-apst-controller-down", with(nil), "auto", ""},
		{"log unread", "nvme-apst-controller-down", with(map[string]any{"nvme_pm_controller_down": nil}), "auto", ""},
		{"down with APST off and L1 on", "nvme-pcie-aspm", downOff, "auto", Critical},
		{"down under APST with L1 on: APST first", "nvme-pcie-aspm", with(map[string]any{"nvme_pm_controller_down": 2, "aspm_link_states": []string{"l1"}}), "auto", ""},
		{"L1 on before a benchmark", "nvme-pcie-aspm", with(map[string]any{"aspm_link_states": []string{"l1", "l1_2"}}), "benchmark", Warning},
		{"L1 on, quiet desktop", "nvme-pcie-aspm", with(map[string]any{"aspm_link_states": []string{"l1"}}), "auto", ""},
		{"link states unknown before a benchmark", "nvme-pcie-aspm", with(map[string]any{"aspm_link_states": nil}), "benchmark", ""},
		{"minutes at the critical limit", "nvme-thermal-throttling-history", with(map[string]any{"smart_nvme_warning_temp_min": uint64(22), "smart_nvme_critical_temp_min": uint64(1)}), "auto", Warning},
		{"minutes at the warning limit", "nvme-thermal-throttling-history", with(map[string]any{"smart_nvme_warning_temp_min": uint64(12), "smart_nvme_critical_temp_min": uint64(0)}), "auto", Info},
		{"never hot", "nvme-thermal-throttling-history", with(map[string]any{"smart_nvme_warning_temp_min": uint64(0), "smart_nvme_critical_temp_min": uint64(0)}), "auto", ""},
		{"hot now: smart-temperature's", "nvme-thermal-throttling-history", with(map[string]any{"smart_nvme_warning_temp_min": uint64(12), "smart_nvme_critical_temp_min": uint64(0), "smart_temp_c": 86, "smart_temp_warn_c": 85}), "auto", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			wantSeverity(t, "desktop", tt.context, device("nvme0n1", tt.facts), tt.rule, tt.want)
		})
	}
}

// wantSeverity judges one device on a host of that role and context and
// wants rule at severity want, or no finding of it when want is "".
func wantSeverity(t *testing.T, role, context string, dev *checks.Observation, rule, want string) {
	t.Helper()
	h := checks.NewObservation("test", checks.KindHost, "host")
	h.Set("role", role)
	h.Set("context", context)
	var got *Finding
	fs := judge(t, dev, h)
	for i := range fs {
		if fs[i].Rule == rule {
			got = &fs[i]
		}
	}
	switch {
	case want == "" && got != nil:
		t.Errorf("want no finding, got %s", got.Severity)
	case want != "" && got == nil:
		t.Errorf("want %s, got none (%+v)", want, fs)
	case want != "" && got.Severity != want:
		t.Errorf("severity %s, want %s", got.Severity, want)
	}
}
