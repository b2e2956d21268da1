package parse

import (
	"reflect"
	"sort"
	"testing"
)

func TestNaturalLess(t *testing.T) {
	in := []string{"sdaa", "sdb", "nvme10n1", "sda", "sdz", "nvme2n1", "nvme2n1p10", "nvme2n1p2"}
	want := []string{"nvme2n1", "nvme2n1p2", "nvme2n1p10", "nvme10n1", "sda", "sdb", "sdz", "sdaa"}
	got := append([]string(nil), in...)
	sortStrings(got)
	if !reflect.DeepEqual(got, want) {
		t.Errorf("got %v, want %v", got, want)
	}
}

func sortStrings(s []string) { sort.Slice(s, func(i, j int) bool { return NaturalLess(s[i], s[j]) }) }

// NaN and the infinities are not numbers any kernel or tool prints
// (class 10 of the hostile roots, machine/hostile_test.go).
func TestFiniteRefusesNonFinite(t *testing.T) {
	for _, v := range []string{"nan", "NaN", "inf", "+Inf", "-inf", "1e999"} {
		if _, err := Finite(v); err == nil {
			t.Errorf("parseFinite(%q) accepted it", v)
		}
		if f := Float(v); f != 0 {
			t.Errorf("parseFloat(%q) = %v", v, f)
		}
	}
}
