package bench

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"

	"go.yaml.in/yaml/v3"

	"github.com/diskdoctor/diskdoctor/machine"
)

// recorder wraps the live runner and keeps every fio call's argv and
// standard output, for a fixture's commands/manifest.yaml.
type recorder struct {
	*Exec
	dir     string
	entries []manifestEntry
}

type manifestEntry struct {
	Argv   []string `yaml:"argv,flow"`
	Stdout string   `yaml:"stdout"`
	Exit   int      `yaml:"exit,omitempty"`
}

func (r *recorder) Fio(ctx context.Context, fio string, argv []string) ([]byte, []byte, error) {
	stdout, stderr, err := r.Exec.Fio(ctx, fio, argv)
	name := fmt.Sprintf("fio-%02d.out", len(r.entries)+1)
	if werr := os.WriteFile(filepath.Join(r.dir, "commands", name), stdout, 0o644); werr != nil {
		return nil, nil, werr
	}
	e := manifestEntry{Argv: append([]string{"fio"}, argv...), Stdout: name}
	if err != nil {
		e.Exit = 1
	}
	r.entries = append(r.entries, e)
	return stdout, stderr, err
}

// recordedOptions are the options of the recorded run; the replay must use
// the same, or its argv do not match the manifest.
func recordedOptions() Options {
	return Options{Profile: "cdm", Runtime: 3 * time.Second, Size: 256 * mib, Engine: "auto", Fio: "fio", MaxDepth: 256, PID: 4242}
}

// TestRecordBenchRun records a real bench run into a fixture (by hand:
// see fixtures/bench-vm-loop/README.md).
func TestRecordBenchRun(t *testing.T) {
	dir, target := os.Getenv("DISKDOCTOR_BENCH_RECORD"), os.Getenv("DISKDOCTOR_BENCH_TARGET")
	if dir == "" || target == "" {
		t.Skip("set DISKDOCTOR_BENCH_RECORD=FIXTURE and DISKDOCTOR_BENCH_TARGET=DIR to record a bench run")
	}
	rec := &recorder{Exec: &Exec{}, dir: dir}
	res, err := Run(t.Context(), target, recordedOptions(), Env{Host: machine.Live(), Runner: rec})
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("%d rows", len(res.Rows))
	mpath := filepath.Join(dir, "commands", "manifest.yaml")
	old, err := os.ReadFile(mpath)
	if err != nil {
		t.Fatal(err)
	}
	add, err := yaml.Marshal(rec.entries)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(mpath, append(append(old, "# Recorded by bench/record_test.go: a diskdoctor bench run's fio calls.\n"...), add...), 0o644); err != nil {
		t.Fatal(err)
	}
}
