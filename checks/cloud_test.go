package checks

import (
	"slices"
	"testing"

	"github.com/diskdoctor/diskdoctor/probes/block"
	"github.com/diskdoctor/diskdoctor/probes/mount"
	"github.com/diskdoctor/diskdoctor/probes/udev"
)

// A cloud's disk by its model or the links its udev rules make: the
// Azure links of WALinuxAgent's 66-azure-storage.rules and azure-vm-utils,
// Google's google-local-nvme-ssd-N, the models of AWS and GCP.
func TestCloudDiskKind(t *testing.T) {
	rec := func(s string) *udev.Record { return udev.Parse([]byte(s)) }
	for _, tt := range []struct {
		d        block.Device
		provider string
		want     string
	}{
		{block.Device{Name: "sdb", Vendor: "Msft", Model: "Virtual Disk", Hypervisor: "Hyper-V", Udev: rec("S:disk/azure/resource\nS:disk/by-id/scsi-360022480abc\n")}, "Azure", diskAzureTemp},
		{block.Device{Name: "sdc", Vendor: "Msft", Model: "Virtual Disk", Hypervisor: "Hyper-V", Udev: rec("S:disk/azure/scsi1/lun0\n")}, "Azure", diskAzureManaged},
		{block.Device{Name: "sda", Vendor: "Msft", Model: "Virtual Disk", Hypervisor: "Hyper-V"}, "Azure", diskAzure},
		{block.Device{Name: "sda", Vendor: "Msft", Model: "Virtual Disk", Hypervisor: "Hyper-V"}, "", ""},
		{block.Device{Name: "nvme1n1", Model: "nvme_card", Hypervisor: "Google local SSD", ByID: []string{"/dev/disk/by-id/google-local-nvme-ssd-0"}}, "GCP", diskGCPLocal},
		{block.Device{Name: "nvme0n1", Model: "nvme_card-pd", Hypervisor: "Google Persistent Disk"}, "GCP", diskGCPPD},
		{block.Device{Name: "nvme0n1", Model: "Amazon Elastic Block Store", Hypervisor: "Amazon EBS", Serial: "vol0f53eccc69bc1e40e"}, "AWS", diskEBS},
		{block.Device{Name: "nvme1n1", Model: "Amazon EC2 NVMe Instance Storage", Hypervisor: "Amazon EC2 instance store"}, "AWS", diskInstanceStore},
		{block.Device{Name: "nvme0n1", Model: "Samsung SSD 980 PRO 1TB"}, "", ""},
	} {
		if got, ev := cloudDiskKind(&tt.d, tt.provider); got != tt.want || (got != "" && len(ev) == 0) {
			t.Errorf("%s %q %v: %q (%v), want %q", tt.d.Name, tt.d.Model, tt.provider, got, ev, tt.want)
		}
	}
	ebs := &block.Device{Name: "nvme0n1", Serial: "vol0f53eccc69bc1e40e"}
	if got := ebsVolumeID(ebs, diskEBS); got != "vol-0f53eccc69bc1e40e" {
		t.Errorf("volume ID %q", got)
	}
	if got := ebsVolumeID(&block.Device{Serial: "vol$(id)"}, diskEBS); got != "" {
		t.Errorf("hostile serial gave %q", got)
	}
}

// What an ephemeral disk holds: members and filesystems outside /mnt
// count, a filesystem at the scratch mount does not.
func TestEphemeralHolds(t *testing.T) {
	byDevNo := map[string][]mount.Mount{
		"259:1": {{DevNo: "259:1", MountPoint: "/mnt", FSType: "ext4", Source: "/dev/nvme1n1"}},
		"259:3": {{DevNo: "259:3", MountPoint: "/var/lib/data", FSType: "xfs", Source: "/dev/nvme2n1p1"}},
	}
	scratch := &block.Device{Name: "nvme1n1", DevNo: "259:1"}
	if got, _ := ephemeralHolds(scratch, byDevNo); len(got) != 0 {
		t.Errorf("scratch mount: %v", got)
	}
	data := &block.Device{Name: "nvme2n1", DevNo: "259:2", Partitions: []block.Partition{{Name: "nvme2n1p1", DevNo: "259:3", FSType: "xfs"}}}
	if got, ev := ephemeralHolds(data, byDevNo); !slices.Equal(got, []string{"nvme2n1p1: xfs mounted at /var/lib/data"}) || len(ev) != 1 {
		t.Errorf("data mount: %v %v", got, ev)
	}
	member := &block.Device{Name: "nvme3n1", DevNo: "259:4", Holders: []string{"md127"}, Udev: udev.Parse([]byte("E:ID_FS_TYPE=linux_raid_member\n"))}
	if got, _ := ephemeralHolds(member, byDevNo); !slices.Equal(got, []string{"nvme3n1: md array member", "nvme3n1: held by md127"}) {
		t.Errorf("md member: %v", got)
	}
}

// A GCP Persistent Disk's device name comes from its google-<name> link;
// a local SSD's link, a partition's and a hostile name give none.
func TestGCPDiskName(t *testing.T) {
	for _, tt := range []struct {
		links []string
		want  string
	}{
		{[]string{"/dev/disk/by-id/scsi-0Google_PersistentDisk_persistent-disk-0", "/dev/disk/by-id/google-persistent-disk-0"}, "persistent-disk-0"},
		{[]string{"/dev/disk/by-id/google-data-part1"}, ""},
		{[]string{"/dev/disk/by-id/google-local-ssd-0"}, ""},
		{[]string{"/dev/disk/by-id/google-$(id)"}, ""},
	} {
		d := &block.Device{Name: "sdb", ByID: tt.links}
		if got, _ := gcpDiskName(d, diskGCPPD); got != tt.want {
			t.Errorf("%v: %q, want %q", tt.links, got, tt.want)
		}
	}
	if got, _ := gcpDiskName(&block.Device{ByID: []string{"/dev/disk/by-id/google-data"}}, diskEBS); got != "" {
		t.Errorf("an EBS volume got %q", got)
	}
}
