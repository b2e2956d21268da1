package window

import (
	"errors"
	"math"
	"testing"

	"github.com/diskdoctor/diskdoctor/machine"
	"github.com/prometheus/procfs"
	"github.com/prometheus/procfs/blockdevice"
)

// The HPE restore of domain.md §1A over a 5-second window, computed by hand
// with sysstat's formulas:
//
//	w/s     = 290 IOs / 5 s                         = 58
//	wMB/s   = 73,242 sectors × 512 B / 5 s / 10^6   = 7.4999808
//	w_await = 18,850 ms / 290 IOs                   = 65 ms
//	wareq   = 73,242 / 2 / 290                      = 126.279… KiB
//	aqu-sz  = 37,700 ms / 5 s / 1000                = 7.54
//	%util   = 5,000 ms / 5 s / 10                   = 100
//	r/s     = 4 / 5 = 0.8; rMB/s = 24 × 512 / 5 / 10^6 = 0.0024576; r_await = 8 / 4 = 2 ms
func TestRatesHandComputed(t *testing.T) {
	a := blockdevice.IOStats{ReadIOs: 1000, ReadSectors: 50000, ReadTicks: 3000, WriteIOs: 20000, WriteSectors: 9000000, WriteTicks: 100000, IOsTotalTicks: 777000, WeightedIOTicks: 5000000}
	b := a
	b.ReadIOs += 4
	b.ReadSectors += 24
	b.ReadTicks += 8
	b.WriteIOs += 290
	b.WriteSectors += 73242
	b.WriteTicks += 18850
	b.IOsTotalTicks += 5000
	b.WeightedIOTicks += 37700
	r := Rates("sda", a, b, 5)
	want := DeviceRates{Name: "sda", RS: 0.8, WS: 58, RMBs: 0.0024576, WMBs: 7.4999808, RAwaitMs: 2, WAwaitMs: 65,
		RareqKiB: 3, WareqKiB: 73242.0 / 2 / 290, AquSz: 7.54, UtilPct: 100}
	if !ratesEqual(r, want) {
		t.Errorf("got  %+v\nwant %+v", r, want)
	}
}

func TestRatesEdgeCases(t *testing.T) {
	a := blockdevice.IOStats{ReadIOs: 100, WriteIOs: 100, IOsTotalTicks: 1000}
	// Counters that went backwards (device re-added) count as zero.
	if r := Rates("x", a, blockdevice.IOStats{}, 1); r.RS != 0 || r.WS != 0 || r.UtilPct != 0 {
		t.Errorf("backwards counters: %+v", r)
	}
	// No window, no rates; no I/O, no await (not NaN).
	if r := Rates("x", a, a, 0); r != (DeviceRates{Name: "x"}) {
		t.Errorf("zero window: %+v", r)
	}
	if r := Rates("x", a, a, 1); math.IsNaN(r.WAwaitMs) || r.WAwaitMs != 0 {
		t.Errorf("idle device: %+v", r)
	}
	// io_ticks can exceed the window by rounding; %util caps at 100.
	b := a
	b.IOsTotalTicks += 1100
	if r := Rates("x", a, b, 1); r.UtilPct != 100 {
		t.Errorf("util = %v, want 100", r.UtilPct)
	}
}

func TestStallPct(t *testing.T) {
	a := &procfs.PSILine{Total: 1_000_000}
	b := &procfs.PSILine{Total: 1_000_000 + 4_500_000}
	if pct, ok := StallPct(a, b, 5); !ok || math.Abs(pct-90) > 1e-9 {
		t.Errorf("StallPct = %v %v, want 90", pct, ok)
	}
	if _, ok := StallPct(b, a, 5); ok {
		t.Error("a total that went backwards is not a measurement")
	}
	if _, ok := StallPct(nil, b, 5); ok {
		t.Error("nil line")
	}
}

func TestTopProcesses(t *testing.T) {
	w := &Window{Seconds: 2,
		Start: &Counters{Procs: map[int]ProcCounters{10: {PID: 10, Comm: "fio", WriteBytes: 1000}, 20: {PID: 20, Comm: "cron", ReadBytes: 5}, 30: {PID: 30, Comm: "old", WriteBytes: 1 << 30}}},
		End:   &Counters{Procs: map[int]ProcCounters{10: {PID: 10, Comm: "fio", WriteBytes: 201000}, 20: {PID: 20, Comm: "cron", ReadBytes: 5}, 30: {PID: 30, Comm: "new", WriteBytes: 4000}, 40: {PID: 40, Comm: "rsync", ReadBytes: 8000}}},
	}
	got := TopProcesses(w, 10)
	if len(got) != 3 || got[0].Comm != "fio" || got[0].WriteBytesPerS != 100000 || got[1].Comm != "new" || got[1].WriteBytesPerS != 2000 || got[2].Comm != "rsync" {
		t.Errorf("got %+v", got)
	}
}

func ratesEqual(a, b DeviceRates) bool {
	eq := func(x, y float64) bool { return math.Abs(x-y) < 1e-9 }
	return a.Name == b.Name && eq(a.RS, b.RS) && eq(a.WS, b.WS) && eq(a.RMBs, b.RMBs) && eq(a.WMBs, b.WMBs) &&
		eq(a.RAwaitMs, b.RAwaitMs) && eq(a.WAwaitMs, b.WAwaitMs) && eq(a.RareqKiB, b.RareqKiB) && eq(a.WareqKiB, b.WareqKiB) &&
		eq(a.AquSz, b.AquSz) && eq(a.UtilPct, b.UtilPct)
}

// A recorded window of .nan, 1e-300, .inf or a negative length is refused
// at the parser (class 10 of the hostile roots, machine/hostile_test.go).
func TestParseWindowFileNonFinite(t *testing.T) {
	for _, v := range []string{".nan", "1e-300", ".inf", "-.inf", "-5", "0", "1e999", "nan"} {
		if wf, err := parseWindowFile([]byte("seconds: " + v + "\n")); !errors.Is(err, machine.ErrParse) {
			t.Errorf("window seconds %s: %+v, %v; want a refusal", v, wf, err)
		}
	}
	if wf, err := parseWindowFile([]byte("seconds: 5\n")); err != nil || wf.Seconds != 5 {
		t.Errorf("window seconds 5: %+v, %v", wf, err)
	}
}

// Steal over a window: top's 54.3 % st on an EC2 m3.medium
// (coreos/bugs#73) as whole ticks; guest time is in user already and
// does not count twice; no time passed or a missing reading is unknown.
func TestStealPct(t *testing.T) {
	a := &procfs.CPUStat{User: 43200, Nice: 12, System: 6120, Idle: 398000, Iowait: 210, IRQ: 980, SoftIRQ: 150, Steal: 273000, Guest: 100}
	b := *a
	b.Idle += 1.07
	b.IRQ += 0.31
	b.Steal += 1.62
	b.Guest += 5 // counted in user: not a state of its own
	if pct, ok := StealPct(a, &b); !ok || math.Abs(pct-54) > 0.01 {
		t.Errorf("StealPct = %v, %v; want 54", pct, ok)
	}
	if _, ok := StealPct(a, a); ok {
		t.Error("no time passed: want unknown")
	}
	if _, ok := StealPct(nil, &b); ok {
		t.Error("missing reading: want unknown")
	}
}
