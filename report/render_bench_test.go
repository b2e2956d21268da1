package report

import (
	"context"
	"io"
	"os"
	"testing"

	"github.com/diskdoctor/diskdoctor/doctor"
)

// BenchmarkRenderJSON writes the JSON report of the recorded machine at
// $DISKDOCTOR_BENCH_ROOT (the synthetic 1,000-disk machine of
// cmd/diskdoctor's TestWriteSyntheticMachine): the last part of a run.
func BenchmarkRenderJSON(b *testing.B) {
	root := os.Getenv("DISKDOCTOR_BENCH_ROOT")
	if root == "" {
		b.Skip("set DISKDOCTOR_BENCH_ROOT to a recorded machine (e.g. one written by DISKDOCTOR_SYNTH_OUT=DIR go test -run TestWriteSyntheticMachine ./cmd/diskdoctor)")
	}
	rep, err := doctor.Examine(context.Background(), doctor.Options{Root: root})
	if err != nil {
		b.Fatal(err)
	}
	for b.Loop() {
		if err := renderJSON(io.Discard, rep, RunInfo{}); err != nil {
			b.Fatal(err)
		}
	}
}
