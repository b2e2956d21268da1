package bench

import (
	"fmt"
	"sync"
	"time"
)

// tick prints "[i/n] test: elapsed / total" every quarter second until the
// returned stop is called.
func (b *run) tick(what string, d time.Duration) func() {
	if b.progress == nil {
		return func() {}
	}
	if b.progStart.IsZero() {
		b.progStart = time.Now()
	}
	start := time.Now()
	done := make(chan struct{})
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		t := time.NewTicker(250 * time.Millisecond)
		defer t.Stop()
		for {
			b.progMu.Lock()
			total := time.Since(b.progStart).Round(time.Second)
			fmt.Fprintf(b.progress, "\r\033[K%s: %s / %s   (all tests: %s / ~%s)", what,
				time.Since(start).Round(100*time.Millisecond), d, total, b.progTotal.Round(time.Second))
			b.progMu.Unlock()
			select {
			case <-done:
				return
			case <-t.C:
			}
		}
	}()
	return func() {
		close(done)
		wg.Wait()
	}
}

func (b *run) progressFunc(what string) func(done, total uint64) {
	if b.progress == nil {
		return nil
	}
	return func(done, total uint64) {
		fmt.Fprintf(b.progress, "\r\033[K%s: %s / %s", what, Size(done), Size(total))
	}
}

func (b *run) endProgress() {
	if b.progress != nil {
		fmt.Fprint(b.progress, "\r\033[K")
	}
}
