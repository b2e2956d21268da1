package checks

import (
	"context"
	"sync"
	"sync/atomic"
)

// semaphore bounds how many of something run at once.
type semaphore chan struct{}

func newSemaphore(n int) semaphore { return make(semaphore, n) }

// acquire takes a slot, or gives up when ctx ends.
func (s semaphore) acquire(ctx context.Context) error {
	select {
	case s <- struct{}{}:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

func (s semaphore) release() { <-s }

// forEach calls f(i) for every i below n on at most workers goroutines,
// each taking the next index. Per-device work runs this way rather than a
// goroutine per device: on a machine of a thousand disks, a thousand
// goroutines queued on the command slots only contend (futex, spinning)
// on a couple of cores. workers should be the command slots' size, so that
// as many commands run at once as before.
func forEach(n, workers int, f func(i int)) {
	workers = min(workers, n)
	if workers <= 1 {
		for i := range n {
			f(i)
		}
		return
	}
	var next atomic.Int64
	var wg sync.WaitGroup
	for range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				i := int(next.Add(1)) - 1
				if i >= n {
					return
				}
				f(i)
			}
		}()
	}
	wg.Wait()
}
