package rules

import (
	"strings"
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
			wantSeverity(t, tt.role, "auto", device("sda", tt.facts), "sata-link-power-saving", tt.want)
		})
	}
}

// The title names the one reason this disk was found for (its failing
// link, a benchmark, a server), and the impact does not rule out the
// cable before the test the note describes.
func TestSATALinkPowerSavingWords(t *testing.T) {
	lpm := map[string]any{"lpm_host": "host4", "lpm_policy": "min_power", "lpm_saving": true}
	resets := merged(lpm, map[string]any{"klog_events": 3, "klog_categories": []string{"link-reset"}, "klog_summary": "3 link resets"})
	for _, c := range []struct {
		facts         map[string]any
		role, context string
		title         string
	}{
		{resets, "laptop", "auto", "for a disk whose link fails"},
		{lpm, "desktop", "benchmark", "before a benchmark"},
		{lpm, "server", "auto", "for a server's disk"},
	} {
		h := checks.NewObservation("test", checks.KindHost, "host")
		h.Set("role", c.role)
		h.Set("context", c.context)
		fs := findingsOf(judge(t, device("sda", c.facts), h), "sata-link-power-saving")
		if len(fs) != 1 || !strings.HasSuffix(fs[0].Title, c.title) || strings.Contains(fs[0].Title, " or ") {
			t.Errorf("%s/%s: %v, want a title ending %q", c.role, c.context, fs, c.title)
			continue
		}
		if strings.Contains(fs[0].Impact, "replacing cables will not stop it") && !strings.Contains(fs[0].Impact, "if power saving is the cause") {
			t.Errorf("impact %q rules out the cable", fs[0].Impact)
		}
	}
}
