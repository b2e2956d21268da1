package checks

import (
	"testing"

	"github.com/diskdoctor/diskdoctor/probes/block"
	"github.com/diskdoctor/diskdoctor/probes/mount"
)

// The machine of uutils/coreutils issue 3251 (an NVMe SSD, /boot on
// nvme0n1p2, / on LVM in dm-crypt on nvme0n1p3), its df lines, and the
// same machine with / nearly full, nobarrier and discard.
func TestFilesystemFacts(t *testing.T) {
	ssd := false
	nvme := &block.Device{Name: "nvme0n1", DevNo: "259:0", SizeBytes: u64p(256060514304), Rotational: &ssd,
		Partitions: []block.Partition{{Name: "nvme0n1p2", DevNo: "259:2"}, {Name: "nvme0n1p3", DevNo: "259:3", Holders: []string{"dm-0"}}}}
	crypt := &block.Device{Name: "dm-0", DevNo: "253:0", Holders: []string{"dm-1"}, Virtual: true}
	root := &block.Device{Name: "dm-1", DevNo: "253:1", Virtual: true}
	m := block.NewMap([]*block.Device{nvme, crypt, root})
	mounts := []mount.Mount{
		{DevNo: "0:22", MountPoint: "/run", FSType: "tmpfs", Source: "tmpfs", Options: map[string]string{"rw": ""}},
		{DevNo: "253:1", MountPoint: "/", FSType: "ext4", Source: "/dev/mapper/vgubuntu-root", Options: map[string]string{"rw": "", "errors": "remount-ro"}},
		{DevNo: "259:2", MountPoint: "/boot", FSType: "ext4", Source: "/dev/nvme0n1p2", Options: map[string]string{"rw": ""}},
		{DevNo: "7:1", MountPoint: "/snap/core/1", FSType: "squashfs", Source: "/dev/loop1", Options: map[string]string{"ro": ""}},
	}
	fss := judgedMounts(mounts, m)
	if len(fss) != 2 || fss[0].dev != "dm-1" || len(fss[0].disks) != 1 || fss[0].disks[0] != "nvme0n1" {
		t.Fatalf("judged %+v", fss)
	}
	healthy := map[string]mount.Space{
		"/":     {Source: "/dev/mapper/vgubuntu-root", FSType: "ext4", MountPoint: "/", SizeBytes: 242791844 << 10, UsedBytes: 99671492 << 10, AvailBytes: 130717460 << 10, Line: "/dev/mapper/vgubuntu-root ext4 242791844 99671492 130717460 44% /"},
		"/boot": {Source: "/dev/nvme0n1p2", FSType: "ext4", MountPoint: "/boot", SizeBytes: 721392 << 10, UsedBytes: 364852 << 10, AvailBytes: 304076 << 10, Line: "/dev/nvme0n1p2 ext4 721392 364852 304076 55% /boot"},
	}
	o := NewObservation("filesystems", KindDevice, "nvme0n1")
	setFSSpace(o, nvme, fss, healthy, true)
	setFSOptions(o, fss, true)
	if p := o.Get("fs_use_percent_max"); p != 54.5 { // /boot: 364852 / (364852 + 304076)
		t.Errorf("max %v", p)
	}
	if o.Get("fs_fullest_mount") != "/boot" || len(o.EvidenceOf("fs_space")) != 2 {
		t.Errorf("fullest %v, evidence %v", o.Get("fs_fullest_mount"), o.EvidenceOf("fs_space"))
	}
	if p, _ := o.Get("fs_ssd_used_percent").(float64); p < 39 || p > 40 {
		t.Errorf("ssd share %v", p)
	}
	if n, _ := o.Get("fs_nobarrier").([]string); len(n) != 0 {
		t.Errorf("nobarrier %v", n)
	}

	// Unknown df: nil, never empty.
	o = NewObservation("filesystems", KindDevice, "nvme0n1")
	setFSSpace(o, nvme, fss, nil, false)
	setFSOptions(o, fss, false)
	for _, f := range []string{"fs_space", "fs_use_percent_max", "fs_ssd_used_percent", "fs_nobarrier", "fs_online_discard"} {
		if o.Get(f) != nil {
			t.Errorf("%s = %v with df and mountinfo unknown", f, o.Get(f))
		}
	}

	// Unknown mount table: the disk's filesystems are unknown, not none.
	o = NewObservation("filesystems", KindDevice, "nvme0n1")
	setFSSpace(o, nvme, nil, nil, false)
	if o.Get("fs_space") != nil || o.Get("fs_use_percent_max") != nil {
		t.Errorf("fs_space %v with the mount table unread", o.Get("fs_space"))
	}

	full := map[string]mount.Space{"/": {MountPoint: "/", SizeBytes: 100 << 30, UsedBytes: 95 << 30, AvailBytes: 1 << 30, Line: "x"}}
	mounts[1].Options = map[string]string{"rw": "", "nobarrier": "", "discard": ""}
	mounts[2].Options = map[string]string{"rw": "", "barrier": "0"}
	fss = judgedMounts(mounts, m)
	o = NewObservation("filesystems", KindDevice, "nvme0n1")
	setFSSpace(o, nvme, fss, full, true)
	setFSOptions(o, fss, true)
	if p, _ := o.Get("fs_use_percent_max").(float64); p < 98 {
		t.Errorf("full %v", o.Get("fs_use_percent_max"))
	}
	if n, _ := o.Get("fs_nobarrier").([]string); len(n) != 2 || n[0] != "/" || n[1] != "/boot" {
		t.Errorf("nobarrier %v", n)
	}
	if d, _ := o.Get("fs_online_discard").([]string); len(d) != 1 || d[0] != "/" {
		t.Errorf("discard %v", d)
	}
	// btrfs's discard=async is not the synchronous kind.
	mounts[1].Options = map[string]string{"rw": "", "discard": "async"}
	setFSOptions(o, judgedMounts(mounts, m), true)
	if d, _ := o.Get("fs_online_discard").([]string); len(d) != 0 {
		t.Errorf("discard=async counted: %v", d)
	}
}

func TestZvolName(t *testing.T) {
	for p, want := range map[string]bool{"/dev/zd0": true, "/dev/zd16p1": true, "/dev/zvol/rpool/swap": true, "/dev/sda2": false, "/dev/zd": false, "/dev/zdx": false, "/swapfile": false} {
		if zvolName(p) != want {
			t.Errorf("%s: %v", p, !want)
		}
	}
}
