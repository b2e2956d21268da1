package rules

import (
	"fmt"
	"runtime"
	"sync/atomic"
	"testing"

	"github.com/diskdoctor/diskdoctor/checks"
)

// A report keeps no observation alive, nor the result that held them:
// doctor's Examine lets the checks' result go when Build starts, so that
// the rules judge and the report is written in a heap without them
// (docs/performance.md). A finding's evidence and a device's facts are
// the report's own.
func TestReportHoldsNoObservation(t *testing.T) {
	ds, _ := LoadDatasheets("")
	e, err := NewEngine(ds)
	if err != nil {
		t.Fatal(err)
	}
	var collected atomic.Int64
	res := &checks.Result{}
	for i := range 50 {
		o := device(fmt.Sprintf("sd%02d", i), map[string]any{"wc_on": false, "wc_supported": true, "wc_kernel_on": false, "wc_drive_enabled": false})
		runtime.AddCleanup(o, func(*atomic.Int64) { collected.Add(1) }, &collected)
		res.Observations = append(res.Observations, o)
	}
	runtime.AddCleanup(res, func(*atomic.Int64) { collected.Add(1000) }, &collected)
	rep, err := e.Build(res, "/")
	if err != nil {
		t.Fatal(err)
	}
	res = nil
	if len(rep.Devices) != 50 || len(rep.Findings) == 0 {
		t.Fatalf("the report has %d devices and %d findings, want 50 and some (the write cache off)", len(rep.Devices), len(rep.Findings))
	}
	// Cleanups run on their own goroutine after the cycle that found the
	// object unreachable.
	for range 20 {
		if collected.Load() == 1050 {
			break
		}
		runtime.GC()
		runtime.Gosched()
	}
	if got := collected.Load(); got != 1050 {
		t.Errorf("after Build, with the report still held: %d of the 50 observations and %d of the one result collected", got%1000, got/1000)
	}
	runtime.KeepAlive(rep)
}
