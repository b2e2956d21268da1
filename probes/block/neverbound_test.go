package block

import "testing"

func TestIsNeverBound(t *testing.T) {
	for name, want := range map[string]bool{
		"ata1": true, "host0": true, "target0:0:0": true, "pci0000:00": true, "nvme0": true, "nvme-subsystem": true,
		"block": true, "link1.2": true, "port-0:1": true, "end_device-0:1:2": true, "rport-0:0-1": true, "session1": true,
		"": false, "0000:00:17.0": false, "0:0:0:0": false, "nvme0n1": false, "sda": false, "virtio2": false,
		"usb1": false, "pci0000:00x": false, "1-1": false,
	} {
		if got := isNeverBound(name); got != want {
			t.Errorf("isNeverBound(%q) = %v, want %v", name, got, want)
		}
	}
}
