package main

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestUnprivilegedSampleSaysSo: run as nobody, --sample cannot read most
// processes' /proc/PID/io; the text report says so in the window's
// process table and in the skipped checks, not only in the JSON (issue #16).
func TestUnprivilegedSampleSaysSo(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("needs root to run the doctor as nobody")
	}
	setpriv, err := exec.LookPath("setpriv")
	if err != nil {
		t.Skip("setpriv (util-linux) is not installed")
	}
	// nobody must be able to run the built binary.
	if err := os.Chmod(filepath.Dir(binary), 0o755); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(setpriv, "--reuid=65534", "--regid=65534", "--clear-groups", binary, "--sample", "1s", "--width", "80", "--color", "never")
	cmd.Dir = "/"
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	_ = cmd.Run()
	code := cmd.ProcessState.ExitCode()
	if code == 3 {
		t.Skipf("the machine could not be examined as nobody here (exit 3): %s", stderr.String())
	}
	out := stdout.String()
	if !strings.Contains(out, "could not be read (another user's, without root)") {
		t.Errorf("the process table does not say that /proc/PID/io was unreadable:\n%s", out)
	}
	if !strings.Contains(out, "sample-processes: permission denied") && !strings.Contains(out, "sample-processes:") {
		t.Errorf("the skipped checks do not list sample-processes:\n%s", out)
	}
}
