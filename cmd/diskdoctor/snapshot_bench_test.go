package main

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"syscall"
	"testing"
	"time"

	"github.com/diskdoctor/diskdoctor/doctor"
	"github.com/diskdoctor/diskdoctor/snapshot"
)

// cpuTime is the CPU this process has used, user and system: on a shared
// machine a steadier measure than the wall clock.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	_ = syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

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
	var checks, snaps, checkCPU, snapCPU []time.Duration
	var size int64
	for i := range 3 {
		start, cpu := time.Now(), cpuTime()
		var out bytes.Buffer
		if code, err := runDoctor(ctx, options{Options: doctor.Options{Root: machine, Context: "auto", ProbeTimeout: 5 * time.Second}, format: "json", color: "never"}, &out, io.Discard); err != nil || code == 3 {
			t.Fatalf("check: exit %d, %v", code, err)
		}
		checks, checkCPU = append(checks, time.Since(start)), append(checkCPU, cpuTime()-cpu)

		file := filepath.Join(t.TempDir(), "snap.tar.gz")
		start, cpu = time.Now(), cpuTime()
		if err := snapshot.Take(ctx, snapshot.TakeOptions{Output: file, Root: machine, RecordOptions: snapshot.RecordOptions{ProbeTimeout: 5 * time.Second}}, io.Discard, io.Discard); err != nil {
			t.Fatalf("snapshot %d: %v", i, err)
		}
		snaps, snapCPU = append(snaps, time.Since(start)), append(snapCPU, cpuTime()-cpu)
		st, err := os.Stat(file)
		if err != nil {
			t.Fatal(err)
		}
		size = st.Size()
	}
	c, s, cc, sc := median(checks), median(snaps), median(checkCPU), median(snapCPU)
	line := fmt.Sprintf("bench: %d disks: check %s wall %s CPU, snapshot %s wall %s CPU (%.2f× the check's wall, %.2f× its CPU; goal ≤ 2×), archive %.2f MB (goal < 5 MB)",
		benchDisks, c.Round(time.Millisecond), cc.Round(time.Millisecond), s.Round(time.Millisecond), sc.Round(time.Millisecond),
		float64(s)/float64(c), float64(sc)/float64(cc), float64(size)/1e6)
	t.Log(line)
	fmt.Println(line) // make bench shows lines starting with "bench:"
}
