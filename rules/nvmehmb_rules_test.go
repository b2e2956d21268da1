package rules

import "testing"

// nvme-hmb-missing on facts as the nvme-hmb check sets them.
func TestHMBRule(t *testing.T) {
	for _, tt := range []struct {
		name  string
		facts map[string]any
		want  string
	}{
		{"failed", map[string]any{"hmb_state": "failed"}, Warning},
		{"over the limit", map[string]any{"hmb_state": "over-limit", "hmb_mib": 64, "hmb_limit_mib": 32, "hmb_cmdline": "nvme.max_host_mem_size_mb=32"}, Warning},
		{"allocated", map[string]any{"hmb_state": "allocated", "hmb_mib": 64}, ""},
		{"none logged", map[string]any{"hmb_state": nil}, ""},
	} {
		t.Run(tt.name, func(t *testing.T) {
			f := merged(map[string]any{"transport": "nvme", "hmb_mib": nil, "hmb_limit_mib": nil, "hmb_cmdline": nil}, tt.facts)
			wantSeverity(t, "laptop", "auto", device("nvme1n1", f), "nvme-hmb-missing", tt.want)
		})
	}
}
