package parallel

import (
	"sync/atomic"
	"testing"
)

func TestEachCallsEveryIndexOnce(t *testing.T) {
	for _, workers := range []int{0, 1, 2, 8} {
		var calls [1000]atomic.Int32
		Each(len(calls), workers, func(i int) { calls[i].Add(1) })
		for i := range calls {
			if n := calls[i].Load(); n != 1 {
				t.Fatalf("workers %d: index %d called %d times", workers, i, n)
			}
		}
	}
	Each(0, 4, func(int) { t.Fatal("called with n = 0") })
}

func TestEachRaisesAPanicInTheCaller(t *testing.T) {
	for _, workers := range []int{1, 4} {
		func() {
			defer func() {
				if r := recover(); r != "item 7" {
					t.Errorf("workers %d: recovered %v, want the worker's panic", workers, r)
				}
			}()
			Each(100, workers, func(i int) {
				if i == 7 {
					panic("item 7")
				}
			})
			t.Errorf("workers %d: Each returned after a panic", workers)
		}()
	}
}
