package main

import (
	"bytes"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// The recorded bench run of fixtures/bench-vm-loop (real fio 3.33 JSON,
// see its README) replays through the CLI and renders its goldens.
func TestBenchRecordedRun(t *testing.T) {
	fx := filepath.Join(fixturesDir, "bench-vm-loop")
	args := []string{"bench", "--root", fx, "--replay-pid", "4242", "--size", "256m", "--runtime", "3", "--color", "never", "/mnt/ddbench"}
	elapsed := regexp.MustCompile(`"(elapsed|preflight|prepare)_s": [0-9.e-]+`)
	// With datasheet figures (the test class figures of the bench tests),
	// the table gains its datasheet and % columns.
	ds := []string{"--datasheets", benchTestDatasheets(t)}
	for _, tc := range []struct {
		format, golden string
		extra          []string
	}{{"text", "expected-bench.txt", nil}, {"json", "expected-bench.json", nil}, {"text", "expected-bench-datasheet.txt", ds}} {
		var stdout, stderr bytes.Buffer
		if code := run(t.Context(), append(append(args, tc.extra...), "--format", tc.format), &stdout, &stderr); code != 0 {
			t.Fatalf("%s: exit %d: %s", tc.format, code, stderr.String())
		}
		got := elapsed.ReplaceAll(stdout.Bytes(), []byte(`"${1}_s": 0`))
		gp := filepath.Join(fx, tc.golden)
		if *update {
			if err := os.WriteFile(gp, got, 0o644); err != nil {
				t.Fatal(err)
			}
			continue
		}
		want, err := os.ReadFile(gp)
		if err != nil {
			t.Fatalf("%v (go test ./cmd/diskdoctor -run TestBenchRecordedRun -update)", err)
		}
		if !bytes.Equal(got, want) {
			t.Errorf("%s differs from %s:\n%s", tc.format, gp, got)
		}
	}
}

// Bench's preflight runs on every recorded machine: the dry run examines
// it through the same Host as the doctor and prints its checks.
func TestBenchPreflightEveryFixture(t *testing.T) {
	for _, name := range fixtures(t) {
		t.Run(name, func(t *testing.T) {
			var stdout, stderr bytes.Buffer
			code := run(t.Context(), []string{"bench", "--root", filepath.Join(fixturesDir, name), "--dry-run", "--probe-timeout", "1s", "/"}, &stdout, &stderr)
			if code != 0 {
				t.Fatalf("exit %d: %s", code, stderr.String())
			}
			out := stdout.String()
			if !strings.Contains(out, "# Preflight: ") || strings.Count(out, "\nstonewall\n") != 8 {
				t.Fatalf("no preflight or jobs:\n%s", out)
			}
			if !strings.Contains(out, "# Devices under /: ") && !strings.Contains(out, "bench-no-device") {
				t.Errorf("neither the devices under / nor why there are none:\n%s", out)
			}
			if strings.Contains(out, "bench-doctor-failed") {
				t.Errorf("the doctor failed on the fixture:\n%s", out)
			}
		})
	}
	// The machine of incident A: its pool's write-cache finding is named.
	var stdout bytes.Buffer
	run(t.Context(), []string{"bench", "--root", filepath.Join(fixturesDir, "hpe-microserver-writethrough"), "--dry-run", "/"}, &stdout, &bytes.Buffer{})
	t.Log(stdout.String())
}
