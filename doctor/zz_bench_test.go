package doctor

import (
	"context"
	"os"
	"testing"

	"github.com/diskdoctor/diskdoctor/checks"
	"github.com/diskdoctor/diskdoctor/probes"
	"github.com/diskdoctor/diskdoctor/rules"
)

func BenchmarkZZBuild(b *testing.B) {
	if _, err := os.Stat("/tmp/m1000"); err != nil {
		b.Skip()
	}
	h, err := probes.Recorded("/tmp/m1000")
	if err != nil {
		b.Fatal(err)
	}
	res, err := checks.Run(context.Background(), h, checks.Options{Context: "auto"})
	if err != nil {
		b.Fatal(err)
	}
	ds, err := rules.LoadHostDatasheets(context.Background(), h, "")
	if err != nil {
		b.Fatal(err)
	}
	e, err := rules.NewEngine(ds)
	if err != nil {
		b.Fatal(err)
	}
	for b.Loop() {
		if _, err := e.Build(res, "/tmp/m1000"); err != nil {
			b.Fatal(err)
		}
	}
}
