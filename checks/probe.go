package checks

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/diskdoctor/diskdoctor/machine"
)

// Probe runs f under the probe timeout. A probe that ignores its context
// still cannot hold the check past the deadline.
func Probe[T any](ctx context.Context, env *Env, f func(ctx context.Context) (T, error)) (T, error) {
	return ProbeWithin(ctx, env, env.Opts.ProbeTimeout, f)
}

// ProbeWithin is Probe with its own deadline, for a probe that takes a
// known time by design (a sampling interval) on top of the probe timeout.
func ProbeWithin[T any](ctx context.Context, env *Env, timeout time.Duration, f func(ctx context.Context) (T, error)) (T, error) {
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	type result struct {
		v      T
		err    error
		panicV any
	}
	ch := make(chan result, 1)
	go func() {
		var r result
		defer func() {
			r.panicV = recover()
			ch <- r
		}()
		r.v, r.err = f(ctx)
	}()
	select {
	case r := <-ch:
		if r.panicV != nil {
			panic(r.panicV) // in the check's goroutine, where Run recovers it
		}
		return r.v, r.err
	case <-ctx.Done():
		var zero T
		if errors.Is(ctx.Err(), context.DeadlineExceeded) {
			return zero, fmt.Errorf("%w after %s", machine.ErrTimeout, timeout)
		}
		return zero, ctx.Err()
	}
}

// RunCommand runs a per-device command under the probe timeout, a few at a
// time. A command still running after slotHold gives its slot to the next
// one and keeps its own timeout: it is waiting on its device (a drive that
// stopped answering leaves smartctl in uninterruptible sleep), not using
// the CPU and memory the slots ration, and the commands behind it must not
// wait out its timeout before theirs starts.
func RunCommand[T any](ctx context.Context, env *Env, f func(ctx context.Context) (T, error)) (T, error) {
	if err := env.cmdSlots.acquire(ctx); err != nil {
		var zero T
		return zero, err
	}
	var once sync.Once
	release := func() { once.Do(env.cmdSlots.release) }
	hold := time.AfterFunc(slotHold, release)
	defer func() {
		hold.Stop()
		release()
	}()
	return Probe(ctx, env, f)
}

// slotHold is how long a per-device command holds its slot (RunCommand).
const slotHold = time.Second

// together calls each of fs in a goroutine of its own and waits for them
// all: on a dying machine each command waits out the probe timeout, and
// asked at once they wait it out once. A panic of one is raised again in
// the caller's goroutine, where Run recovers it.
func together(fs ...func()) {
	panics := make([]any, len(fs))
	var wg sync.WaitGroup
	for i, f := range fs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			defer func() { panics[i] = recover() }()
			f()
		}()
	}
	wg.Wait()
	for _, p := range panics {
		if p != nil {
			panic(p)
		}
	}
}
