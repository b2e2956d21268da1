package rules

import (
	"testing"

	"github.com/diskdoctor/diskdoctor/checks"
)

// nvme-lba-format-suboptimal on facts as the nvme-lbaf check sets them,
// and the destructive reformat offered only for an empty namespace.
func TestLBAFRule(t *testing.T) {
	base := map[string]any{"transport": "nvme", "nvme_lbaf_in_use": "512 B blocks (lbaf 0, relative performance 2: good)",
		"nvme_lbaf_best": "4096 B blocks (lbaf 1, relative performance 1: better)", "nvme_lbaf_best_index": 1, "nvme_lbaf_rp": 2}
	for _, tt := range []struct {
		name  string
		facts map[string]any
		want  string
	}{
		{"512 in use, 4 KiB better", map[string]any{"nvme_lbaf_suboptimal": true}, Info},
		{"4 KiB as good as 512", map[string]any{"nvme_lbaf_suboptimal": false}, ""},
		{"formats unknown", map[string]any{"nvme_lbaf_suboptimal": nil}, ""},
	} {
		t.Run(tt.name, func(t *testing.T) {
			wantSeverity(t, "desktop", "auto", device("nvme0n1", merged(base, tt.facts)), "nvme-lba-format-suboptimal", tt.want)
		})
	}
	h := checks.NewObservation("test", checks.KindHost, "host")
	h.Set("role", "desktop")
	h.Set("context", "auto")
	for _, inUse := range []bool{true, false} {
		fs := judge(t, device("nvme0n1", merged(base, map[string]any{"nvme_lbaf_suboptimal": true, "in_use": inUse})), h)
		offered := false
		for _, f := range fs {
			for _, r := range f.Remediation {
				if r.Risk == RiskDestructive {
					offered = true
				}
			}
		}
		if offered == inUse {
			t.Errorf("in_use %v: destructive reformat offered %v", inUse, offered)
		}
	}
}
