package report

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/diskdoctor/diskdoctor/doctor"
)

// TestLoopWriterIsNotReady: on a machine whose disks are idle, a process
// writing to a loop device for the whole window is the answer of the
// triage view, in the iostat table, and the text never says READY (issue
// #11: before, a writer on loop0 gave READY unless --device loop0).
func TestLoopWriterIsNotReady(t *testing.T) {
	root := filepath.Join(t.TempDir(), "root")
	if out, err := exec.Command("cp", "-a", filepath.Join(fixturesDir, "nvme-busy-healthy"), root).CombinedOutput(); err != nil {
		t.Fatalf("cp: %v %s", err, out)
	}
	loop := filepath.Join(root, "sys/devices/virtual/block/loop0")
	for name, content := range map[string]string{"dev": "7:0", "size": "2097152", "ro": "0", "removable": "0", "queue/rotational": "0", "queue/scheduler": "[none]"} {
		p := filepath.Join(loop, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content+"\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Symlink("../devices/virtual/block/loop0", filepath.Join(root, "sys/block/loop0")); err != nil {
		t.Fatal(err)
	}
	// The second reading: the disks did nothing, loop0 wrote 100 MB/s and
	// was busy the whole 5 s.
	first, err := os.ReadFile(filepath.Join(root, "proc/diskstats"))
	if err != nil {
		t.Fatal(err)
	}
	loopA := "   7       0 loop0 0 0 0 0 1000 0 8000 100 0 100 100 0 0 0 0 0 0\n"
	loopB := "   7       0 loop0 0 0 0 0 13000 0 984000 4900 1 5000 4900 0 0 0 0 0 0\n"
	if err := os.WriteFile(filepath.Join(root, "proc/diskstats"), append(append([]byte{}, first...), loopA...), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(root, "samples/1/proc/diskstats"), append(append([]byte{}, first...), loopB...), 0o644); err != nil {
		t.Fatal(err)
	}
	rep, err := doctor.Examine(t.Context(), doctor.Options{Root: root, ProbeTimeout: time.Second, Sample: 5 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	out := string(textOf(t, rep, textOptions{width: 80}))
	lines := strings.Split(out, "\n")
	answered := false
	for _, l := range lines[:6] {
		answered = answered || strings.HasPrefix(l, "BOTTLENECK loop0: 98.0 % busy, 99.9 MB/s")
	}
	if !answered {
		t.Errorf("the answer is not loop0:\n%s", out)
	}
	if strings.Contains(out, "\nREADY") {
		t.Errorf("a machine busy writing to loop0 is called READY:\n%s", out)
	}
	if !strings.Contains(out, "\nloop0 ") {
		t.Errorf("loop0 is not in the window's iostat table:\n%s", out)
	}
}
