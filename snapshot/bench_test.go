package snapshot

import (
	"io"
	"os"
	"testing"
	"time"

	"github.com/diskdoctor/diskdoctor/probes"
)

// BenchmarkSnapshot records the machine at $DISKDOCTOR_SNAP_ROOT (the
// synthetic 1,000-disk machine of cmd/diskdoctor's TestWriteSyntheticMachine)
// and writes its archive, as `diskdoctor snapshot --root` does: the
// profile of issue #14's snapshot goal (go test -bench Snapshot -cpuprofile).
func BenchmarkSnapshot(b *testing.B) {
	root := os.Getenv("DISKDOCTOR_SNAP_ROOT")
	if root == "" {
		b.Skip("set DISKDOCTOR_SNAP_ROOT to a recorded machine (e.g. one written by DISKDOCTOR_SYNTH_OUT=DIR go test -run TestWriteSyntheticMachine ./cmd/diskdoctor)")
	}
	for b.Loop() {
		src, err := probes.Recorded(root)
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
