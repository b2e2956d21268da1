// Package parallel runs independent pieces of work on a few goroutines.
package parallel

import (
	"sync"
	"sync/atomic"
)

// Each calls f(0) ... f(n-1) on at most workers goroutines, each taking the
// next index (no channel hand-offs: on a machine of a thousand disks a
// goroutine per item only contends on a couple of cores), and returns when
// all are done. With one worker it calls f in order in the caller. A panic
// in f stops the others from taking more and is raised again in the
// caller, where a run's panics are handled, instead of ending the process
// from a worker.
func Each(n, workers int, f func(i int)) {
	workers = min(workers, n)
	if workers <= 1 {
		for i := range n {
			f(i)
		}
		return
	}
	var next atomic.Int64
	var panicked atomic.Pointer[any]
	var wg sync.WaitGroup
	for range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			defer func() {
				if r := recover(); r != nil {
					panicked.CompareAndSwap(nil, &r)
				}
			}()
			for panicked.Load() == nil {
				i := int(next.Add(1)) - 1
				if i >= n {
					return
				}
				f(i)
			}
		}()
	}
	wg.Wait()
	if r := panicked.Load(); r != nil {
		panic(*r)
	}
}
