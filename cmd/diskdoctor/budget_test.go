package main

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"testing"
	"time"
)

// TestBenchBudget prints the figures of docs/performance.md's budget in one
// run: the 1,000- and 4,000-disk synthetic machines against the tar floor of
// the same tree, the live default run (its 1 s window included) and the
// recorded machines whose programs hang. With DISKDOCTOR_BENCH_BASELINE
// naming another build of the doctor (make bench BASELINE=<git ref>), each
// figure is measured for both binaries in alternating runs, side by side.
// The figures are measurements, not assertions.
func TestBenchBudget(t *testing.T) {
	if os.Getenv("DISKDOCTOR_BENCH") != "1" {
		t.Skip("writes 5,000 synthetic disks (about 2 minutes): set DISKDOCTOR_BENCH=1 to run (make bench)")
	}
	runs := 5
	if s := os.Getenv("DISKDOCTOR_BENCH_RUNS"); s != "" {
		if v, err := strconv.Atoi(s); err == nil && v > 0 {
			runs = v
		}
	}
	bins := []struct{ label, path string }{{"this tree", binary}}
	if b := os.Getenv("DISKDOCTOR_BENCH_BASELINE"); b != "" {
		bins = append(bins, struct{ label, path string }{"baseline", b})
	}
	type figures struct {
		walls, cpus []time.Duration
		rss         []int64
	}
	first := map[string]time.Duration{}
	for _, disks := range []int{benchDisks, 4 * benchDisks} {
		dir := filepath.Join(t.TempDir(), "m")
		if err := writeSyntheticMachine(dir, disks); err != nil {
			t.Fatal(err)
		}
		tarFloor(t, dir) // warm the page cache for every reader
		var tars []time.Duration
		got := make([]figures, len(bins))
		for range runs {
			tars = append(tars, tarFloor(t, dir))
			for i, b := range bins {
				r := measureBinary(t, b.path, "--root", dir, "--format", "json")
				got[i].walls, got[i].cpus = append(got[i].walls, r.wall), append(got[i].cpus, r.cpu)
				got[i].rss = append(got[i].rss, r.rssKiB)
			}
		}
		floor := median(tars)
		fmt.Printf("bench: %d disks: tar floor %s; median of %d alternating runs\n", disks, ms(floor), runs)
		for i, b := range bins {
			wall := median(got[i].walls)
			line := fmt.Sprintf("bench:   %-9s wall %s (%.2fx tar), cpu %s, %s", b.label, ms(wall),
				float64(wall)/float64(floor), ms(median(got[i].cpus)), peakRSS(got[i].rss))
			if f, ok := first[b.label]; ok {
				line += fmt.Sprintf("; %.2fx the %d-disk time", float64(wall)/float64(f), benchDisks)
			} else {
				first[b.label] = wall
			}
			fmt.Println(line)
		}
		_ = os.RemoveAll(dir)
	}
	measure := func(what string, args ...string) {
		got := make([][]time.Duration, len(bins))
		for range runs {
			for i, b := range bins {
				got[i] = append(got[i], measureBinary(t, b.path, args...).wall)
			}
		}
		for i, b := range bins {
			fmt.Printf("bench: %s: %-9s wall %s (median of %d)\n", what, b.label, ms(median(got[i])), runs)
		}
	}
	measure("live default run", "--width", "80")
	for _, f := range []string{"zpool-hung", "controller-cli-hang"} {
		measure(f+" (probe timeout 5 s)", "--root", filepath.Join("..", "..", "fixtures", f), "--probe-timeout", "5s")
	}
}

func peakRSS(kib []int64) string {
	if median(kib) < 0 {
		return "peak RSS not measured (no /usr/bin/time: apt-get install time)"
	}
	return fmt.Sprintf("peak RSS %.1f MiB (max %.1f)", float64(median(kib))/1024, float64(slices.Max(kib))/1024)
}
