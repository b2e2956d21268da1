package probes

import "testing"

// The identities below are what real guests report (vendor and model from
// SCSI INQUIRY or NVMe Identify, the driver bound above the disk).
func TestHypervisorOf(t *testing.T) {
	for _, tt := range []struct {
		d    BlockDevice
		want string
	}{
		{BlockDevice{Name: "sda", Vendor: "VMware", Model: "Virtual disk", Drivers: []string{"sd", "vmw_pvscsi"}}, "VMware"},
		{BlockDevice{Name: "sda", Vendor: "VMware,", Model: "VMware Virtual S", Drivers: []string{"sd", "mptspi"}}, "VMware"},
		{BlockDevice{Name: "sda", Vendor: "Msft", Model: "Virtual Disk", Drivers: []string{"sd", "hv_storvsc"}}, "Hyper-V"},
		{BlockDevice{Name: "sda", Vendor: "ATA", Model: "QEMU HARDDISK", Drivers: []string{"sd", "ahci"}}, "QEMU"},
		{BlockDevice{Name: "vda", SysPath: "/sys/devices/pci0000:00/0000:00:04.0/virtio1/block/vda", Drivers: []string{"virtio_blk"}}, "virtio (KVM/QEMU)"},
		{BlockDevice{Name: "xvda", SysPath: "/sys/devices/vbd-51712/block/xvda"}, "Xen"},
		{BlockDevice{Name: "sda", Vendor: "ATA", Model: "VBOX HARDDISK", Drivers: []string{"sd", "ahci"}}, "VirtualBox"},
		{BlockDevice{Name: "nvme0n1", Model: "Amazon Elastic Block Store", Drivers: []string{"nvme"}}, "Amazon EBS"},
		{BlockDevice{Name: "sda", Vendor: "Google", Model: "PersistentDisk", Drivers: []string{"sd", "virtio_scsi"}}, "virtio (KVM/QEMU)"},
		{BlockDevice{Name: "nvme0n1", Model: "nvme_card-pd", Drivers: []string{"nvme"}}, "Google Persistent Disk"},
		{BlockDevice{Name: "sda", Vendor: "ATA", Model: "WDC WDS200T1R0A-68A4W0", Drivers: []string{"sd", "ahci"}}, ""},
		{BlockDevice{Name: "nvme0n1", Model: "Samsung SSD 980 PRO 1TB", Drivers: []string{"nvme"}}, ""},
	} {
		if got, why := hypervisorOf(&tt.d); got != tt.want || (got != "" && why == "") {
			t.Errorf("%s %q %q %v: %q (%s), want %q", tt.d.Name, tt.d.Vendor, tt.d.Model, tt.d.Drivers, got, why, tt.want)
		}
	}
}

func TestValidDeviceName(t *testing.T) {
	for _, n := range []string{"sda", "nvme0n1", "nvme0c0n1", "md127", "dm-0", "cciss!c0d0", "mmcblk0", "xvda", "loop7", "zram0"} {
		if !ValidDeviceName(n) {
			t.Errorf("%s refused", n)
		}
	}
	for _, n := range []string{"sd;rm", "ata-X$(touch${IFS}/tmp/PWNED)", "a'b", "a\nb", "`id`", "a b", "", "-rf", "x/y", "..", "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"} {
		if ValidDeviceName(n) {
			t.Errorf("%q accepted", n)
		}
	}
}

func TestParseNVMeGetFeatureVWC(t *testing.T) {
	on, err := ParseNVMeGetFeatureVWC(CmdResult{Argv: []string{"nvme"}, Stdout: []byte("get-feature:0x06 (Volatile Write Cache), Current value:0x00000001\n")})
	if err != nil || !*on.Enabled || !*on.Supported {
		t.Errorf("on: %+v %v", on, err)
	}
	off, err := ParseNVMeGetFeatureVWC(CmdResult{Argv: []string{"nvme"}, Stdout: []byte("get-feature:0x6 (Volatile Write Cache), Current value:0x000000\n")})
	if err != nil || *off.Enabled || !*off.Supported {
		t.Errorf("off: %+v %v", off, err)
	}
	none, err := ParseNVMeGetFeatureVWC(CmdResult{Argv: []string{"nvme"}, Exit: 2, Stderr: []byte("NVMe status: INVALID_FIELD: A reserved coded value or an unsupported value in a defined field(0x2)\n")})
	if err != nil || *none.Supported {
		t.Errorf("absent: %+v %v", none, err)
	}
	if _, err := ParseNVMeGetFeatureVWC(CmdResult{Argv: []string{"nvme"}, Exit: 1, Stderr: []byte("open: Permission denied")}); err == nil {
		t.Error("an error output must not parse")
	}
}
