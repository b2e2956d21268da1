package md

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/diskdoctor/diskdoctor/internal/parse"
	"github.com/diskdoctor/diskdoctor/internal/testutil"
	"github.com/diskdoctor/diskdoctor/machine"
)

// ttarFile extracts one file from a ttar archive (the plain-text tar of the
// Prometheus projects; see the samples' README).
func ttarFile(t *testing.T, archive []byte, path string) []byte {
	t.Helper()
	lines := strings.Split(string(archive), "\n")
	for i := 0; i < len(lines); i++ {
		if lines[i] != "Path: "+path || i+1 >= len(lines) || !strings.HasPrefix(lines[i+1], "Lines: ") {
			continue
		}
		n := parse.Atoi(strings.TrimPrefix(lines[i+1], "Lines: "))
		if i+2+n > len(lines) {
			break
		}
		body := strings.Join(lines[i+2:i+2+n], "\n")
		if strings.HasSuffix(body, "EOF") {
			return []byte(strings.TrimSuffix(body, "EOF"))
		}
		return []byte(body + "\n")
	}
	t.Fatalf("%s not in the archive", path)
	return nil
}

func TestParseMDStatSample(t *testing.T) {
	b := ttarFile(t, testutil.ReadSample(t, "sysfs/procfs-fixtures.ttar"), "fixtures/proc/mdstat")
	arrays, err := readMDStat(t, b)
	testutil.Must(t, err)
	by := map[string]Array{}
	for _, a := range arrays {
		by[a.Name] = a
	}
	if len(arrays) != 18 {
		t.Errorf("%d arrays, want 18", len(arrays))
	}
	tests := []struct {
		name     string
		degraded bool
		action   string
		failed   int64
	}{
		{"md3", false, "", 0},
		{"md6", true, "recovery", 1},
		{"md8", false, "resync", 0},
		{"md201", false, "check", 0},
		{"md7", true, "", 1},
		{"md42", true, "reshape", 0},
		{"md9", false, "resync", 2}, // resync=DELAYED; two failed members beside a full set: not degraded
		{"md10", false, "", 0},
	}
	for _, tt := range tests {
		a, ok := by[tt.name]
		if !ok {
			t.Errorf("%s missing", tt.name)
			continue
		}
		if a.Degraded != tt.degraded {
			t.Errorf("%s degraded = %v, want %v (%+v)", tt.name, a.Degraded, tt.degraded, a)
		}
		if a.Action != tt.action || a.Failed != tt.failed {
			t.Errorf("%s action %q failed %d, want %q %d", tt.name, a.Action, a.Failed, tt.action, tt.failed)
		}
	}
	if a := by["md6"]; a.SyncPercent != 8.5 || a.SyncFinish != 17 || a.SyncSpeedKBs != 259783 || len(a.Lines) != 3 {
		t.Errorf("md6 = %+v", a)
	}
}

func TestParseMDStatFixture(t *testing.T) {
	in := "Personalities : [raid1] [linear] [multipath] [raid0] [raid6] [raid5] [raid4] [raid10] \nmd0 : active raid1 sdc1[1](F) sdb1[0]\n      3906885440 blocks super 1.2 [2/1] [U_]\n      bitmap: 12/30 pages [48KB], 65536KB chunk\n\nunused devices: <none>\n"
	arrays, err := readMDStat(t, []byte(in))
	testutil.Must(t, err)
	if len(arrays) != 1 {
		t.Fatalf("arrays = %+v", arrays)
	}
	a := arrays[0]
	if !a.Degraded || a.Level != "raid1" || a.Active != 1 || a.Disks != 2 || a.Failed != 1 || !a.Members[0].Faulty || a.Members[0].Name != "sdc1" || a.Action != "" {
		t.Errorf("md0 = %+v", a)
	}
}

func TestParseMDStatMalformed(t *testing.T) {
	for name, in := range map[string]string{
		"personalities without brackets": "Personalities : x\nmd0 : active raid1 sda1[0]\n      1 blocks [1/1] [U]\n\n",
		"truncated array":                "md0 : active raid1 sda1[0]\n",
		"bad status line":                "Personalities : [raid1]\nmd0 : active raid1 sda1[0]\n      x blocks\n\n\n",
		"bad recovery line":              "Personalities : [raid1]\nmd0 : active raid1 sda1[0]\n      10 blocks [2/1] [U_]\n      recovery = x\n\n",
	} {
		if _, err := readMDStat(t, []byte(in)); !errors.Is(err, machine.ErrParse) {
			t.Errorf("%s: err = %v, want ErrParse", name, err)
		}
	}
	if a, err := readMDStat(t, []byte("Personalities : [raid1]\nunused devices: <none>\n")); err != nil || len(a) != 0 {
		t.Errorf("no arrays: %v %v", a, err)
	}
}

// Arrays that are down or waiting (issue #10 items 7, 8), in the forms of
// procfs' real mdstat fixture: md4 and md219 are inactive, md9 waits with
// resync=DELAYED, md11 is auto-read-only with resync=PENDING.
func TestMDStatInactiveAndWaiting(t *testing.T) {
	b := ttarFile(t, testutil.ReadSample(t, "sysfs/procfs-fixtures.ttar"), "fixtures/proc/mdstat")
	arrays, err := readMDStat(t, b)
	testutil.Must(t, err)
	by := map[string]Array{}
	for _, a := range arrays {
		by[a.Name] = a
	}
	for _, c := range []struct {
		name, state, waiting, ro string
		members                  int
	}{
		{"md219", "inactive", "", "", 3},
		{"md4", "inactive", "", "", 2},
		{"md9", "resyncing", "delayed", "", 7},
		{"md11", "resyncing", "pending", "auto-read-only", 5},
		{"md101", "active", "", "read-only", 3},
		{"md8", "resyncing", "", "", 4},
	} {
		a := by[c.name]
		if a.State != c.state || a.SyncWaiting != c.waiting || a.ReadOnly != c.ro || len(a.Members) != c.members {
			t.Errorf("%s: state %q waiting %q ro %q members %d, want %q %q %q %d", c.name, a.State, a.SyncWaiting, a.ReadOnly, len(a.Members), c.state, c.waiting, c.ro, c.members)
		}
	}
}

// readMDStat is Read of a recorded machine whose /proc/mdstat is b.
func readMDStat(t *testing.T, b []byte) ([]Array, error) {
	t.Helper()
	root := t.TempDir()
	testutil.Must(t, os.MkdirAll(filepath.Join(root, "sys"), 0o755))
	testutil.Must(t, os.MkdirAll(filepath.Join(root, "proc"), 0o755))
	testutil.Must(t, os.WriteFile(filepath.Join(root, "proc/mdstat"), b, 0o644))
	h, err := machine.Recorded(root)
	testutil.Must(t, err)
	return Read(context.Background(), h)
}

// A recorded /proc/mdstat is read beneath the recording's root: procfs
// opens the file itself, so a link that leaves the root is refused
// before procfs is called, and the file it names is never read.
func TestReadMDStatContained(t *testing.T) {
	outside := filepath.Join(t.TempDir(), "mdstat")
	testutil.Must(t, os.WriteFile(outside, []byte("Personalities : [raid1]\nmd0 : active raid1 sda1[0] sdb1[1]\n      10 blocks [2/2] [UU]\n\nunused devices: <none>\n"), 0o644))
	for _, target := range []string{outside, "../../../../../../../../.." + outside} {
		root := t.TempDir()
		testutil.Must(t, os.MkdirAll(filepath.Join(root, "sys"), 0o755))
		testutil.Must(t, os.MkdirAll(filepath.Join(root, "proc"), 0o755))
		testutil.Must(t, os.Symlink(target, filepath.Join(root, "proc/mdstat")))
		// The same path within the root, where a read through the Host
		// lands: had procfs been handed the link, it would read outside.
		inside := filepath.Join(root, outside)
		testutil.Must(t, os.MkdirAll(filepath.Dir(inside), 0o755))
		testutil.Must(t, os.WriteFile(inside, []byte("Personalities : [raid1]\nunused devices: <none>\n"), 0o644))
		h, err := machine.Recorded(root)
		testutil.Must(t, err)
		if a, err := Read(context.Background(), h); err == nil || len(a) != 0 {
			t.Errorf("proc/mdstat -> %s: %d arrays, err %v; want refused", target, len(a), err)
		}
	}
	// Absent: the machine has no md driver.
	root := t.TempDir()
	testutil.Must(t, os.MkdirAll(filepath.Join(root, "sys"), 0o755))
	h, err := machine.Recorded(root)
	testutil.Must(t, err)
	if _, err := Read(context.Background(), h); !errors.Is(err, machine.ErrNotAvailable) {
		t.Errorf("no /proc/mdstat: err %v, want ErrNotAvailable", err)
	}
}
