package checks

import "context"

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
