package doctor

import (
	"testing"
	"time"
)

// A recorded machine keeps its report: the default window (LiveWindow) is
// for this machine only, and a recording with a window replays it only
// when --sample asks (issue #25: goldens of fixtures do not change).
func TestDefaultWindowOnlyLive(t *testing.T) {
	root := "../fixtures/nvme-busy-healthy" // has samples/window.yaml
	rep, err := Examine(t.Context(), Options{Root: root, LiveWindow: DefaultLiveWindow})
	if err != nil {
		t.Fatal(err)
	}
	if rep.Sample != nil {
		t.Errorf("%s without --sample took a window: %+v", root, rep.Sample)
	}
	rep, err = Examine(t.Context(), Options{Root: root, Sample: time.Second})
	if err != nil {
		t.Fatal(err)
	}
	if rep.Sample == nil || rep.Sample.Default || rep.Sample.Source != "samples/window.yaml" {
		t.Errorf("%s with --sample: %+v, want its recorded window", root, rep.Sample)
	}
}

// The machine of issue #25 (fixtures/bench-vm-loop: cpu some avg10=89.63
// avg60=82.25) before a benchmark: cpu-pressure-high; judged for health
// (a VM), none.
func TestCPUPressureOnTheBusyVM(t *testing.T) {
	for ctx, want := range map[string]bool{"benchmark": true, "auto": false} {
		rep, err := Examine(t.Context(), Options{Root: "../fixtures/bench-vm-loop", Context: ctx})
		if err != nil {
			t.Fatal(err)
		}
		got := false
		for _, f := range rep.Findings {
			got = got || f.Rule == "cpu-pressure-high"
		}
		if got != want {
			t.Errorf("--context %s: cpu-pressure-high %v, want %v", ctx, got, want)
		}
	}
}
