package checks

import (
	"testing"

	"github.com/diskdoctor/diskdoctor/probes/block"
	"github.com/diskdoctor/diskdoctor/probes/btrfs"
	"github.com/diskdoctor/diskdoctor/probes/mount"
)

// A btrfs raid1 (filesystem usage's "Data,RAID1:" line) makes each of its
// disks a member of redundancy, on the disk's existing btrfs observation
// where it has one; a single/DUP filesystem says false; a filesystem whose
// profiles were not read says nothing; an unjudged disk gets nothing.
func TestBTRFSMemberFacts(t *testing.T) {
	var devs []*block.Device
	for i, n := range []string{"sda", "sdb", "sdc", "sdd"} {
		devs = append(devs, &block.Device{Name: n, DevNo: "8:" + string(rune('0'+i*16))})
	}
	m := block.NewMap(devs)
	mnt := func(p string) []mount.Mount { return []mount.Mount{{MountPoint: p}} }
	raid1 := &btrfsFS{mounts: mnt("/srv"), devs: []string{"sda", "sdb"}, usage: &btrfs.Usage{Groups: []btrfs.Group{
		{Type: "Data", Profile: "RAID1", Line: "Data,RAID1: Size:1.00TiB, Used:900.00GiB (87.89%)"},
		{Type: "Metadata", Profile: "RAID1", Line: "Metadata,RAID1: Size:3.00GiB, Used:1.50GiB (50.00%)"},
		{Type: "System", Profile: "RAID1", Line: "System,RAID1: Size:32.00MiB, Used:160.00KiB (0.49%)"},
	}}}
	single := &btrfsFS{mounts: mnt("/data"), devs: []string{"sdc"}, sys: &btrfs.Sysfs{UUID: "u", Profiles: map[string][]string{"data": {"single"}, "metadata": {"dup"}}}}
	unread := &btrfsFS{mounts: mnt("/x"), devs: []string{"sdd"}}
	errsObs := NewObservation("btrfs", KindDevice, "sda")
	errsObs.Set("btrfs_dev_errs", uint64(0))
	obs := btrfsMemberFacts([]*Observation{errsObs}, []*btrfsFS{raid1, single, unread}, m, map[string]bool{"sda": true, "sdb": true, "sdc": true, "sdd": true})
	got := map[string]*Observation{}
	for _, o := range obs {
		got[o.Subject] = o
	}
	if len(obs) != 3 || got["sda"] != errsObs {
		t.Fatalf("%d observations, sda's own kept: %v", len(obs), got["sda"] == errsObs)
	}
	for _, d := range []string{"sda", "sdb"} {
		if got[d].Get("btrfs_member_redundant") != true || got[d].Get("btrfs_member_of") != "/srv" {
			t.Errorf("%s: %v %v", d, got[d].Get("btrfs_member_redundant"), got[d].Get("btrfs_member_of"))
		}
	}
	if ev := got["sdb"].EvidenceOf("btrfs_member_redundant"); len(ev) != 2 || ev[0].Value != "Data,RAID1: Size:1.00TiB, Used:900.00GiB (87.89%)" {
		t.Errorf("evidence %+v", ev)
	}
	if got["sdc"].Get("btrfs_member_redundant") != false {
		t.Errorf("sdc single/dup: %v", got["sdc"].Get("btrfs_member_redundant"))
	}
	if got["sdd"] != nil {
		t.Errorf("sdd, profiles unread: %+v", got["sdd"])
	}
}
