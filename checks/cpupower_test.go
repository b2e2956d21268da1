package checks

import "testing"

// The median of an even count of CPUs is the mean of the two middle
// clocks, not the upper one.
func TestMHzSummaryMedian(t *testing.T) {
	got := mhzSummary([]float64{2900, 3700, 4600, 3100, 4200, 3300, 4000, 2950})
	if want := "cpu MHz min 2900, median 3500, max 4600 over 8 CPUs"; got != want {
		t.Errorf("%q, want %q", got, want)
	}
	if got := mhzSummary([]float64{1200, 1300, 1400}); got != "cpu MHz min 1200, median 1300, max 1400 over 3 CPUs" {
		t.Errorf("%q", got)
	}
}
