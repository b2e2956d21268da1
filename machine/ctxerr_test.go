package machine

import (
	"context"
	"errors"
	"testing"
)

// A probe that ran past its deadline says "timed out" and matches both
// ErrTimeout and the context's error, without the context package's words.
func TestCtxErrSaysTimedOut(t *testing.T) {
	err := CtxErr(context.DeadlineExceeded)
	if !errors.Is(err, ErrTimeout) || !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("%v does not match ErrTimeout and DeadlineExceeded", err)
	}
	if got := err.Error(); got != "timed out" {
		t.Errorf("CtxErr(DeadlineExceeded) = %q, want %q", got, "timed out")
	}
	if err := CtxErr(context.Canceled); !errors.Is(err, context.Canceled) || errors.Is(err, ErrTimeout) {
		t.Errorf("CtxErr(Canceled) = %v, want the cancellation unchanged", err)
	}
}
