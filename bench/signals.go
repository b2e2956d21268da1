package bench

import (
	"context"
	"fmt"
	"os"
	"os/signal"
	"sync"
	"sync/atomic"
	"syscall"
)

// Signals watches for SIGHUP, SIGINT and SIGTERM during a run: each alike
// cancels the run's context, which stops fio's process group and removes
// the test file, and gives the run the signal's exit status, 128+N.
type Signals struct {
	cancel     context.CancelCauseFunc
	sigs       chan os.Signal
	stop, done chan struct{}
	got        atomic.Int32
	once       sync.Once
}

// WatchSignals starts the watch; the context it returns is cancelled by
// the first of those signals, with the signal as its cause. Call Stop when
// the run has ended.
func WatchSignals(ctx context.Context) (context.Context, *Signals) {
	ctx, cancel := context.WithCancelCause(ctx)
	s := &Signals{cancel: cancel, sigs: make(chan os.Signal, 1), stop: make(chan struct{}), done: make(chan struct{})}
	signal.Notify(s.sigs, syscall.SIGHUP, syscall.SIGINT, syscall.SIGTERM)
	go func() {
		defer close(s.done)
		record := func(sig os.Signal) {
			s.got.Store(int32(sig.(syscall.Signal)))
			cancel(fmt.Errorf("%s received", sig))
		}
		select {
		case sig := <-s.sigs:
			record(sig)
		case <-s.stop:
			// main's own handler may have cancelled first: the signal is
			// still waiting here.
			select {
			case sig := <-s.sigs:
				record(sig)
			default:
			}
		}
	}()
	return ctx, s
}

// Stop ends the watch, cancels the context, and returns the signal that
// ended the run, 0 for none. Calling it again returns the same.
func (s *Signals) Stop() int {
	s.once.Do(func() {
		close(s.stop)
		<-s.done
		signal.Stop(s.sigs)
		s.cancel(nil)
	})
	return int(s.got.Load())
}

// Exit stops the watch and gives a failed run the exit status of the
// signal that ended it (128+N), when one did.
func (s *Signals) Exit(err error) error {
	if sig := s.Stop(); err != nil && sig != 0 {
		return &ExitError{Code: 128 + sig, Err: err}
	}
	return err
}
