package main

import (
	"bytes"
	"context"
	"io"
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"
)

// TestBenchSnapshotThousandDisks measures issue #14's snapshot goal on the
// synthetic 1,000-disk machine: a snapshot under 2× the check's own time,
// the archive under 5 MB. It reports the medians of alternating runs and
// fails only when a run fails (timings on a shared machine are not a
// verdict).
func TestBenchSnapshotThousandDisks(t *testing.T) {
	if os.Getenv("DISKDOCTOR_BENCH") != "1" {
		t.Skip("set DISKDOCTOR_BENCH=1 to run (make bench)")
	}
	machine := filepath.Join(t.TempDir(), "machine")
	if err := writeSyntheticMachine(machine, benchDisks); err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	var checks, snaps []time.Duration
	var size int64
	for i := range 3 {
		start := time.Now()
		var out bytes.Buffer
		if code, err := doctor(ctx, options{root: machine, format: "json", context: "auto", color: "never", probeTimeout: 5 * time.Second}, &out, io.Discard); err != nil || code == 3 {
			t.Fatalf("check: exit %d, %v", code, err)
		}
		checks = append(checks, time.Since(start))

		file := filepath.Join(t.TempDir(), "snap.tar.gz")
		start = time.Now()
		if err := takeSnapshot(ctx, snapshotOptions{output: file, root: machine, probeTimeout: 5 * time.Second}, io.Discard, io.Discard); err != nil {
			t.Fatalf("snapshot %d: %v", i, err)
		}
		snaps = append(snaps, time.Since(start))
		st, err := os.Stat(file)
		if err != nil {
			t.Fatal(err)
		}
		size = st.Size()
	}
	slices.Sort(checks)
	slices.Sort(snaps)
	c, s := checks[len(checks)/2], snaps[len(snaps)/2]
	t.Logf("bench: %d disks: check %s, snapshot %s (%.2f× the check; goal ≤ 2×), archive %.2f MB (goal < 5 MB)",
		benchDisks, c.Round(time.Millisecond), s.Round(time.Millisecond), float64(s)/float64(c), float64(size)/1e6)
}
