package main

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
	"unicode/utf8"
)

// TestFirstScreenInATerminal runs the doctor in a real terminal (tmux,
// 80×24, TERM=xterm-256color) on the HPE MicroServer, plain and with its
// recorded window: the verdict and finding 1 are on the first screen (the
// first 24 rows of what the terminal shows), no row is wider than the
// terminal, and no line was wrapped by the terminal (the doctor read the
// tty's width itself) (issue #11); the last row repeats the verdict (issue #25).
func TestFirstScreenInATerminal(t *testing.T) {
	tmux, err := exec.LookPath("tmux")
	if err != nil {
		t.Skip("tmux is not installed (apt-get install tmux, or make test-deps); skipping the terminal test")
	}
	repo, _ := filepath.Abs("../..")
	socket := filepath.Join(t.TempDir(), "tmux.sock")
	run := func(args ...string) string {
		cmd := exec.Command(tmux, append([]string{"-S", socket, "-f", "/dev/null"}, args...)...)
		cmd.Env = append(os.Environ(), "TERM=xterm-256color")
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("tmux %v: %v %s", args, err, out)
		}
		return string(out)
	}
	t.Cleanup(func() { exec.Command(tmux, "-S", socket, "kill-server").Run() })

	for _, c := range []struct {
		name  string
		cols  int
		args  string
		first []string // lines that must be on the first screen, in order
	}{
		{"report", 80, "--root fixtures/hpe-microserver-writethrough", []string{"CRITICAL: 3 critical findings", " 1. CRITICAL Drive write cache is switched off — sda–sdd"}},
		{"triage", 80, "--root fixtures/hpe-microserver-writethrough --sample 5s", []string{"BOTTLENECK sda: 100 % busy, 7.5 MB/s written = 1.4 % of its datasheet —", "CRITICAL: 3 critical findings", " 1. CRITICAL Drive write cache is switched off — sda–sdd"}},
		// The width is the terminal's: at 120 columns a row is wider than 80.
		{"report-120", 120, "--root fixtures/hpe-microserver-writethrough", []string{"CRITICAL: 3 critical findings", " 1. CRITICAL Drive write cache is switched off — sda–sdd\n    kernel write through, drive off, at boot disabled — expected: write cache on: WD Red SA500 2TB has a volatile write\n"}},
		// This machine, sampled for 2 s: the progress line is cleared before
		// the report starts, which begins on its own row.
		{"live-sample", 80, "--sample 2s", []string{"diskdoctor "}},
	} {
		t.Run(c.name, func(t *testing.T) {
			session := "dd-" + c.name
			shell := fmt.Sprintf("cd %s && TERM=xterm-256color %s %s; echo __EXIT__$?; sleep 60", repo, binary, c.args)
			run("new-session", "-d", "-s", session, "-x", fmt.Sprint(c.cols), "-y", "24", shell)
			var screen string
			for deadline := time.Now().Add(30 * time.Second); time.Now().Before(deadline); time.Sleep(200 * time.Millisecond) {
				screen = run("capture-pane", "-p", "-J", "-t", session, "-S", "-", "-E", "-")
				if strings.Contains(screen, "__EXIT__") {
					break
				}
			}
			want := "__EXIT__2"
			if c.name == "live-sample" {
				want = "__EXIT__" // this machine's verdict is its own
			}
			if !strings.Contains(screen, want) || strings.Contains(screen, "__EXIT__3") {
				t.Fatalf("the doctor did not finish (%s) in the terminal:\n%s", want, screen)
			}
			if c.name == "live-sample" && (!strings.HasPrefix(screen, "diskdoctor ") || strings.Contains(screen, "sampling /proc")) {
				t.Errorf("the progress line was not cleared before the report:\n%s", screen)
			}
			// capture-pane -J joins rows the terminal wrapped: a joined row
			// wider than 80 is a line the terminal had to wrap.
			rows := strings.Split(strings.TrimRight(screen[:strings.Index(screen, "__EXIT__")], "\n"), "\n")
			for i, r := range rows {
				if n := utf8.RuneCountInString(r); n > c.cols {
					t.Errorf("row %d is %d columns (wrapped by the terminal): %q", i+1, n, r)
				}
				if strings.ContainsRune(r, 0x1b) {
					t.Errorf("row %d holds a raw escape: %q", i+1, r)
				}
			}
			firstScreen := strings.Join(rows[:min(24, len(rows))], "\n")
			at := 0
			for _, want := range c.first {
				i := strings.Index(firstScreen[at:], want)
				if i < 0 {
					t.Errorf("not on the first screen (%d×24), in order: %q\n%s", c.cols, want, firstScreen)
					break
				}
				at += i + len(want)
			}
			// What stays on the screen at the end (24 rows, one of them the
			// shell's next line) is the verdict again, from its first row
			// (a verdict that names what is busy wraps), then the first
			// action.
			if tail := strings.Join(rows[max(0, len(rows)-23):], "\n"); c.name != "live-sample" && (!strings.Contains(tail, "\nCRITICAL: 3 critical findings") || !strings.Contains(tail, "\nFirst [")) {
				t.Errorf("the last screen is not the verdict and the first action:\n%s", tail)
			}
			t.Logf("%s: %d rows in a %d×24 terminal", c.name, len(rows), c.cols)
		})
	}
}
