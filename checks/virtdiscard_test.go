package checks

import (
	"strings"
	"testing"
)

// Each hypervisor's discard advice names its own setting and no other's;
// a cloud's volumes get none.
func TestDiscardSettings(t *testing.T) {
	own := map[string]string{
		hvQEMUKVM: "discard=unmap", hvProxmox: "Discard checkbox", hvVMware: "VMFS6",
		hvHyperV: "dynamically expanding VHDX", hvFirecracker: "no discard option", hvVirtualBox: "--discard on",
	}
	for hv, want := range own {
		got := discardSettings[hv]
		if !strings.Contains(got, want) {
			t.Errorf("%s: %q lacks %q", hv, got, want)
		}
		for other, theirs := range own {
			if other != hv && strings.Contains(got, theirs) && !(hv == hvProxmox && theirs == "discard=unmap") {
				t.Errorf("%s names %s's %q", hv, other, theirs)
			}
		}
	}
	for _, cloud := range []string{"Amazon EBS", "Google Persistent Disk", "Azure managed disk (NVMe)", hvXen, hvCloudHypervisor} {
		if s, ok := discardSettings[cloud]; ok {
			t.Errorf("%s has a discard setting %q", cloud, s)
		}
	}
}
