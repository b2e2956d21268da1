package checks

import (
	"testing"
)

// The policy of the disk's own port, with the file as evidence; unknown
// (nil and a skipped entry) where the recording has no scsi_host files.
func TestLinkPower(t *testing.T) {
	tests := []struct {
		root, dev   string
		host        any
		policy      any
		saving      any
		wantSkipped bool
	}{
		{"../fixtures/sata-lpm-link-resets", "sda", "host4", "min_power", true, false},
		{"../fixtures/sata-lpm-max-performance", "sda", "host4", "max_performance", false, false},
		{"../fixtures/healthy-workstation", "sdb", "host1", nil, nil, true},
	}
	for _, tt := range tests {
		t.Run(tt.root, func(t *testing.T) {
			o, env := recordedObservation(t, tt.root, linkPower, tt.dev)
			for name, want := range map[string]any{"lpm_host": tt.host, "lpm_policy": tt.policy, "lpm_saving": tt.saving} {
				if got := o.Get(name); got != want {
					t.Errorf("%s = %v, want %v", name, got, want)
				}
			}
			if tt.policy != nil {
				ev := o.EvidenceOf("lpm_policy")
				if len(ev) != 1 || ev[0].Source != "/sys/class/scsi_host/host4/link_power_management_policy" || ev[0].Value != tt.policy {
					t.Errorf("evidence %+v", ev)
				}
			}
			skipped := false
			for _, s := range env.skipped() {
				if s.Check == "link-power" && contains(s.Subjects, tt.dev) {
					skipped = true
				}
			}
			if skipped != tt.wantSkipped {
				t.Errorf("skipped %v, want %v: %+v", skipped, tt.wantSkipped, env.skipped())
			}
		})
	}
}
