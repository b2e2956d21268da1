package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

func TestCheckRuntimeEnv(t *testing.T) {
	for _, c := range []struct {
		gogc, limit string
		bad         bool
	}{
		{"", "", false},
		{"200", "1GiB", false},
		{"off", "off", false},
		{"off", "64MiB", false},
		{"abc", "", true},  // the runtime reads it as 100
		{"-5", "", true},   // the runtime reads it as off
		{"", "64", true},   // 64 bytes: accepted by the runtime, a collector without pause
		{"", "1KiB", true}, // likewise
		{"", "16MiB", false},
	} {
		env := map[string]string{"GOGC": c.gogc, "GOMEMLIMIT": c.limit}
		err := checkRuntimeEnv(func(k string) string { return env[k] })
		if (err != nil) != c.bad {
			t.Errorf("GOGC=%q GOMEMLIMIT=%q: %v, want refused %v", c.gogc, c.limit, err, c.bad)
		}
	}
}

// Issue 26: GOMEMLIMIT=64MB (a typo) kills the runtime before main with
// exit status 2, which the unit's SuccessExitStatus=1 2 records as success.
// The attack, then what the doctor can do about the values it does see.
func TestRuntimeEnvExitStatus(t *testing.T) {
	bin := filepath.Join(t.TempDir(), "diskdoctor")
	if out, err := exec.Command("go", "build", "-o", bin, ".").CombinedOutput(); err != nil {
		t.Fatalf("build: %v\n%s", err, out)
	}
	exitOf := func(env ...string) (int, string) {
		cmd := exec.Command(bin, "--version")
		cmd.Env = append(os.Environ(), env...)
		out, _ := cmd.CombinedOutput()
		return cmd.ProcessState.ExitCode(), string(out)
	}
	// What remains: the runtime's own abort, exit 2, before main.
	if code, out := exitOf("GOMEMLIMIT=64MB"); code != 2 || !strings.Contains(out, "GOMEMLIMIT") {
		t.Errorf("GOMEMLIMIT=64MB: exit %d, %s (the runtime's abort changed: revisit docs/fleet.md)", code, out)
	}
	for _, env := range []string{"GOMEMLIMIT=64", "GOGC=fast"} {
		if code, out := exitOf(env); code != 3 || !strings.Contains(out, env[:strings.Index(env, "=")]) {
			t.Errorf("%s: exit %d, %s; want 3 naming it", env, code, out)
		}
	}
}
