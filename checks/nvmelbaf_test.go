package checks

import "testing"

// The nvme-lbaf facts of the recorded KIOXIA EXCERIA PRO.
func TestNVMeLBAFFixture(t *testing.T) {
	o, _ := recordedObservation(t, "../fixtures/nvme-lbaf-512-kioxia-exceria-pro", "nvme0n1", nvmeLBAF)
	for name, want := range map[string]any{
		"nvme_lbaf_suboptimal": true, "nvme_lbaf_best_index": 1, "nvme_lbaf_rp": 2,
		"nvme_lbaf_in_use": "512 B blocks (lbaf 0, relative performance 2: good)",
		"nvme_lbaf_best":   "4096 B blocks (lbaf 1, relative performance 1: better)",
	} {
		if got := o.Get(name); got != want {
			t.Errorf("%s = %#v, want %#v", name, got, want)
		}
	}
}
