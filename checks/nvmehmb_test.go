package checks

import "testing"

// The nvme-hmb facts of the recorded NV54: nvme1 failed to get its
// buffer, nvme0 logged none.
func TestNVMeHMBFixture(t *testing.T) {
	root := "../fixtures/nvme-hmb-failed-nv54"
	if o, _ := recordedObservation(t, root, "nvme1n1", nvmeHMB); o.Get("hmb_state") != "failed" || o.Get("hmb_mib") != nil {
		t.Errorf("nvme1n1 %v %v", o.Get("hmb_state"), o.Get("hmb_mib"))
	}
	if o, _ := recordedObservation(t, root, "nvme0n1", nvmeHMB); o.Get("hmb_state") != nil {
		t.Errorf("nvme0n1 %v", o.Get("hmb_state"))
	}
	if hmbParam("quiet nvme.max_host_mem_size_mb=32 root=/dev/nvme0n1p2") != "nvme.max_host_mem_size_mb=32" {
		t.Error("cmdline parameter")
	}
}
