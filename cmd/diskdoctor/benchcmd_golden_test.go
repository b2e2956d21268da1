package main

import (
	"bytes"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/mattn/go-runewidth"
)

// benchReplayCommand is the replay as docs/bench.md and the README give
// it: the recorded run's own settings, nothing else to type.
const benchReplayCommand = "diskdoctor bench --root fixtures/bench-vm-loop"

// The documented replay command is in the docs, as a command of its own.
func TestBenchReplayCommandDocumented(t *testing.T) {
	for _, doc := range []string{"README.md", "docs/bench.md"} {
		b, err := os.ReadFile(filepath.Join(fixturesDir, "..", doc))
		if err != nil {
			t.Fatal(err)
		}
		if !regexp.MustCompile(`(?m)^\s*` + regexp.QuoteMeta(benchReplayCommand) + `\s*$`).Match(b) {
			t.Errorf("%s does not give the replay as the line %q", doc, benchReplayCommand)
		}
	}
}

// The recorded bench run of fixtures/bench-vm-loop (real fio 3.33 JSON,
// see its README) replays through the CLI with exactly the documented
// command, and renders its goldens.
func TestBenchRecordedRun(t *testing.T) {
	fx := filepath.Join(fixturesDir, "bench-vm-loop")
	args := strings.Fields(benchReplayCommand)[1:]
	args[2] = fx // fixtures/ as the tests see it
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
		if tc.format == "text" {
			// Laid out for a pipe's 80 columns (issue #25).
			for _, l := range strings.Split(string(got), "\n") {
				if w := runewidth.StringWidth(l); w > 80 {
					t.Errorf("%s: a line of %d columns: %s", tc.golden, w, l)
				}
			}
		}
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
	t.Parallel()
	for _, name := range fixtures(t) {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
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
			// What only the real run watches is said, not passed over.
			if strings.Contains(out, "# Devices under /: ") && !strings.Contains(out, "# Not watched by a dry run: other processes' I/O on ") {
				t.Errorf("the dry run does not say it left other processes' I/O unwatched:\n%s", out)
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
