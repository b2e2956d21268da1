package checks

import (
	"testing"

	"github.com/diskdoctor/diskdoctor/probes/block"
	"github.com/diskdoctor/diskdoctor/probes/mount"
)

// aelve/codesearch issue 195's df -i (2019-01-15): the root at 54 %, a
// snap's squashfs at 100 % (read-only, an image full by construction), a
// btrfs and a vfat without an inode count; psf-chef issue 43's root at
// 100 %. Only writable disk filesystems with a count are observed.
func TestInodeObservations(t *testing.T) {
	vda := &block.Device{Name: "vda", DevNo: "252:0", Partitions: []block.Partition{
		{Name: "vda1", DevNo: "252:1"}, {Name: "vda2", DevNo: "252:2"}, {Name: "vda3", DevNo: "252:3"}, {Name: "vda15", DevNo: "252:15"}}}
	m := block.NewMap([]*block.Device{vda})
	rw := map[string]string{"rw": ""}
	mounts := []mount.Mount{
		{DevNo: "252:1", MountPoint: "/", FSType: "ext4", Source: "/dev/vda1", Options: rw},
		{DevNo: "7:0", MountPoint: "/snap/core/6034", FSType: "squashfs", Source: "/dev/loop0", Options: map[string]string{"ro": ""}},
		{DevNo: "252:15", MountPoint: "/boot/efi", FSType: "vfat", Source: "/dev/vda15", Options: rw},
		{DevNo: "0:33", MountPoint: "/data", FSType: "btrfs", Source: "/dev/vda2", Options: rw},
		{DevNo: "252:3", MountPoint: "/srv", FSType: "ext4", Source: "/dev/vda3", Options: rw},
	}
	rows, err := mount.ParseDFInodes([]byte(`Filesystem     Type        Inodes   IUsed   IFree IUse% Mounted on
/dev/vda1      ext4      10321920 5496101 4825819   54% /
/dev/loop0     squashfs     12810   12810       0  100% /snap/core/6034
/dev/vda15     vfat             0       0       0     - /boot/efi
/dev/vda2      btrfs            0       0       0     - /data
/dev/vda3      ext4        588672  588672       0  100% /srv
`))
	if err != nil {
		t.Fatal(err)
	}
	obs := inodeObservations(judgedMounts(mounts, m), rows)
	if len(obs) != 2 {
		t.Fatalf("%d observations, want / and /srv", len(obs))
	}
	root, srv := obs[0], obs[1]
	if root.Subject != "/" || root.Kind != KindFilesystem || root.Get("inode_use_percent") != 53.2 || root.Get("inode_device") != "vda1" {
		t.Errorf("/: %s %v %v", root.Subject, root.Get("inode_use_percent"), root.Get("inode_device"))
	}
	if srv.Subject != "/srv" || srv.Get("inode_use_percent") != 100.0 || srv.Get("inode_free") != uint64(0) {
		t.Errorf("/srv: %s %v %v", srv.Subject, srv.Get("inode_use_percent"), srv.Get("inode_free"))
	}
	if ev := srv.EvidenceOf("inode_use_percent"); len(ev) != 1 || ev[0].Source != "df -P -T -i -l" || ev[0].Value != "/dev/vda3      ext4        588672  588672       0  100% /srv" {
		t.Errorf("evidence %+v", ev)
	}
	// A df without the filesystem: nothing observed, not 0 %.
	if obs := inodeObservations(judgedMounts(mounts, m), nil); len(obs) != 0 {
		t.Errorf("observed without df: %d", len(obs))
	}
}
