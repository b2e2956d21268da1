package main

import (
	"strings"
	"testing"
)

// TestNPDExitStatuses: the process under --format npd exits with
// node-problem-detector's plugin statuses (OK 0, NonOK 1, Unknown 2;
// pkg/custompluginmonitor/types/types.go), never the doctor's 2 for
// critical (NPD would read it as Unknown) nor 3, and prints one line of
// at most 80 bytes, the output NPD keeps.
func TestNPDExitStatuses(t *testing.T) {
	for _, c := range []struct {
		args   []string
		code   int
		prefix string
	}{
		{[]string{"--root", "fixtures/healthy-workstation"}, 0, "OK: "},
		{[]string{"--root", "fixtures/md-raid1-mismatch-after-check"}, 1, "WARNING: md-mismatch-count on md0"},
		{[]string{"--root", "fixtures/md-raid1-degraded"}, 1, "CRITICAL: md-degraded on md0"},
		{[]string{"--root", "fixtures/does-not-exist"}, 2, "UNKNOWN: "},
		{[]string{"--no-such-flag"}, 2, "UNKNOWN: "},
		{[]string{"--context", "nonsense"}, 2, "UNKNOWN: "},
	} {
		for _, form := range [][]string{{"--format", "npd"}, {"-fnpd"}, {"--format=npd"}} {
			args := append(append([]string{"--probe-timeout", "1s"}, form...), c.args...)
			stdout, stderr, code := runBinary(t, args...)
			if code != c.code {
				t.Errorf("%v: exit %d, want %d (stderr %s)", args, code, c.code, stderr)
			}
			line, rest, _ := strings.Cut(string(stdout), "\n")
			if rest != "" || !strings.HasSuffix(string(stdout), "\n") {
				t.Errorf("%v: not one line: %q", args, stdout)
			}
			if len(line) > 80 || !strings.HasPrefix(line, c.prefix) {
				t.Errorf("%v: %q (%d bytes), want at most 80 starting %q", args, line, len(line), c.prefix)
			}
		}
	}
}
