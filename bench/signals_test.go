package bench

import (
	"context"
	"errors"
	"os"
	"strings"
	"syscall"
	"testing"
	"time"
)

func TestWatchSignalsHangup(t *testing.T) {
	ctx, sig := WatchSignals(context.Background())
	defer sig.Stop()
	if err := syscall.Kill(os.Getpid(), syscall.SIGHUP); err != nil {
		t.Fatal(err)
	}
	select {
	case <-ctx.Done():
	case <-time.After(10 * time.Second):
		t.Fatal("SIGHUP did not cancel the run")
	}
	if c := context.Cause(ctx); c == nil || !strings.Contains(c.Error(), "hangup received") {
		t.Errorf("cause %v, want the signal", c)
	}
	failed := errors.New("fio: interrupted")
	err := sig.Exit(failed)
	var ee *ExitError
	if !errors.As(err, &ee) || ee.Code != 129 || !errors.Is(err, failed) {
		t.Errorf("Exit = %#v, want exit status 129 wrapping the run's error", err)
	}
	if sig.Stop() != int(syscall.SIGHUP) {
		t.Error("Stop again must return the same signal")
	}
}

func TestWatchSignalsNone(t *testing.T) {
	ctx, sig := WatchSignals(context.Background())
	if ctx.Err() != nil {
		t.Fatal("cancelled before anything happened")
	}
	failed := errors.New("no space")
	if got := sig.Exit(failed); got != failed {
		t.Errorf("without a signal the error is the run's own: %v", got)
	}
	if sig.Stop() != 0 || ctx.Err() == nil {
		t.Error("after Stop: no signal, and the run's context is done")
	}
	if sig.Exit(nil) != nil {
		t.Error("a run that succeeded stays a success")
	}
}
