package rules

import (
	"testing"

	"github.com/diskdoctor/diskdoctor/checks"
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
			h := checks.NewObservation("test", checks.KindHost, "host")
			h.Set("role", tt.role)
			h.Set("context", "auto")
			var got *Finding
			fs := judge(t, device("sda", tt.facts), h)
			for i := range fs {
				if fs[i].Rule == "sata-link-power-saving" {
					got = &fs[i]
				}
			}
			switch {
			case tt.want == "" && got != nil:
				t.Errorf("want no finding, got %s", got.Severity)
			case tt.want != "" && got == nil:
				t.Errorf("want %s, got none (%+v)", tt.want, fs)
			case tt.want != "" && got.Severity != tt.want:
				t.Errorf("severity %s, want %s", got.Severity, tt.want)
			}
		})
	}
}
