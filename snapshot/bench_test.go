package snapshot

import (
	"io"
	"testing"
	"time"

	"github.com/diskdoctor/diskdoctor/internal/fixturetest"
	"github.com/diskdoctor/diskdoctor/machine"
)

// BenchmarkSnapshot records the machine at $DISKDOCTOR_BENCH_ROOT (the
// synthetic 1,000-disk machine of cmd/diskdoctor's TestWriteSyntheticMachine)
// and writes its archive, as `diskdoctor snapshot --root` does: the
// profile of issue #14's snapshot goal (go test -bench Snapshot -cpuprofile).
func BenchmarkSnapshot(b *testing.B) {
	root := fixturetest.BenchMachine(b)
	for b.Loop() {
		src, err := machine.Recorded(root)
		if err != nil {
			b.Fatal(err)
		}
		rec, err := Record(b.Context(), src, RecordOptions{ProbeTimeout: 5 * time.Second})
		if err != nil {
			b.Fatal(err)
		}
		now := time.Now()
		if _, err := WriteArchive(io.Discard, rec, rec.Meta("bench", root, now).Marshal(), now); err != nil {
			b.Fatal(err)
		}
	}
}
