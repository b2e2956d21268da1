package main

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestInterruptedRunIsUnknown reproduces issue #16 item 9: a nagios check
// with a long window, interrupted with SIGINT, exits 3 and says UNKNOWN,
// and the previous --output file stays as it was.
func TestInterruptedRunIsUnknown(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: skipping a 2 s live run")
	}
	dir := t.TempDir()
	out := filepath.Join(dir, "diskdoctor.nagios")
	previous := []byte("DISKDOCTOR OK - the previous run | critical=0\n")
	if err := os.WriteFile(out, previous, 0o640); err != nil {
		t.Fatal(err)
	}
	for _, withOutput := range []bool{true, false} {
		args := []string{"--sample", "100h", "-f", "nagios"}
		if withOutput {
			args = append(args, "-o", out)
		}
		cmd := exec.Command(binary, args...)
		var stdout, stderr bytes.Buffer
		cmd.Stdout, cmd.Stderr = &stdout, &stderr
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		time.Sleep(2 * time.Second)
		if err := cmd.Process.Signal(os.Interrupt); err != nil {
			t.Fatal(err)
		}
		done := make(chan error, 1)
		go func() { done <- cmd.Wait() }()
		select {
		case <-done:
		case <-time.After(20 * time.Second):
			cmd.Process.Kill()
			t.Fatal("the doctor did not stop within 20 s of SIGINT")
		}
		code := cmd.ProcessState.ExitCode()
		if code != 3 || !strings.HasPrefix(stdout.String(), "DISKDOCTOR UNKNOWN - interrupted") || !strings.Contains(stderr.String(), "interrupted") {
			t.Errorf("-o %v: exit %d, stdout %q, stderr %q; want 3, DISKDOCTOR UNKNOWN - interrupted…", withOutput, code, stdout.String(), stderr.String())
		}
		if b, _ := os.ReadFile(out); !bytes.Equal(b, previous) {
			t.Errorf("the previous --output file was replaced with %q", b)
		}
	}
	if ents, _ := os.ReadDir(dir); len(ents) != 1 {
		t.Errorf("files left beside the report: %v", ents)
	}
}

// TestRunPastItsDeadlineIsUnknown: a run that outlives --deadline exits 3
// and says so (issue #16 item 5).
func TestRunPastItsDeadlineIsUnknown(t *testing.T) {
	var out, errb bytes.Buffer
	start := time.Now()
	code := run(t.Context(), []string{"--sample", "30s", "--deadline", "1s", "-f", "nagios"}, &out, &errb)
	if code != 3 || !strings.Contains(out.String(), "DISKDOCTOR UNKNOWN - the examination exceeded its deadline") {
		t.Errorf("exit %d, stdout %q, stderr %q", code, out.String(), errb.String())
	}
	if d := time.Since(start); d > 10*time.Second {
		t.Errorf("took %s past a 1 s deadline", d)
	}
}
