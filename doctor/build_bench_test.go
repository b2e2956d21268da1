package doctor

import (
	"context"
	"testing"

	"github.com/diskdoctor/diskdoctor/checks"
	"github.com/diskdoctor/diskdoctor/internal/fixturetest"
	"github.com/diskdoctor/diskdoctor/machine"
	"github.com/diskdoctor/diskdoctor/rules"
)

// BenchmarkEngineBuild judges the observations of the recorded machine at
// $DISKDOCTOR_BENCH_ROOT (the synthetic 1,000-disk machine of
// cmd/diskdoctor's TestWriteSyntheticMachine): the rules' part of a run,
// apart from the checks that feed it (docs/performance.md, fifth pass).
func BenchmarkEngineBuild(b *testing.B) {
	root := fixturetest.BenchMachine(b)
	ctx := context.Background()
	h, err := machine.Recorded(root)
	if err != nil {
		b.Fatal(err)
	}
	res, err := checks.Run(ctx, h, checks.Options{Context: "auto"})
	if err != nil {
		b.Fatal(err)
	}
	ds, err := rules.LoadHostDatasheets(ctx, h, "")
	if err != nil {
		b.Fatal(err)
	}
	e, err := rules.NewEngine(ds)
	if err != nil {
		b.Fatal(err)
	}
	for b.Loop() {
		if _, err := e.Build(res, root); err != nil {
			b.Fatal(err)
		}
	}
}
