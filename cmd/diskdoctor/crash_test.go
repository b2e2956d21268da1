package main

import (
	"fmt"
	"os"
	"os/exec"
	"regexp"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestRuntimeFatalIsASignal: a fatal error of the Go runtime (here SIGQUIT,
// which the runtime answers as it answers one) ends the doctor by SIGABRT,
// not by exit status 2, which the doctor's formats read as a critical
// verdict; and the doctor runs with no core limit left, so that the crash
// writes no core of what it read.
func TestRuntimeFatalIsASignal(t *testing.T) {
	// The doctor starts with a core limit, as under ulimit -c unlimited.
	var core syscall.Rlimit
	if err := syscall.Getrlimit(syscall.RLIMIT_CORE, &core); err != nil {
		t.Fatal(err)
	}
	if core.Max == 0 {
		t.Skip("hard RLIMIT_CORE is 0: nothing to lower")
	}
	defer syscall.Setrlimit(syscall.RLIMIT_CORE, &core)
	if err := syscall.Setrlimit(syscall.RLIMIT_CORE, &syscall.Rlimit{Cur: core.Max, Max: core.Max}); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(binary, "--sample", "10s", "--format", "json")
	cmd.Dir = t.TempDir() // where a core named "core" would be written
	var stderr strings.Builder
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer cmd.Process.Kill()
	// main has run once the core limit is 0 (crashBySignal).
	limits := fmt.Sprintf("/proc/%d/limits", cmd.Process.Pid)
	deadline := time.Now().Add(10 * time.Second)
	for {
		b, _ := os.ReadFile(limits)
		if m := regexp.MustCompile(`(?m)^Max core file size\s+(\S+)`).FindSubmatch(b); m != nil && string(m[1]) == "0" {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the doctor's core limit never became 0:\n%s", b)
		}
		time.Sleep(20 * time.Millisecond)
	}
	if err := cmd.Process.Signal(syscall.SIGQUIT); err != nil {
		t.Fatal(err)
	}
	err := cmd.Wait()
	ws, ok := cmd.ProcessState.Sys().(syscall.WaitStatus)
	if !ok || !ws.Signaled() || ws.Signal() != syscall.SIGABRT {
		t.Fatalf("after SIGQUIT: %v (exit %d), want death by SIGABRT; stderr:\n%.2000s", err, cmd.ProcessState.ExitCode(), stderr.String())
	}
	if !strings.Contains(stderr.String(), "SIGQUIT") {
		t.Errorf("no runtime trace on stderr:\n%.2000s", stderr.String())
	}
	if ws.CoreDump() {
		t.Error("the crash dumped core")
	}
}
