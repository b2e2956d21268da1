package main

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"
)

// verdictStart is the first word of a verdict line of the text report.
var verdictStart = regexp.MustCompile(`^(OK|CRITICAL|WARNING|READY|NOT READY|CAUTION)\b`)

// TestLastScreenInATerminal runs every fixture's default report in a real
// terminal (tmux, 80×24, all fixtures at once in one tmux server) and
// checks that what the terminal shows once the run is over holds the
// verdict and, when there is something to do, the first action: the
// lines a person reads without scrolling back.
func TestLastScreenInATerminal(t *testing.T) {
	tmux, err := exec.LookPath("tmux")
	if err != nil {
		t.Skip("tmux is not installed (apt-get install tmux, or make test-deps); skipping the terminal test")
	}
	repo, _ := filepath.Abs("../..")
	dir := t.TempDir()
	socket := filepath.Join(dir, "tmux.sock")
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

	entries, err := os.ReadDir(filepath.Join(repo, "fixtures"))
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, e := range entries {
		if _, err := os.Stat(filepath.Join(repo, "fixtures", e.Name(), "sys")); err == nil {
			names = append(names, e.Name())
		}
	}
	for i, n := range names {
		// The exit status goes to a file, not the screen: the screen is
		// what the run left.
		shell := fmt.Sprintf("cd %s && %s --root fixtures/%s; echo $? > %s/%d.rc; sleep 120", repo, binary, n, dir, i)
		if i == 0 {
			run("new-session", "-d", "-s", "last", "-x", "80", "-y", "24", "-n", fmt.Sprint(i), shell)
		} else {
			run("new-window", "-d", "-t", "last", "-n", fmt.Sprint(i), shell)
		}
	}
	for i, n := range names {
		rc := filepath.Join(dir, fmt.Sprintf("%d.rc", i))
		for deadline := time.Now().Add(60 * time.Second); time.Now().Before(deadline); time.Sleep(100 * time.Millisecond) {
			if _, err := os.Stat(rc); err == nil {
				break
			}
		}
		code, err := os.ReadFile(rc)
		if err != nil || strings.TrimSpace(string(code)) == "3" {
			t.Errorf("%s: the run did not finish with a verdict in the terminal (%q)", n, code)
			continue
		}
		time.Sleep(20 * time.Millisecond) // the last bytes reach the pane
		screen := run("capture-pane", "-p", "-t", fmt.Sprintf("last:%d", i))
		// The whole run as the terminal received it (its history): its
		// last verdict and the first action after it.
		all := run("capture-pane", "-p", "-J", "-S", "-", "-E", "-", "-t", fmt.Sprintf("last:%d", i))
		lines := strings.Split(strings.TrimRight(all, "\n"), "\n")
		v := -1
		for i, l := range lines {
			if verdictStart.MatchString(l) {
				v = i
			}
		}
		if v < 0 {
			t.Errorf("%s: no verdict line in the report:\n%s", n, all)
			continue
		}
		var w [2]string
		w[0] = lines[v]
		for _, l := range lines[v+1:] {
			if strings.HasPrefix(l, "First ") {
				w[1] = l
			}
		}
		if w[1] == "" && strings.TrimSpace(string(code)) != "0" {
			t.Errorf("%s: a report with findings (exit %s) ends without a first action:\n%s", n, code, strings.Join(lines[max(0, v-2):], "\n"))
		}
		if !strings.Contains(screen, w[0]) {
			t.Errorf("%s: the last screen (80×24) lacks the verdict %q:\n%s", n, w[0], screen)
		}
		if w[1] != "" && !strings.Contains(screen, w[1]) {
			t.Errorf("%s: the last screen (80×24) lacks the first action %q:\n%s", n, w[1], screen)
		}
	}
}
