package report

import (
	"context"
	"io"
	"testing"

	"github.com/diskdoctor/diskdoctor/doctor"
	"github.com/diskdoctor/diskdoctor/internal/fixturetest"
)

// BenchmarkRenderJSON writes the JSON report of the recorded machine at
// $DISKDOCTOR_BENCH_ROOT (the synthetic 1,000-disk machine of
// cmd/diskdoctor's TestWriteSyntheticMachine): the last part of a run.
func BenchmarkRenderJSON(b *testing.B) {
	root := fixturetest.BenchMachine(b)
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
