package bench

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/diskdoctor/diskdoctor/machine"
)

func TestLockDevice(t *testing.T) {
	dir := t.TempDir()
	release, err := lockDevice(dir, "8:1")
	if err != nil {
		t.Fatal(err)
	}
	// flock(2) locks belong to the open file: a second open in this
	// process is refused as another process would be.
	_, err = lockDevice(dir, "8:1")
	var le *LockedError
	if !errors.As(err, &le) || le.PID != os.Getpid() || !strings.Contains(err.Error(), "--force does not override") {
		t.Fatalf("second lock: %v", err)
	}
	other, err := lockDevice(dir, "8:2")
	if err != nil {
		t.Fatalf("another device is another lock: %v", err)
	}
	if err := other(); err != nil {
		t.Fatal(err)
	}
	if err := release(); err != nil {
		t.Fatal(err)
	}
	again, err := lockDevice(dir, "8:1")
	if err != nil {
		t.Fatalf("after release: %v", err)
	}
	_ = again()

	// A link planted in a world-writable lock directory is not followed.
	victim := filepath.Join(t.TempDir(), "victim")
	if err := os.WriteFile(victim, []byte("keep"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(victim, LockPath(dir, "8:3")); err != nil {
		t.Fatal(err)
	}
	if _, err := lockDevice(dir, "8:3"); err == nil {
		t.Error("a symlinked lock file was followed")
	}
	if b, _ := os.ReadFile(victim); string(b) != "keep" {
		t.Errorf("the link's target was written: %q", b)
	}
}

// heldFio is the live runner whose fio does not return until told: the
// first run holds its target while the second starts.
type heldFio struct {
	*Exec
	started, done chan struct{}
	once          sync.Once
}

func (h *heldFio) LookPath(name string) (string, error) { return name, nil }

func (h *heldFio) Fio(ctx context.Context, _ string, _ []string) ([]byte, []byte, error) {
	h.once.Do(func() { close(h.started) })
	select {
	case <-h.done:
	case <-ctx.Done():
	}
	return nil, nil, errors.New("stopped by the test")
}

// Issue 26: two `bench --force` runs on one directory both exited 0, one
// with half the throughput. The second now exits 3 naming the first's pid,
// --force or not.
func TestBenchSecondRunRefused(t *testing.T) {
	target, locks := t.TempDir(), t.TempDir()
	first := &heldFio{Exec: &Exec{LockDir: locks}, started: make(chan struct{}), done: make(chan struct{})}
	o := Options{Profile: "sync", Runtime: time.Second, Size: 4 * mib, Engine: "psync", Fio: "fio", MaxDepth: 1, Force: true}
	errc := make(chan error, 1)
	go func() {
		_, err := Run(t.Context(), target, o, Env{Host: machine.Live(), Runner: first})
		errc <- err
	}()
	select {
	case <-first.started:
	case err := <-errc:
		t.Fatalf("the first run ended before fio: %v", err)
	case <-time.After(30 * time.Second):
		t.Fatal("the first run did not reach fio")
	}
	second := &heldFio{Exec: &Exec{LockDir: locks}, started: make(chan struct{}), done: make(chan struct{})}
	close(second.done)
	_, err := Run(t.Context(), target, o, Env{Host: machine.Live(), Runner: second})
	var ee *ExitError
	var le *LockedError
	if !errors.As(err, &ee) || ee.Code != 3 || !errors.As(err, &le) || le.PID != os.Getpid() {
		t.Fatalf("second run: want exit 3 naming pid %d, got %v", os.Getpid(), err)
	}
	close(first.done)
	<-errc
	// The first run's end released it.
	release, err := lockDevice(locks, le.DevNo)
	if err != nil {
		t.Fatalf("after the first run: %v", err)
	}
	_ = release()
}
