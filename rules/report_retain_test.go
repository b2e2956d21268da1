package rules

import (
	"encoding/json"
	"fmt"
	"runtime"
	"sync/atomic"
	"testing"

	"github.com/diskdoctor/diskdoctor/checks"
)

func retainResult(collected *atomic.Int64) *checks.Result {
	res := &checks.Result{}
	for i := range 50 {
		o := device(fmt.Sprintf("sd%02d", i), map[string]any{"wc_on": false, "wc_supported": true, "wc_kernel_on": false, "wc_drive_enabled": false})
		if collected != nil {
			runtime.AddCleanup(o, func(c *atomic.Int64) { c.Add(1) }, collected)
		}
		res.Observations = append(res.Observations, o)
	}
	return res
}

// BuildConsuming lets every observation go while the caller still holds
// the result (doctor's Examine: the rules then judge and the report is
// written in a heap without them, docs/performance.md), and its report is
// Build's; Build leaves the result as it was.
func TestBuildConsumingLetsObservationsGo(t *testing.T) {
	ds, _ := LoadDatasheets("")
	e, err := NewEngine(ds)
	if err != nil {
		t.Fatal(err)
	}
	kept := retainResult(nil)
	want, err := e.Build(kept, "/")
	if err != nil {
		t.Fatal(err)
	}
	for i, o := range kept.Observations {
		if o == nil || len(kept.Observations) != 50 {
			t.Fatalf("Build changed its result: observation %d of %d is %v", i, len(kept.Observations), o)
		}
	}

	var collected atomic.Int64
	res := retainResult(&collected)
	rep, err := e.BuildConsuming(res, "/")
	if err != nil {
		t.Fatal(err)
	}
	if len(rep.Devices) != 50 || len(rep.Findings) == 0 {
		t.Fatalf("the report has %d devices and %d findings, want 50 and some (the write cache off)", len(rep.Devices), len(rep.Findings))
	}
	a, _ := json.Marshal(want)
	b, _ := json.Marshal(rep)
	if string(a) != string(b) {
		t.Errorf("BuildConsuming's report differs from Build's:\n%.400s\n%.400s", b, a)
	}
	// Cleanups run on their own goroutine after the cycle that found the
	// object unreachable.
	for range 20 {
		if collected.Load() == 50 {
			break
		}
		runtime.GC()
		runtime.Gosched()
	}
	if got := collected.Load(); got != 50 {
		t.Errorf("with the report and the result still held: %d of the 50 observations collected", got)
	}
	runtime.KeepAlive(res)
	runtime.KeepAlive(rep)
}
