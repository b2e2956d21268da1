//go:build linux

package machine_test

import (
	"bytes"
	"context"
	"errors"
	"os"
	"path/filepath"
	"strconv"
	"syscall"
	"testing"
	"time"

	"github.com/diskdoctor/diskdoctor/internal/testutil"
	"github.com/diskdoctor/diskdoctor/machine"
)

// hangScript starts a grandchild that would outlive a kill of the script
// alone (it sleeps for a minute and holds the script's stdout), writes the
// grandchild's pid to the file named by $1, then hangs itself: the shape of
// a vendor CLI whose helper blocks on a sick controller.
const hangScript = `sleep 60 &
echo $! > "$1"
sleep 60
`

// TestRunKillsProcessGroup: a command past its deadline is killed with
// everything it started, and Run returns ErrTimeout soon after the
// deadline instead of when the grandchild would have ended.
func TestRunKillsProcessGroup(t *testing.T) {
	dir := t.TempDir()
	script, pidFile := filepath.Join(dir, "hang.sh"), filepath.Join(dir, "grandchild.pid")
	testutil.Must(t, os.WriteFile(script, []byte(hangScript), 0o644))
	h := machine.Live()

	ctx, cancel := context.WithTimeout(t.Context(), 300*time.Millisecond)
	defer cancel()
	start := time.Now()
	_, err := h.Run(ctx, "/bin/sh", script, pidFile)
	took := time.Since(start)
	if !errors.Is(err, machine.ErrTimeout) {
		t.Errorf("Run past its deadline: %v, want ErrTimeout", err)
	}
	if took > 2*time.Second {
		t.Errorf("Run returned %v after it started, want soon after the 300ms deadline", took)
	}

	b, err := os.ReadFile(pidFile)
	if err != nil {
		t.Fatalf("the script wrote no grandchild pid: %v", err)
	}
	pid, err := strconv.Atoi(string(bytes.TrimSpace(b)))
	if err != nil || pid <= 1 {
		t.Fatalf("grandchild pid %q: %v", b, err)
	}
	// Should the group kill fail, the grandchild must not outlive the test.
	t.Cleanup(func() {
		if alive(pid) {
			_ = syscall.Kill(pid, syscall.SIGKILL)
		}
	})
	deadline := time.Now().Add(time.Second)
	for alive(pid) {
		if time.Now().After(deadline) {
			t.Fatalf("grandchild %d still runs after its command's deadline", pid)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// alive says whether pid is a process that has not died. A killed
// grandchild is reparented, and until its new parent reaps it, it is a
// zombie that kill(pid, 0) still finds (kill(2)); its state in
// /proc/<pid>/stat is then Z (proc(5)), which counts as dead.
func alive(pid int) bool {
	if err := syscall.Kill(pid, 0); errors.Is(err, syscall.ESRCH) {
		return false
	}
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return !errors.Is(err, os.ErrNotExist)
	}
	// The state follows the command name, which is in parentheses and may
	// itself hold ") ".
	i := bytes.LastIndexByte(b, ')')
	return i < 0 || i+2 >= len(b) || (b[i+2] != 'Z' && b[i+2] != 'X')
}

// TestRunOutputAndExit: a command that ends on its own still hands back
// what it printed and its exit status, in its own process group or not.
func TestRunOutputAndExit(t *testing.T) {
	dir := t.TempDir()
	script := filepath.Join(dir, "exit.sh")
	testutil.Must(t, os.WriteFile(script, []byte("echo \"out $LC_ALL\"\necho err >&2\nexit 3\n"), 0o644))
	res, err := machine.Live().Run(t.Context(), "/bin/sh", script)
	if err != nil {
		t.Fatalf("Run: %v", err)
	}
	if string(res.Stdout) != "out C\n" || string(res.Stderr) != "err\n" || res.Exit != 3 {
		t.Errorf("Run = stdout %q, stderr %q, exit %d; want %q, %q, 3", res.Stdout, res.Stderr, res.Exit, "out C\n", "err\n")
	}
}

// TestWaitCommandsOutlastsAnAbandonedProbe: a caller that stops waiting
// for a command (a probe at its deadline) returns before the command is
// killed; WaitCommands is then what holds the run until it is, so no
// program is left running when the doctor exits.
func TestWaitCommandsOutlastsAnAbandonedProbe(t *testing.T) {
	h := machine.Live()
	ctx, cancel := context.WithCancel(t.Context())
	started := make(chan struct{})
	ended := make(chan struct{})
	go func() {
		defer close(ended)
		close(started)
		_, _ = h.Run(ctx, "/bin/sleep", "60")
	}()
	<-started
	time.Sleep(100 * time.Millisecond) // the program runs
	if h.WaitCommands(50 * time.Millisecond) {
		t.Fatal("WaitCommands returned true while sleep 60 ran")
	}
	cancel()
	if !h.WaitCommands(5 * time.Second) {
		t.Fatal("the cancelled command was not waited for within 5 s")
	}
	select {
	case <-ended:
	case <-time.After(time.Second):
		t.Fatal("Run had not returned after WaitCommands")
	}
	if rec, err := machine.Recorded(t.TempDir()); err == nil && !rec.WaitCommands(0) {
		t.Error("a recorded Host runs no program, yet WaitCommands waited")
	}
}
