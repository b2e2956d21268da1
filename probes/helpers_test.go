package probes

import (
	"context"
	"flag"
	"sort"
	"testing"
	"time"
)

func ptr[T any](v T) *T { return &v }

func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

func sortStrings(s []string) { sort.Slice(s, func(i, j int) bool { return NaturalLess(s[i], s[j]) }) }

func contextWithTimeout(ctx context.Context) (context.Context, context.CancelFunc) {
	return context.WithTimeout(ctx, 50*time.Millisecond)
}

// update is accepted by every package so that `go test ./... -update`
// works; this package has no golden files.
var _ = flag.Bool("update", false, "rewrite golden files")
