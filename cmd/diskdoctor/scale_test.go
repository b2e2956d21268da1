package main

import (
	"os"
	"strconv"
	"testing"
)

// TestWriteSyntheticMachine writes a synthetic machine for measurements by
// hand (strace, perf, tar): DISKDOCTOR_SYNTH_OUT=DIR [DISKDOCTOR_SYNTH_N=1000].
func TestWriteSyntheticMachine(t *testing.T) {
	dir := os.Getenv("DISKDOCTOR_SYNTH_OUT")
	if dir == "" {
		t.Skip("set DISKDOCTOR_SYNTH_OUT=DIR to write a synthetic machine there")
	}
	n := benchDisks
	if s := os.Getenv("DISKDOCTOR_SYNTH_N"); s != "" {
		v, err := strconv.Atoi(s)
		if err != nil || v < 1 {
			t.Fatalf("DISKDOCTOR_SYNTH_N=%q: want a positive number of disks", s)
		}
		n = v
	}
	if err := writeSyntheticMachine(dir, n); err != nil {
		t.Fatal(err)
	}
}
