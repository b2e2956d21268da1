package mount

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/diskdoctor/diskdoctor/machine"
	"github.com/diskdoctor/diskdoctor/probes/block"
	"github.com/diskdoctor/diskdoctor/probes/zfs"
)

func TestDeviceMapStack(t *testing.T) {
	// sda1 and sdb1 are members of md0; dm-0 (LVM) sits on md0; sdc is bare.
	tib := uint64(1 << 40)
	devs := []*block.Device{
		{Name: "sda", DevNo: "8:0", Partitions: []block.Partition{{Name: "sda1", DevNo: "8:1", Holders: []string{"md0"}}}},
		{Name: "sdb", DevNo: "8:16", Partitions: []block.Partition{{Name: "sdb1", DevNo: "8:17", Holders: []string{"md0"}}}},
		{Name: "md0", DevNo: "9:0", Holders: []string{"dm-0"}},
		{Name: "dm-0", DevNo: "253:0"},
		{Name: "sdc", DevNo: "8:32", SizeBytes: &tib},
	}
	m := block.NewMap(devs)
	if got := m.WholeDisks("dm-0"); !slices.Equal(got, []string{"sda", "sdb"}) {
		t.Errorf("dm-0 on %v", got)
	}
	if got := m.WholeDisks("sda1"); !slices.Equal(got, []string{"sda"}) {
		t.Errorf("sda1 on %v", got)
	}
	if got := m.Stacked("sda"); !slices.Equal(got, []string{"sda", "sda1", "md0", "dm-0"}) {
		t.Errorf("stacked on sda: %v", got)
	}
	if m.Name("253:0") != "dm-0" || m.DevNoOf("sdb1") != "8:17" || m.SizeBytes("sdc") != 1<<40 {
		t.Error("lookups")
	}
	// A cycle in a hostile recording ends.
	loop := block.NewMap([]*block.Device{{Name: "a", Holders: []string{"b"}}, {Name: "b", Holders: []string{"a"}}})
	_ = loop.WholeDisks("a")
	_ = loop.Stacked("a")
}

// On a recorded machine a path is on the mount whose mount point contains
// it; live, stat and st_dev decide.
func TestMountForAndStat(t *testing.T) {
	h, err := machine.Recorded("../../fixtures/bench-vm-loop")
	if err != nil {
		t.Fatal(err)
	}
	m, ok, err := MountFor(t.Context(), h, "/mnt/ddbench/sub", "")
	if err != nil || !ok || m.MountPoint != "/mnt/ddbench" || m.FSType != "ext4" || m.DevNo != "7:0" {
		t.Errorf("mount %+v %v %v", m, ok, err)
	}
	pi, err := StatPath(t.Context(), h, "/dev/loop0")
	if err != nil || pi.Kind != "block" || pi.RDev != "7:0" {
		t.Errorf("recorded /dev/loop0: %+v %v", pi, err)
	}

	dir := t.TempDir()
	live := machine.Live()
	pi, err = StatPath(t.Context(), live, dir)
	if err != nil || pi.Kind != "dir" || pi.DevNo == "" || pi.Size == 0 {
		t.Fatalf("live %s: %+v %v", dir, pi, err)
	}
	if !rootMounted(t, live) {
		t.Skipf("/ is not in /proc/self/mountinfo: a root that is not a mount point (chroot, container) hides the mount of %s", dir)
	}
	m, ok, err = MountFor(t.Context(), live, pi.Path, pi.DevNo)
	if err != nil || !ok || m.DevNo != pi.DevNo || !(m.MountPoint == "/" || strings.HasPrefix(pi.Path, m.MountPoint)) {
		t.Errorf("live mount of %s: %+v %v %v", dir, m, ok, err)
	}
	f := filepath.Join(dir, "f")
	if err := os.WriteFile(f, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	if pi, _ := StatPath(t.Context(), live, f); pi.Kind != "file" {
		t.Errorf("a regular file is %q", pi.Kind)
	}
}

// rootMounted: the live mount table has a mount at /. The kernel lists no
// mount the process's root does not reach (show_mountinfo in
// fs/proc_namespace.c): in a chroot, or a container whose root is a
// directory, / is not there, nor the filesystem holding it.
func rootMounted(t *testing.T, h *machine.Host) bool {
	t.Helper()
	ms, err := Read(t.Context(), h)
	if err != nil {
		t.Fatal(err)
	}
	for _, m := range ms {
		if m.MountPoint == "/" {
			return true
		}
	}
	return false
}

func TestARCMax(t *testing.T) {
	root := t.TempDir()
	for _, d := range []string{"sys", "proc/spl/kstat/zfs"} {
		if err := os.MkdirAll(filepath.Join(root, d), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	h, err := machine.Recorded(root)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := zfs.ARCMax(t.Context(), h); err == nil {
		t.Error("no arcstats, no error")
	}
	p := filepath.Join(root, "proc/spl/kstat/zfs/arcstats")
	if err := os.WriteFile(p, []byte("13 1 0x01 123 33456 1 2\nname                            type data\nhits                            4    1234\nc_max                           4    8589934592\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if n, err := zfs.ARCMax(t.Context(), h); err != nil || n != 8<<30 {
		t.Errorf("c_max %d %v", n, err)
	}
}
