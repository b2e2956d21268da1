package block

import (
	"testing"
)

// The identities below are what real guests report (vendor and model from
// SCSI INQUIRY or NVMe Identify, the driver bound above the disk).
func TestHypervisorOf(t *testing.T) {
	for _, tt := range []struct {
		d    Device
		want string
	}{
		{Device{Name: "sda", Vendor: "VMware", Model: "Virtual disk", Drivers: []string{"sd", "vmw_pvscsi"}}, "VMware"},
		{Device{Name: "sda", Vendor: "VMware,", Model: "VMware Virtual S", Drivers: []string{"sd", "mptspi"}}, "VMware"},
		{Device{Name: "sda", Vendor: "Msft", Model: "Virtual Disk", Drivers: []string{"sd", "hv_storvsc"}}, "Hyper-V"},
		{Device{Name: "sda", Vendor: "ATA", Model: "QEMU HARDDISK", Drivers: []string{"sd", "ahci"}}, "QEMU"},
		{Device{Name: "vda", SysPath: "/sys/devices/pci0000:00/0000:00:04.0/virtio1/block/vda", Drivers: []string{"virtio_blk"}}, "virtio"},
		{Device{Name: "xvda", SysPath: "/sys/devices/vbd-51712/block/xvda"}, "Xen"},
		{Device{Name: "sda", Vendor: "ATA", Model: "VBOX HARDDISK", Drivers: []string{"sd", "ahci"}}, "VirtualBox"},
		{Device{Name: "nvme0n1", Model: "Amazon Elastic Block Store", Drivers: []string{"nvme"}}, "Amazon EBS"},
		{Device{Name: "sda", Vendor: "Google", Model: "PersistentDisk", Drivers: []string{"sd", "virtio_scsi"}}, "Google Persistent Disk"},
		{Device{Name: "sdb", Vendor: "Google", Model: "EphemeralDisk", Drivers: []string{"sd", "virtio_scsi"}}, "Google local SSD"},
		{Device{Name: "nvme1n1", Model: "Amazon EC2 NVMe Instance Storage", Drivers: []string{"nvme"}}, "Amazon EC2 instance store"},
		{Device{Name: "nvme0n1", Model: "nvme_card-pd", Drivers: []string{"nvme"}}, "Google Persistent Disk"},
		{Device{Name: "sda", Vendor: "ATA", Model: "WDC WDS200T1R0A-68A4W0", Drivers: []string{"sd", "ahci"}}, ""},
		{Device{Name: "nvme0n1", Model: "Samsung SSD 980 PRO 1TB", Drivers: []string{"nvme"}}, ""},
	} {
		if got, why := hypervisorOf(&tt.d); got != tt.want || (got != "" && why == "") {
			t.Errorf("%s %q %q %v: %q (%s), want %q", tt.d.Name, tt.d.Vendor, tt.d.Model, tt.d.Drivers, got, why, tt.want)
		}
	}
}

func TestValidDeviceName(t *testing.T) {
	for _, n := range []string{"sda", "nvme0n1", "nvme0c0n1", "md127", "dm-0", "cciss!c0d0", "mmcblk0", "xvda", "loop7", "zram0"} {
		if !ValidName(n) {
			t.Errorf("%s refused", n)
		}
	}
	for _, n := range []string{"sd;rm", "ata-X$(touch${IFS}/tmp/PWNED)", "a'b", "a\nb", "`id`", "a b", "", "-rf", "x/y", "..", "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"} {
		if ValidName(n) {
			t.Errorf("%q accepted", n)
		}
	}
}

// A parallel ATA disk (pata_* driver) is its own transport, so its class
// default is not a 3.5in SATA hard disk (issue #10 item 10).
func TestTransportPATA(t *testing.T) {
	d := &Device{Name: "sda", SysPath: "/sys/devices/pci0000:00/0000:00:14.1/ata1/host0/target0:0:0/0:0:0:0/block/sda", Drivers: []string{"sd", "pata_atiixp"}}
	if got := transport(d); got != "pata" {
		t.Errorf("transport = %s, want pata", got)
	}
}

// iSCSI and Fibre Channel LUNs are told from their transport's node on the
// path (session, rport), SAS disks from the SAS transport's node or the
// HBA's driver; none is "scsi" any more, and a RAID controller's disk stays
// "raid".
func TestTransportSCSIKinds(t *testing.T) {
	for _, c := range []struct {
		d    *Device
		want string
	}{
		{&Device{Name: "sdb", SysPath: "/sys/devices/platform/host7/session3/target7:0:0/7:0:0:0/block/sdb", Drivers: []string{"sd"}}, "iscsi"},
		{&Device{Name: "sdc", SysPath: "/sys/devices/pci0000:00/0000:00:03.0/0000:05:00.0/host2/rport-2:0-0/target2:0:0/2:0:0:1/block/sdc", Drivers: []string{"sd", "qla2xxx"}}, "fc"},
		{&Device{Name: "sdd", SysPath: "/sys/devices/pci0000:00/0000:00:01.0/0000:02:00.0/host0/port-0:0/end_device-0:0/target0:0:0/0:0:0:0/block/sdd", Drivers: []string{"sd", "mpt3sas"}}, "sas"},
		{&Device{Name: "sde", SysPath: "/sys/devices/pci0000:00/0000:00:01.0/0000:02:00.0/host0/target0:0:4/0:0:4:0/block/sde", Drivers: []string{"sd", "mpi3mr"}}, "sas"},
		{&Device{Name: "sdf", SysPath: "/sys/devices/pci0000:00/0000:00:01.0/0000:02:00.0/host0/target0:1:0/0:1:0:0/block/sdf", Drivers: []string{"sd", "hpsa"}}, "raid"},
		{&Device{Name: "sdg", SysPath: "/sys/devices/pci0000:00/0000:00:01.0/0000:02:00.0/host0/target0:0:0/0:0:0:0/block/sdg", Drivers: []string{"sd", "vmw_pvscsi"}}, "scsi"},
	} {
		if got := transport(c.d); got != c.want {
			t.Errorf("%s: transport = %s, want %s", c.d.Name, got, c.want)
		}
	}
}
