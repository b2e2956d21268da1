package main

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"syscall"
	"testing"
	"time"
)

func TestCheckRuntimeEnv(t *testing.T) {
	for _, c := range []struct {
		gogc, limit string
		hidden      bool // by the entry point: the runtime never read it
		bad         bool
	}{
		{"", "", false, false},
		{"200", "1GiB", false, false},
		{"off", "off", false, false},
		{"off", "64MiB", false, false},
		{"abc", "", false, true},  // the runtime reads it as 100
		{"-5", "", false, true},   // the runtime reads it as off
		{"", "64", false, true},   // 64 bytes: accepted by the runtime, a collector without pause
		{"", "1KiB", false, true}, // likewise
		{"", "16MiB", false, false},
		{"", "64MB", true, true}, // the runtime would abort on it
		{"", "1.5GiB", true, true},
		{"", "-1", true, true},
		{"", "64MiB", true, false},
		{"", "off", true, false},
		{"", "", true, false},
		{"", "64", true, true},
	} {
		env := map[string]string{"GOGC": c.gogc, "GOMEMLIMIT": c.limit}
		err := checkRuntimeEnv(func(k string) string { return env[k] }, c.hidden)
		if (err != nil) != c.bad {
			t.Errorf("GOGC=%q GOMEMLIMIT=%q hidden %v: %v, want refused %v", c.gogc, c.limit, c.hidden, err, c.bad)
		}
	}
}

// Issue 26: GOMEMLIMIT=64MB (a typo) kills the runtime before main with
// exit status 2, which the unit's SuccessExitStatus=1 2 records as success.
// The attack on a build without the doctor's entry point, then the build
// make and the packages make (binary, linked with entryLDFlags): it says
// what is wrong and exits 3, and a GOMEMLIMIT it can use still runs.
func TestRuntimeEnvExitStatus(t *testing.T) {
	plain := filepath.Join(t.TempDir(), "diskdoctor")
	if out, err := exec.Command("go", "build", "-o", plain, ".").CombinedOutput(); err != nil {
		t.Fatalf("build: %v\n%s", err, out)
	}
	exitOf := func(bin string, env ...string) (int, string) {
		cmd := exec.Command(bin, "--version")
		cmd.Env = append(os.Environ(), env...)
		out, _ := cmd.CombinedOutput()
		return cmd.ProcessState.ExitCode(), string(out)
	}
	if code, out := exitOf(plain, "GOMEMLIMIT=64MB"); code != 2 || !strings.Contains(out, "malformed GOMEMLIMIT") {
		t.Errorf("plain build, GOMEMLIMIT=64MB: exit %d, %s (the runtime's abort changed: revisit entry_linux_amd64.s)", code, out)
	}
	for _, env := range []string{"GOMEMLIMIT=64MB", "GOMEMLIMIT=64", "GOGC=fast", "GOMEMLIMIT=\x1b[31m"} {
		code, out := exitOf(binary, env)
		if code != 3 || !strings.HasPrefix(out, "diskdoctor: "+env[:strings.Index(env, "=")]) {
			t.Errorf("%q: exit %d, %q; want 3 naming it", env, code, out)
		}
		if strings.Contains(out, "\x1b") {
			t.Errorf("%q: the message carries the control byte: %q", env, out)
		}
	}
	for _, env := range []string{"GOMEMLIMIT=1GiB", "GOMEMLIMIT=off", "GOMEMLIMITS=64MB"} {
		if code, out := exitOf(binary, env); code != 0 || !strings.HasPrefix(out, "diskdoctor ") {
			t.Errorf("%s: exit %d, %q; want the version", env, code, out)
		}
	}
}

// TestShippedBuildsUseTheEntryPoint: make build and the Debian packages
// build the doctor as the end-to-end and benchmark tests do: static, with
// the doctor's entry point.
func TestShippedBuildsUseTheEntryPoint(t *testing.T) {
	flag := strings.TrimPrefix(entryLDFlags, "-ldflags=")
	for file, want := range map[string][]string{
		"../../Makefile":               {"ENTRY_LDFLAGS := $(if $(filter amd64 arm64,$(shell $(GO) env GOARCH 2>/dev/null))," + flag + ")", `CGO_ENABLED=0 $(GO) build -ldflags "$(ENTRY_LDFLAGS) `},
		"../../packaging/build-deb.sh": {"export CGO_ENABLED=0", `ldflags="-s -w -buildid= ` + flag + " "},
	} {
		b, err := os.ReadFile(file)
		if err != nil {
			t.Fatal(err)
		}
		for _, w := range want {
			if !strings.Contains(string(b), w) {
				t.Errorf("%s does not link with %s: no %q", file, flag, w)
			}
		}
	}
}

// TestRuntimeFatalIsASignal: a fatal error of the Go runtime (here SIGQUIT,
// which the runtime answers as it answers one) ends the doctor by SIGABRT,
// which the unit records as a failure, not by exit status 2, which it
// records as a critical verdict; and the doctor runs with no core limit
// left, so that the crash writes no core of what it read.
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
