package parse

import (
	"fmt"
	"math"
	"strconv"
	"strings"
)

// Itoa is strconv.Itoa.
func Itoa(n int) string { return strconv.Itoa(n) }

// atoi returns 0 for anything that is not a non-negative decimal.
func Atoi(s string) int {
	n, err := strconv.Atoi(strings.TrimSpace(s))
	if err != nil || n < 0 {
		return 0
	}
	return n
}

// parseFloat returns 0 for anything that is not a finite number.
func Float(s string) float64 {
	v, err := Finite(s)
	if err != nil {
		return 0
	}
	return v
}

// parseFinite parses a recorded or printed number; NaN and the infinities
// (which strconv accepts as "nan", "inf", "1e999") are not numbers any
// kernel or tool prints, and would poison every figure derived from them.
func Finite(s string) (float64, error) {
	v, err := strconv.ParseFloat(strings.TrimSpace(s), 64)
	if err != nil {
		return 0, err
	}
	if math.IsNaN(v) || math.IsInf(v, 0) {
		return 0, fmt.Errorf("%q is not a finite number", s)
	}
	return v, nil
}
