package main

import (
	"math"
	"runtime/debug"
	"testing"
)

// TestLimitMemoryLeavesGOMEMLIMITAlone: the soft limit is set when the
// environment has none, and a GOMEMLIMIT given (a value, or off) is the
// runtime's, untouched; one the entry point hid from the runtime is
// applied as the runtime would have.
func TestLimitMemoryLeavesGOMEMLIMITAlone(t *testing.T) {
	before := debug.SetMemoryLimit(-1)
	defer debug.SetMemoryLimit(before)
	defer debug.SetGCPercent(debug.SetGCPercent(100)) // limitMemory sets it too
	for _, c := range []struct {
		env    string
		hidden bool
		want   int64
	}{
		{"", false, softMemoryLimit},
		{"off", false, math.MaxInt64},
		{"1GiB", false, math.MaxInt64},
		{"", true, softMemoryLimit},
		{"off", true, math.MaxInt64},
		{"1GiB", true, 1 << 30},
		{"123456789", true, 123456789},
	} {
		debug.SetMemoryLimit(math.MaxInt64)
		limitMemory(func(k string) string {
			if k == "GOMEMLIMIT" {
				return c.env
			}
			return ""
		}, c.hidden)
		if got := debug.SetMemoryLimit(-1); got != c.want {
			t.Errorf("GOMEMLIMIT=%q hidden %v: limit %d, want %d", c.env, c.hidden, got, c.want)
		}
	}
}

// TestLimitMemoryLeavesGOGCAlone: the collector's pace is set when the
// environment has no GOGC, and a GOGC given is the runtime's.
func TestLimitMemoryLeavesGOGCAlone(t *testing.T) {
	before, limit := debug.SetGCPercent(100), debug.SetMemoryLimit(-1)
	defer debug.SetGCPercent(before)
	defer debug.SetMemoryLimit(limit)
	for _, c := range []struct {
		env  string
		want int
	}{{"", gcPercent}, {"50", 100}, {"off", 100}} {
		debug.SetGCPercent(100)
		limitMemory(func(k string) string {
			if k == "GOGC" {
				return c.env
			}
			return ""
		}, false)
		if got := debug.SetGCPercent(100); got != c.want {
			t.Errorf("GOGC=%q: percent %d, want %d", c.env, got, c.want)
		}
	}
}

// TestRaiseMemoryLimitOnlyRaises: a large machine raises the command's
// limit, a small one leaves it, a process with no limit (a test) keeps
// none, and a GOMEMLIMIT given is never touched.
func TestRaiseMemoryLimitOnlyRaises(t *testing.T) {
	before := debug.SetMemoryLimit(-1)
	defer debug.SetMemoryLimit(before)
	none := func(string) string { return "" }
	given := func(k string) string {
		if k == "GOMEMLIMIT" {
			return "100MiB"
		}
		return ""
	}
	for _, c := range []struct {
		name    string
		getenv  func(string) string
		start   int64
		devices int
		want    int64
	}{
		{"1,000 disks", none, softMemoryLimit, 1000, softMemoryLimit},
		{"4,000 disks", none, softMemoryLimit, 4000, 4000 * memoryPerDevice},
		{"no limit", none, math.MaxInt64, 4000, math.MaxInt64},
		{"GOMEMLIMIT", given, 100 << 20, 4000, 100 << 20},
	} {
		debug.SetMemoryLimit(c.start)
		raiseMemoryLimit(c.getenv, int64(c.devices)*memoryPerDevice)
		if got := debug.SetMemoryLimit(-1); got != c.want {
			t.Errorf("%s: limit %d, want %d", c.name, got, c.want)
		}
	}
}
