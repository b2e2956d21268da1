package parse

import (
	"math"
	"testing"
)

// FuzzParseFinite: what parseFinite accepts is a finite number.
func FuzzParseFinite(f *testing.F) {
	for _, s := range []string{"1", "nan", "-Inf", "1e999", "0x1p-2", " 5 "} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if v, err := Finite(s); err == nil && (math.IsNaN(v) || math.IsInf(v, 0)) {
			t.Fatalf("parseFinite(%q) = %v", s, v)
		}
	})
}
