package checks

import (
	"context"
	"errors"
	"os"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/diskdoctor/diskdoctor/machine"
)

// TestSharedIsNotTheFirstCallersContext: the first check to ask for a
// shared probe gives up (its context ends); the probe goes on under the
// run's context, and the next check gets the value, computed once.
func TestSharedIsNotTheFirstCallersContext(t *testing.T) {
	var s shared[int]
	var calls atomic.Int32
	release := make(chan struct{})
	compute := func(run context.Context) (int, error) {
		calls.Add(1)
		select {
		case <-release:
			return 42, nil
		case <-run.Done():
			return 0, run.Err()
		}
	}
	first, cancel := context.WithCancel(t.Context())
	time.AfterFunc(10*time.Millisecond, cancel)
	if _, err := s.get(first, t.Context(), compute); !errors.Is(err, context.Canceled) {
		t.Fatalf("the first caller gave up: error %v, want its own context's", err)
	}
	close(release)
	v, err := s.get(t.Context(), t.Context(), compute)
	if v != 42 || err != nil {
		t.Errorf("the second caller got %d, %v; want 42 from the computation the first one started", v, err)
	}
	if n := calls.Load(); n != 1 {
		t.Errorf("computed %d times, want once", n)
	}
}

// TestCheckPanicEndsTheRun: a check that panics makes the run an error
// (exit 3 at the top), never a report without that check's findings.
func TestCheckPanicEndsTheRun(t *testing.T) {
	const name = "zz-test-panic"
	Register(Check{Name: name, Description: "panics when the recorded root has /panic-here (tests only)", Run: func(ctx context.Context, env *Env) []*Observation {
		if env.Host.Exists("/panic-here") {
			// Through a shared probe and ProbeWithin, as a parser would.
			_, _ = Probe(ctx, env, func(context.Context) (int, error) { panic("index out of range [3] with length 3") })
		}
		return nil
	}})
	defer func() { registry = registry[:len(registry)-1] }()

	root := t.TempDir()
	for _, d := range []string{"sys/block", "proc"} {
		if err := mkdirAll(root + "/" + d); err != nil {
			t.Fatal(err)
		}
	}
	if err := writeFile(root+"/panic-here", ""); err != nil {
		t.Fatal(err)
	}
	h, err := machine.Recorded(root)
	if err != nil {
		t.Fatal(err)
	}
	res, err := Run(t.Context(), h, Options{ProbeTimeout: time.Second})
	if err == nil || !strings.Contains(err.Error(), "check "+name+" crashed") || !strings.Contains(err.Error(), "index out of range") {
		t.Fatalf("result %v, error %v; want the crash as the run's error", res != nil, err)
	}
}

func mkdirAll(p string) error { return os.MkdirAll(p, 0o755) }

func writeFile(p, s string) error { return os.WriteFile(p, []byte(s), 0o644) }
