package checks_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// The one XFS filesystem mounted carries the log's allocation warnings;
// with a second XFS mount both do, each saying it is one of two (the
// message names none); the twin without the warnings, and the warnings
// without an XFS mount, give no XFS fact at all.
func TestXFSAllocStalls(t *testing.T) {
	const fs = "filesystem//var/lib/libvirt/images"
	obs, _ := observeRoot(t, filepath.Join("..", "fixtures", "xfs-alloc-deadlock-vm-images"))
	f := obs[fs]
	if f["xfs_alloc_stalls"] != 2 || f["xfs_device"] != "sdb1" || f["xfs_filesystems"] != 1 || f["xfs_alloc_stall_bytes"] != nil {
		t.Errorf("facts %v; want 2 warnings on sdb1, one XFS filesystem, no size (the 3.x form prints none)", f)
	}
	if v, ok := obs["device/sdb"]["klog_understood"]; ok && v != true {
		t.Errorf("sdb klog_understood = %v, want true: the warning names no disk", v)
	}

	twin, _ := observeRoot(t, filepath.Join("..", "fixtures", "xfs-vm-images-healthy"))
	if _, ok := twin[fs]["xfs_alloc_stalls"]; ok {
		t.Errorf("healthy twin: %v, want no XFS fact", twin[fs])
	}

	// /home (sda1) as a second XFS filesystem.
	edit := func(old, new string) map[string]map[string]any {
		root := copyFixture(t, "xfs-alloc-deadlock-vm-images")
		mi := filepath.Join(root, "proc/1/mountinfo")
		b, err := os.ReadFile(mi)
		if err != nil {
			t.Fatal(err)
		}
		writeFile(t, mi, strings.ReplaceAll(string(b), old, new))
		obs, _ := observeRoot(t, root)
		return obs
	}
	obs = edit(" - ext4 /dev/sda1 rw", " - xfs /dev/sda1 rw")
	if obs[fs]["xfs_filesystems"] != 2 || obs["filesystem//home"]["xfs_alloc_stalls"] != 2 {
		t.Errorf("two XFS mounts: %v and %v; want both with the warnings, xfs_filesystems 2", obs[fs], obs["filesystem//home"])
	}
	obs = edit(" - xfs /dev/sdb1", " - ext4 /dev/sdb1")
	if _, ok := obs[fs]["xfs_alloc_stalls"]; ok {
		t.Errorf("no XFS mounted: %v, want no XFS fact", obs[fs])
	}
}
