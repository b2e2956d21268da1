package window

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"testing"
	"time"

	"github.com/diskdoctor/diskdoctor/machine"
)

// On this machine: a shell runs dd and reaps it. The dirtied pages count
// as dd's write_bytes, which the kernel adds to the shell's /proc/PID/io
// when the shell reaps dd; the window shows them as the shell's exited
// children's, not as the shell's own.
func TestReapedChildLive(t *testing.T) {
	if testing.Short() {
		t.Skip("live")
	}
	if _, err := os.ReadFile("/proc/self/task/" + itoa(os.Getpid()) + "/io"); err != nil {
		t.Skipf("no per-thread I/O accounting here: %v", err)
	}
	// On the disk: tmpfs writes nothing back, so its dirtied pages may not
	// count as write_bytes (mm/page-writeback.c, folio_account_dirtied).
	dir, err := os.MkdirTemp(".", ".reaped-")
	if err != nil {
		t.Fatal(err)
	}
	defer os.RemoveAll(dir)
	h := machine.Live()
	ctx := context.Background()
	start, err := readCounters(ctx, h, false, true)
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command("sh", "-c", `dd if=/dev/zero of="$1" bs=64k count=64 2>/dev/null; read x`, "sh", filepath.Join(dir, "f"))
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() { stdin.Close(); _ = cmd.Wait() }()
	pid := cmd.Process.Pid
	var end *Counters
	for deadline := time.Now().Add(10 * time.Second); ; {
		end, err = readCounters(ctx, h, true, false)
		if err != nil {
			t.Fatal(err)
		}
		if end.Procs[pid].WriteBytes >= 4<<20 {
			break
		}
		if time.Now().After(deadline) {
			t.Skipf("the shell's /proc/PID/io never showed dd's 4 MiB (%+v): write_bytes not counted on this filesystem", end.Procs[pid])
		}
		time.Sleep(50 * time.Millisecond)
	}
	fillCgroups(ctx, h, start, end)
	w := &Window{Seconds: 1, Start: start, End: end}
	var children, own *ProcRates
	for _, p := range TopProcesses(w, 0) {
		if p.PID == pid {
			if p.ExitedChildren {
				children = &p
			} else {
				own = &p
			}
		}
	}
	if children == nil || children.WriteBytesPerS < 4<<20 {
		t.Errorf("the shell's reaped dd: %+v, want 4 MiB written by its exited children", children)
	}
	if own != nil && own.WriteBytesPerS > 0 {
		t.Errorf("the shell itself wrote nothing, got %+v", own)
	}
}

func itoa(n int) string { return strconv.Itoa(n) }
