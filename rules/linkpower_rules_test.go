package rules

import (
	"testing"
)

// sata-link-power-saving: critical with this disk's link errors, a
// warning on a server or before a benchmark, nothing on a quiet desktop,
// and never from an unknown policy.
func TestSATALinkPowerSaving(t *testing.T) {
	lpm := map[string]any{"lpm_host": "host4", "lpm_policy": "med_power_with_dipm", "lpm_saving": true}
	with := func(extra map[string]any) map[string]any { return merged(lpm, extra) }
	resets := map[string]any{"klog_events": 3, "klog_categories": []string{"link-reset", "timeout"}, "klog_summary": "3 link resets"}
	tests := []struct {
		name  string
		facts map[string]any
		role  string
		want  string // "" for no finding
	}{
		{"link resets under LPM", with(resets), "laptop", Critical},
		{"server, quiet log", with(nil), "server", Warning},
		{"laptop, quiet log", with(nil), "laptop", ""},
		{"max_performance with link resets", with(map[string]any{"lpm_policy": "max_performance", "lpm_saving": false, "klog_events": 3, "klog_categories": []string{"link-reset"}}), "server", ""},
		{"policy unknown with link resets", with(map[string]any{"lpm_policy": nil, "lpm_saving": nil, "klog_events": 3, "klog_categories": []string{"link-reset"}}), "server", ""},
		{"NVMe is not SATA", with(map[string]any{"transport": "nvme"}), "server", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			wantSeverity(t, tt.role, "auto", device("sda", tt.facts), "sata-link-power-saving", tt.want)
		})
	}
}
