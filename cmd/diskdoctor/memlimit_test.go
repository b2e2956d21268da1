package main

import (
	"math"
	"runtime/debug"
	"testing"
)

// TestLimitMemoryLeavesGOMEMLIMITAlone: the soft limit is set when the
// environment has none, and a GOMEMLIMIT given (a value, or off) is the
// runtime's, untouched.
func TestLimitMemoryLeavesGOMEMLIMITAlone(t *testing.T) {
	before := debug.SetMemoryLimit(-1)
	defer debug.SetMemoryLimit(before)
	for _, c := range []struct {
		env  string
		want int64
	}{
		{"", softMemoryLimit},
		{"off", math.MaxInt64},
		{"1GiB", math.MaxInt64},
	} {
		debug.SetMemoryLimit(math.MaxInt64)
		limitMemory(func(k string) string {
			if k == "GOMEMLIMIT" {
				return c.env
			}
			return ""
		})
		if got := debug.SetMemoryLimit(-1); got != c.want {
			t.Errorf("GOMEMLIMIT=%q: limit %d, want %d", c.env, got, c.want)
		}
	}
}
