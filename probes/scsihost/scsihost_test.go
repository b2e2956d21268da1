package scsihost

import "testing"

func TestHostOf(t *testing.T) {
	tests := map[string]string{
		"/sys/devices/pci0000:00/0000:00:17.0/ata5/host4/target4:0:0/4:0:0:0/block/sda":             "host4",
		"/sys/devices/pci0000:00/0000:00:1f.2/ata1/host0/target0:0:0/0:0:0:0/block/sdb":             "host0",
		"/sys/devices/pci0000:00/0000:00:17.0/ata12/host11/target11:0:0/11:0:0:0/block/sdk":         "host11",
		"/sys/devices/pci0000:00/0000:00:1d.0/0000:03:00.0/nvme/nvme0/nvme0n1":                      "",
		"/sys/devices/pci0000:00/0000:00:17.0/ata3/host2/target2:0:0/2:0:0:0/block/sdc/sdc1":        "host2",
		"/sys/devices/pci0000:00/0000:00:14.0/usb2/2-1/2-1:1.0/host6/target6:0:0/6:0:0:0/block/sde": "host6",
		"":                                   "",
		"/sys/devices/virtual/block/hostile": "",
	}
	for in, want := range tests {
		if got := HostOf(in); got != want {
			t.Errorf("HostOf(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestSaving(t *testing.T) {
	tests := []struct {
		policy     string
		saving, ok bool
	}{
		{"max_performance", false, true},
		{"keep_firmware_settings", false, true},
		{"medium_power", true, true},
		{"med_power_with_dipm", true, true},
		{"min_power_with_partial", true, true},
		{"min_power", true, true},
		{"", false, false},
		{"Max_Performance", false, false},
		{"[max_performance]", false, false},
	}
	for _, tt := range tests {
		s, ok := Saving(tt.policy)
		if s != tt.saving || ok != tt.ok {
			t.Errorf("Saving(%q) = %v, %v; want %v, %v", tt.policy, s, ok, tt.saving, tt.ok)
		}
	}
}
