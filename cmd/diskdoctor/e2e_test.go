package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/diskdoctor/diskdoctor/internal/fixturetest"
)

// binary is the diskdoctor built once for the end-to-end tests, static as
// make build and the packages build it.
var binary string

func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "diskdoctor-e2e")
	if err != nil {
		panic(err)
	}
	binary = filepath.Join(dir, "diskdoctor")
	build := exec.Command("go", "build", "-o", binary, ".")
	build.Env = append(os.Environ(), "CGO_ENABLED=0")
	if out, err := build.CombinedOutput(); err != nil {
		os.Stderr.Write(out)
		panic(err)
	}
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}

// runBinary runs the built doctor from the repository root, so that
// --root fixtures/NAME is printed as the golden files have it.
func runBinary(t *testing.T, args ...string) (stdout, stderr []byte, code int) {
	t.Helper()
	cmd := exec.Command(binary, args...)
	cmd.Dir = filepath.Join("..", "..")
	var o, e bytes.Buffer
	cmd.Stdout, cmd.Stderr = &o, &e
	err := cmd.Run()
	var exitErr *exec.ExitError
	switch {
	case errors.As(err, &exitErr):
		code = exitErr.ExitCode()
	case err != nil:
		t.Fatal(err)
	}
	return o.Bytes(), e.Bytes(), code
}

// wantExit pins the exit status of the first fixtures, as their READMEs
// say: critical 2, warning 1, healthy 0; the blind VM must finish without a
// crash and with at most a warning. Every other fixture's exit status must
// match the verdict of its golden expected.json.
var wantExit = map[string]int{
	"hpe-microserver-writethrough": 2,
	"r630-optane-schedutil":        1,
	"nvme-link-degraded":           1,
	"healthy-workstation":          0,
}

var verdictExit = map[string]int{"ok": 0, "warning": 1, "critical": 2}

func TestEndToEndFixtures(t *testing.T) {
	t.Parallel()
	for _, name := range fixtures(t) {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			args := []string{"--root", "fixtures/" + name, "--probe-timeout", "1s"}
			if hasWindow(name) {
				args = append(args, "--sample", "5s")
			}
			stdout, stderr, code := runBinary(t, append(args, "--format", "json")...)
			golden, goldenErr := os.ReadFile(filepath.Join(fixturesDir, name, "expected.json"))
			var want struct {
				Verdict string `json:"verdict"`
			}
			_ = json.Unmarshal(golden, &want)
			switch w, pinned := wantExit[name]; {
			case code == 3:
				t.Errorf("exit 3 (could not examine); stderr: %s", stderr)
			case name == "blind-vm" && code > 1:
				t.Errorf("exit %d, want at most 1; stderr: %s", code, stderr)
			case pinned && code != w:
				t.Errorf("exit %d, want %d; stderr: %s", code, w, stderr)
			case goldenErr == nil && code != verdictExit[want.Verdict]:
				t.Errorf("exit %d, but expected.json's verdict is %q", code, want.Verdict)
			}
			var rep struct {
				Schema  string `json:"schema"`
				Verdict string `json:"verdict"`
			}
			if err := json.Unmarshal(stdout, &rep); err != nil || rep.Schema != "diskdoctor/v1" {
				t.Fatalf("output is not diskdoctor/v1 JSON: %v\n%s", err, stdout)
			}
			// The run's provenance (its time, duration and the binary) is
			// not the machine's: expected.json has none.
			stdout = withoutProvenance(stdout)
			if goldenErr == nil && !bytes.Equal(golden, stdout) {
				t.Errorf("the binary's JSON differs from expected.json\n%s", fixturetest.FirstDiff(golden, stdout))
			}
			// The text report must render too, and without colour when piped.
			text, _, tcode := runBinary(t, args...)
			if tcode != code || bytes.Contains(text, []byte("\x1b[")) {
				t.Errorf("text run: exit %d (json %d), escape codes: %v", tcode, code, bytes.Contains(text, []byte("\x1b[")))
			}
		})
	}
}

func TestBadInvocationsExit3(t *testing.T) {
	t.Parallel()
	for _, args := range [][]string{
		{"--root", "fixtures/does-not-exist"},
		{"--root", "docs"},
		{"--format", "yaml", "--root", "fixtures/healthy-workstation"},
		{"--device", "sdzz", "--root", "fixtures/healthy-workstation"},
		{"--disable-check", "no-such-check", "--root", "fixtures/healthy-workstation"},
		{"explain", "no-such-rule"},
	} {
		if _, stderr, code := runBinary(t, args...); code != 3 || len(stderr) == 0 {
			t.Errorf("%v: exit %d, stderr %q; want 3 with a message", args, code, stderr)
		}
	}
}

func TestRulesAndExplain(t *testing.T) {
	t.Parallel()
	out, _, code := runBinary(t, "rules")
	if code != 0 || !bytes.Contains(out, []byte("write-cache-disabled")) {
		t.Errorf("rules: exit %d\n%s", code, out)
	}
	out, _, code = runBinary(t, "explain", "write-cache-disabled")
	if code != 0 || !bytes.Contains(out, []byte("Why it matters")) || !bytes.Contains(out, []byte("hdparm -W1")) {
		t.Errorf("explain: exit %d\n%s", code, out)
	}
}

// TestLiveLoopWriteCache flips a loop device's queue/write_cache and checks
// that the doctor reports the kernel's state each time. The test, not the
// doctor, writes to sysfs: the doctor only reads.
func TestLiveLoopWriteCache(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("losetup needs root; skipping the live loop-device test")
	}
	img := filepath.Join(t.TempDir(), "loop.img")
	if err := os.WriteFile(img, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.Truncate(img, 16<<20); err != nil {
		t.Fatal(err)
	}
	out, err := exec.Command("losetup", "--find", "--show", img).CombinedOutput()
	if err != nil {
		t.Skipf("losetup not permitted here (%v: %s); skipping the live loop-device test", err, bytes.TrimSpace(out))
	}
	dev := strings.TrimSpace(string(out))
	name := filepath.Base(dev)
	t.Cleanup(func() {
		if out, err := exec.Command("losetup", "-d", dev).CombinedOutput(); err != nil {
			t.Errorf("losetup -d %s: %v %s", dev, err, out)
		}
	})
	wcFile := "/sys/block/" + name + "/queue/write_cache"
	for _, state := range []string{"write back", "write through", "write back"} {
		if err := os.WriteFile(wcFile, []byte(state), 0o644); err != nil {
			t.Skipf("cannot set %s (%v); skipping", wcFile, err)
		}
		stdout, stderr, code := runBinary(t, "--device", name, "--format", "json")
		if code == 3 {
			t.Fatalf("exit 3: %s", stderr)
		}
		var rep struct {
			Devices  []map[string]any `json:"devices"`
			Findings []struct {
				Rule     string   `json:"rule"`
				Subjects []string `json:"subjects"`
			} `json:"findings"`
		}
		if err := json.Unmarshal(stdout, &rep); err != nil {
			t.Fatal(err)
		}
		var found map[string]any
		for _, d := range rep.Devices {
			if d["name"] == name {
				found = d
			}
		}
		if found == nil {
			t.Fatalf("%s not in devices", name)
		}
		if got, want := found["wc_kernel_on"], state == "write back"; got != want {
			t.Errorf("%s at %q: wc_kernel_on = %v, want %v", name, state, got, want)
		}
		if found["judged"] != true {
			t.Errorf("%s named with --device must be judged", name)
		}
		for _, f := range rep.Findings {
			for _, s := range f.Subjects {
				if s != name && s != "host" {
					t.Errorf("finding %s about %s, but only %s was asked for", f.Rule, s, name)
				}
			}
		}
	}
}

// TestLiveMachine runs the doctor on this machine: every real disk in
// /sys/block is reported, or a skipped entry says why. The wall time is
// printed, not asserted.
func TestLiveMachine(t *testing.T) {
	start := time.Now()
	stdout, stderr, code := runBinary(t, "--format", "json")
	wall := time.Since(start)
	if code == 3 {
		t.Fatalf("exit 3: %s", stderr)
	}
	var rep struct {
		Devices []map[string]any `json:"devices"`
		Skipped []map[string]any `json:"skipped"`
	}
	if err := json.Unmarshal(stdout, &rep); err != nil {
		t.Fatal(err)
	}
	seen := map[string]bool{}
	for _, d := range rep.Devices {
		seen[d["name"].(string)] = true
	}
	ents, _ := os.ReadDir("/sys/block")
	for _, e := range ents {
		if hidden, _ := os.ReadFile("/sys/block/" + e.Name() + "/hidden"); strings.TrimSpace(string(hidden)) == "1" {
			continue
		}
		if !seen[e.Name()] {
			t.Errorf("%s is in /sys/block but not in the report", e.Name())
		}
	}
	t.Logf("live run: %d devices, %d skipped entries, wall %s", len(rep.Devices), len(rep.Skipped), wall.Round(time.Millisecond))
}

func TestOutputFileIsWrittenWhole(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	out := filepath.Join(dir, "report.json")
	stdout, stderr, code := runBinary(t, "--root", "fixtures/healthy-workstation", "--format", "json", "--output", out)
	if code != 0 || len(stdout) != 0 {
		t.Fatalf("exit %d, stdout %q, stderr %s", code, stdout, stderr)
	}
	b, err := os.ReadFile(out)
	if err != nil || !json.Valid(b) {
		t.Fatalf("report file: %v, valid JSON: %v", err, json.Valid(b))
	}
	if ents, _ := os.ReadDir(dir); len(ents) != 1 {
		t.Errorf("temporary files left beside the report: %v", ents)
	}
}

func TestNagiosUnknownLine(t *testing.T) {
	t.Parallel()
	stdout, _, code := runBinary(t, "--format", "nagios", "--root", "fixtures/does-not-exist")
	if code != 3 || !bytes.HasPrefix(stdout, []byte("DISKDOCTOR UNKNOWN - ")) {
		t.Errorf("exit %d, stdout %q; want 3 and a DISKDOCTOR UNKNOWN line", code, stdout)
	}
}

var provenanceLines = regexp.MustCompile(`(?s)\n  "tool": \{.*?\n  \},|\n  "started_at": "[^"]*",|\n  "duration_seconds": [0-9.e+-]+,`)

// withoutProvenance is a JSON report without tool, started_at and
// duration_seconds, as renderJSON writes them (one level deep).
func withoutProvenance(b []byte) []byte { return provenanceLines.ReplaceAll(b, nil) }
