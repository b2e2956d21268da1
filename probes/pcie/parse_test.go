package pcie

import (
	"testing"
)

func TestParseLinkSpeed(t *testing.T) {
	tests := map[string]float64{
		"16.0 GT/s PCIe": 16, "8.0 GT/s PCIe": 8, "2.5 GT/s": 2.5, "5 GT/s": 5,
		"Unknown": 0, "": 0, "255 GT/s PCIe": 0, "-8 GT/s": 0, "x GT/s": 0, "8.0 Gb/s": 0,
	}
	for in, want := range tests {
		if got := ParseSpeed(in); got != want {
			t.Errorf("ParseLinkSpeed(%q) = %v, want %v", in, got, want)
		}
	}
}
