package window

import (
	"fmt"
	"math"
	"testing"

	"github.com/prometheus/procfs/blockdevice"
)

// FuzzParseWindowFile: a recorded window is refused or has a finite,
// bounded length.
func FuzzParseWindowFile(f *testing.F) {
	for _, s := range []string{"seconds: 5\n", "seconds: .nan\n", "seconds: 1e-300\n", "seconds: [1]\n", "secs: 5\n", ""} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		wf, err := parseWindowFile(b)
		if err == nil && (math.IsNaN(wf.Seconds) || math.IsInf(wf.Seconds, 0) || wf.Seconds < minWindowSeconds || wf.Seconds > maxWindowSeconds) {
			t.Fatalf("accepted a window of %v s", wf.Seconds)
		}
	})
}

// FuzzRates: over any window the parser accepts, any two readings of the
// counters (wrapped, reset, huge) give finite rates.
func FuzzRates(f *testing.F) {
	f.Add(uint64(1), uint64(8), uint64(4), uint64(2), uint64(16), uint64(9), uint64(100), 5.0)
	f.Fuzz(func(t *testing.T, ios, sectors, ticks, ios2, sectors2, ticks2, io uint64, secs float64) {
		if _, err := parseWindowFile([]byte(fmt.Sprintf("seconds: %v\n", secs))); err != nil {
			return
		}
		a := blockdevice.IOStats{ReadIOs: ios, ReadSectors: sectors, ReadTicks: ticks, WriteIOs: ios, WriteSectors: sectors, WriteTicks: ticks, IOsTotalTicks: io, WeightedIOTicks: io}
		b := blockdevice.IOStats{ReadIOs: ios2, ReadSectors: sectors2, ReadTicks: ticks2, WriteIOs: ios2, WriteSectors: sectors2, WriteTicks: ticks2, IOsTotalTicks: io * 3, WeightedIOTicks: io * 5}
		r := Rates("sda", a, b, secs)
		for _, v := range []float64{r.RS, r.WS, r.RMBs, r.WMBs, r.RAwaitMs, r.WAwaitMs, r.RareqKiB, r.WareqKiB, r.AquSz, r.UtilPct} {
			if math.IsNaN(v) || math.IsInf(v, 0) {
				t.Fatalf("rates %+v over %v s", r, secs)
			}
		}
	})
}
