package md

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/diskdoctor/diskdoctor/internal/testutil"
	"github.com/diskdoctor/diskdoctor/machine"
)

// The containers and arrays of real IMSM captures (Ubuntu Forums 2013,
// linux-raid 2023; fixtures/corpus/mdstat-ubuntuforums-2013-imsm-raid1):
// the container carries "super external:imsm", the volume inside it
// "super external:/md127/0".
func TestParseMDStatIMSMContainer(t *testing.T) {
	in := "Personalities : [raid1] [linear] [multipath] [raid0] [raid6] [raid5] [raid4] [raid10] \nmd126 : active raid1 sdb[1] sdc[0]\n      976758784 blocks super external:/md127/0 [2/2] [UU]\n      \nmd127 : inactive sdb[1](S) sdc[0](S)\n      6306 blocks super external:imsm\n\nunused devices: <none>\n"
	arrays, err := readMDStat(t, []byte(in))
	testutil.Must(t, err)
	by := map[string]Array{}
	for _, a := range arrays {
		by[a.Name] = a
	}
	vol, ctr := by["md126"], by["md127"]
	if vol.Container || vol.ContainerOf != "md127" || vol.Metadata != "external:/md127/0" || vol.Degraded {
		t.Errorf("md126 = %+v", vol)
	}
	if !ctr.Container || ctr.ContainerOf != "" || ctr.Metadata != "external:imsm" || ctr.Degraded || ctr.State != "inactive" {
		t.Errorf("md127 = %+v", ctr)
	}
}

func TestMetadataNames(t *testing.T) {
	for _, c := range []struct {
		lines     []string
		meta      string
		container bool
		of        string
	}{
		{[]string{"md0 : active raid1 sdb1[0]", "3906885440 blocks super 1.2 [2/1] [U_]"}, "1.2", false, ""},
		{[]string{"md1 : active raid1 hdc2[0]", "512000 blocks [2/2] [UU]"}, "", false, ""},
		{[]string{"md127 : inactive nvme3n1[3](S)", "4420 blocks super external:imsm"}, "external:imsm", true, ""},
		{[]string{"md127 : inactive sdb[0](S)", "blocks super external:ddf"}, "external:ddf", true, ""},
		{[]string{"md126 : active raid4 nvme3n1[2]", "10485760 blocks super external:/md127/0 level 4, 64k chunk,"}, "external:/md127/0", false, "md127"},
		{[]string{"md126 : active raid1 sda[0]", "blocks super external:-md127/1 [2/2] [UU]"}, "external:-md127/1", false, "md127"},
		{[]string{"md0 : active raid1", "blocks super external:"}, "external:", false, ""},
		{[]string{"md0 : active raid1", "blocks super"}, "", false, ""},
	} {
		m := Metadata(c.lines)
		if m != c.meta || Container(m) != c.container || ContainerOf(m) != c.of {
			t.Errorf("%q: %q container %v of %q, want %q %v %q", c.lines, m, Container(m), ContainerOf(m), c.meta, c.container, c.of)
		}
	}
}

func TestReadSysfs(t *testing.T) {
	root := t.TempDir()
	dir := filepath.Join(root, "sys/block/md0/md")
	testutil.Must(t, os.MkdirAll(dir, 0o755))
	testutil.Must(t, os.WriteFile(filepath.Join(dir, "mismatch_cnt"), []byte("128\n"), 0o644))
	testutil.Must(t, os.WriteFile(filepath.Join(dir, "sync_action"), []byte("idle\n"), 0o644))
	h, err := machine.Recorded(root)
	testutil.Must(t, err)
	s, err := ReadSysfs(context.Background(), h, "md0")
	testutil.Must(t, err)
	if s.MismatchCnt == nil || *s.MismatchCnt != 128 || s.SyncAction == nil || *s.SyncAction != "idle" || s.LastSyncAction != nil || s.StripeCacheSize != nil {
		t.Errorf("md0 = %+v", s)
	}
	// raid4/5/6 only (md.rst): the kernel's default of 256 pages.
	testutil.Must(t, os.WriteFile(filepath.Join(dir, "stripe_cache_size"), []byte("256\n"), 0o644))
	if s, err := ReadSysfs(context.Background(), h, "md0"); err != nil || s.StripeCacheSize == nil || *s.StripeCacheSize != 256 {
		t.Errorf("stripe cache: %+v, %v", s, err)
	}
	testutil.Must(t, os.WriteFile(filepath.Join(dir, "stripe_cache_size"), []byte("-1\n"), 0o644))
	if s, err := ReadSysfs(context.Background(), h, "md0"); err == nil || s.StripeCacheSize != nil {
		t.Errorf("garbage stripe cache: %+v, %v", s, err)
	}
	testutil.Must(t, os.Remove(filepath.Join(dir, "stripe_cache_size")))
	testutil.Must(t, os.WriteFile(filepath.Join(dir, "mismatch_cnt"), []byte("many\n"), 0o644))
	if s, err := ReadSysfs(context.Background(), h, "md0"); err == nil || s.MismatchCnt != nil {
		t.Errorf("garbage count: %+v, %v", s, err)
	}
	if s, err := ReadSysfs(context.Background(), h, "md9"); err != nil || s.MismatchCnt != nil || s.SyncAction != nil {
		t.Errorf("absent array: %+v, %v", s, err)
	}
}

// FuzzMetadata: any mdstat block and any sysfs counter text are a value
// or an error, never a crash.
func FuzzMetadata(f *testing.F) {
	f.Add("4420 blocks super external:imsm", "0")
	f.Add("blocks super external:/md127/0 [2/2] [UU]", "18446744073709551616")
	f.Add("super", "-1")
	f.Fuzz(func(t *testing.T, line, count string) {
		m := Metadata([]string{line})
		_, _ = Container(m), ContainerOf(m)
		if n, err := ParseCount(count); err == nil && n < 0 {
			t.Errorf("ParseCount(%q) = %d", count, n)
		}
	})
}
