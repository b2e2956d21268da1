package probes

import (
	"strings"
	"testing"
	"time"
)

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

func TestUdevGlobMatch(t *testing.T) {
	for _, tt := range []struct {
		p, s string
		want bool
	}{
		{"sd*", "sda", true}, {"sd*", "nvme0n1", false}, {"sd[a-z]", "sdb", true}, {"sd[a-z]", "sdaa", false},
		{"[sh]d[a-z]*", "hdc", true}, {"add|change", "add", true}, {"add|change", "remove", false},
		{"WD?X", "WD#X", true}, {"WD?X", "WDX", false}, {"*", "", true}, {"a*b*c", "axxbyyc", true},
		{"a*b*c", "axxbyy", false}, {`a\*`, "a*", true}, {`a\*`, "ab", false}, {"nvme[0-9]*n[0-9]*", "nvme10n1", true},
		{"1", "1", true}, {"0", "1", false},
	} {
		if got := udevGlobMatch(tt.p, tt.s); got != tt.want {
			t.Errorf("udevGlobMatch(%q, %q) = %v, want %v", tt.p, tt.s, got, tt.want)
		}
	}
}

// A hostile pattern in a recorded rules file cannot make matching slow.
func TestUdevGlobMatchBounded(t *testing.T) {
	p := strings.Repeat("*a", 200) + "b"
	s := strings.Repeat("a", 5000)
	done := make(chan bool, 1)
	go func() { done <- globMatch(p, s) }()
	select {
	case got := <-done:
		if got {
			t.Error("matched")
		}
	case <-time.After(5 * time.Second):
		t.Fatal("glob matching is super-linear")
	}
}

func FuzzUdevGlobMatch(f *testing.F) {
	f.Add("sd*", "sda")
	f.Add("[a-", "a")
	f.Add(`\`, `\`)
	f.Fuzz(func(t *testing.T, p, s string) {
		if len(p) > 256 || len(s) > 256 {
			return
		}
		_ = udevGlobMatch(p, s)
	})
}

// A parallel ATA disk (pata_* driver) is its own transport, so its class
// default is not a 3.5in SATA hard disk (issue #10 item 10).
func TestTransportPATA(t *testing.T) {
	d := &BlockDevice{Name: "sda", SysPath: "/sys/devices/pci0000:00/0000:00:14.1/ata1/host0/target0:0:0/0:0:0:0/block/sda", Drivers: []string{"sd", "pata_atiixp"}}
	if got := transport(d); got != "pata" {
		t.Errorf("transport = %s, want pata", got)
	}
}
