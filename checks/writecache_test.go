package checks

import (
	"flag"
	"testing"

	"github.com/diskdoctor/diskdoctor/probes/system"
)

var _ = flag.Bool("update", false, "accepted so that go test ./... -update works; no golden files here")

func TestDeriveWriteCache(t *testing.T) {
	tests := []struct {
		name          string
		facts         map[string]any
		supported, on any
		bootDisabled  bool
		persistent    any
	}{
		{"hpe: off everywhere", map[string]any{"wc_persistence": []string{}, "wc_kernel_on": false, "wc_drive_enabled": false, "wc_drive_supported": true, "wc_boot_enabled": false}, true, false, true, false},
		{"hand-enabled after boot", map[string]any{"wc_persistence": []string{}, "wc_kernel_on": true, "wc_drive_enabled": true, "wc_drive_supported": true, "wc_boot_enabled": false}, true, true, true, false},
		{"kernel only, udev says supported", map[string]any{"wc_persistence": []string{}, "wc_kernel_on": false, "wc_udev_supported": true}, true, false, false, false},
		{"drive wins over kernel", map[string]any{"wc_persistence": []string{}, "wc_kernel_on": false, "wc_drive_enabled": true, "wc_drive_supported": true}, true, true, false, false},
		{"nvme without VWC", map[string]any{"wc_persistence": []string{}, "wc_kernel_on": false, "wc_nvme_vwc": false}, false, false, false, false},
		{"nothing known", map[string]any{}, nil, nil, false, nil},
		{"read, nothing covers it", map[string]any{"wc_persistence": []string{}}, nil, nil, false, false},
		{"scsi cache_type write back", map[string]any{"wc_scsi_cache_type": "write back", "wc_persistence": []string{"/etc/udev/rules.d/69-x.rules:1"}}, true, nil, false, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			o := NewObservation("write-cache", KindDevice, "sda")
			for k, v := range tt.facts {
				o.Set(k, v)
			}
			derive(o)
			if o.Get("wc_supported") != tt.supported || o.Get("wc_on") != tt.on ||
				o.Get("wc_boot_disabled") != tt.bootDisabled || o.Get("wc_persistent") != tt.persistent {
				t.Errorf("got supported=%v on=%v bootDisabled=%v persistent=%v", o.Get("wc_supported"), o.Get("wc_on"), o.Get("wc_boot_disabled"), o.Get("wc_persistent"))
			}
		})
	}
}

func TestRole(t *testing.T) {
	tests := []struct {
		vendor, product string
		chassis         int
		override, want  string
	}{
		{"HPE", "ProLiant MicroServer Gen10 Plus v2", 7, "auto", "server"},
		{"Dell Inc.", "OptiPlex 7090", 3, "auto", "desktop"},
		{"QEMU", "Standard PC (Q35 + ICH9, 2009)", 1, "auto", "vm"},
		{"LENOVO", "20XW", 10, "auto", "laptop"},
		{"Supermicro", "X11", 17, "", "server"},
		{"Dell Inc.", "OptiPlex 7090", 3, "benchmark", "benchmark"},
		{"", "", 0, "auto", "unknown"},
	}
	for _, tt := range tests {
		p := &system.Platform{Vendor: tt.vendor, Product: tt.product, ChassisType: tt.chassis}
		if got := Role(p, tt.override); got != tt.want {
			t.Errorf("Role(%s %s, %d, %s) = %s, want %s", tt.vendor, tt.product, tt.chassis, tt.override, got, tt.want)
		}
	}
}
