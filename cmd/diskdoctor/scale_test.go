package main

// Scale (issue #14): the synthetic machine grown to 10,000 block devices,
// the slope test, and the figures `make bench` prints. The figures are
// measurements, not assertions: only the slope test fails, and only on a
// growth far from linear.

import (
	"bytes"
	"cmp"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"
)

// TestWriteSyntheticMachine writes a synthetic machine for measurements by
// hand (strace, perf, tar): DISKDOCTOR_SYNTH_OUT=DIR [DISKDOCTOR_SYNTH_N=1000]
// [DISKDOCTOR_SYNTH_STACKED=1: 10 block devices per disk].
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
	if os.Getenv("DISKDOCTOR_SYNTH_STACKED") == "1" {
		if err := addStackedDevices(dir); err != nil {
			t.Fatal(err)
		}
	}
}

// extraParts is how many partitions addStackedDevices adds to each disk
// (the synthetic machine has one): with one device-mapper and one md device
// per disk, ten block devices per disk.
const extraParts = 6

// addStackedDevices grows a synthetic machine the way a storage server
// grows: more partitions per disk, an LVM (device-mapper) volume on one of
// them and an md array member on another, written as the kernel lays them
// out (partitions in the disk's directory, dm and md under
// /sys/devices/virtual/block with slaves/ and holders/ links) with udev
// records. Device numbers: partitions beyond the first take the extended
// major 259, dm major 253, md major 9.
func addStackedDevices(dir string) error {
	ents, err := os.ReadDir(filepath.Join(dir, "sys/block"))
	if err != nil {
		return err
	}
	w := newSynthWriter(dir)
	// Numbers above the synthetic machine's own: its LVM partitions take
	// block extended minors from 1<<18 and its volumes dm-0 upward.
	ext, dm, md := 1<<16, 0, 0
	for _, e := range ents {
		if strings.HasPrefix(e.Name(), "dm-") {
			dm++
		}
	}
	for _, e := range ents {
		disk := e.Name()
		if strings.HasPrefix(disk, "dm-") || strings.HasPrefix(disk, "md") || strings.HasPrefix(disk, "loop") {
			continue
		}
		// An NVMe per-path disk is hidden and never scanned for
		// partitions (block/genhd.c, GENHD_FL_HIDDEN): its head has them.
		if b, err := os.ReadFile(filepath.Join(dir, "sys/block", disk, "hidden")); err == nil && strings.TrimSpace(string(b)) == "1" {
			continue
		}
		real, err := filepath.EvalSymlinks(filepath.Join(dir, "sys/block", disk))
		if err != nil {
			return err
		}
		sysDir := "/" + strings.TrimPrefix(strings.TrimPrefix(real, dir), "/")
		sep := ""
		if strings.HasPrefix(disk, "nvme") {
			sep = "p"
		}
		var parts []string
		for k := 2; k < 2+extraParts; k++ {
			part := fmt.Sprintf("%s%s%d", disk, sep, k)
			devno := fmt.Sprintf("259:%d", ext)
			ext++
			pdir := sysDir + "/" + part
			w.file(pdir+"/dev", devno+"\n")
			w.file(pdir+"/partition", strconv.Itoa(k)+"\n")
			w.file(pdir+"/size", "2097152\n")
			w.file(pdir+"/start", strconv.Itoa(2048+k*2097152)+"\n")
			w.file(pdir+"/ro", "0\n")
			w.mkdir(pdir + "/holders")
			w.file("/run/udev/data/b"+devno, fmt.Sprintf("S:disk/by-partlabel/%s\nE:ID_PART_ENTRY_NUMBER=%d\nE:ID_PART_ENTRY_SCHEME=gpt\nG:systemd\nV:1\n", part, k))
			parts = append(parts, part)
		}
		// An LVM volume on the second partition, an md member on the third.
		for i, v := range []struct{ name, devno, fs, uuidProp string }{
			{fmt.Sprintf("dm-%d", dm), fmt.Sprintf("253:%d", dm), "xfs", "DM_UUID=LVM-synth" + strconv.Itoa(dm)},
			{fmt.Sprintf("md%d", md), fmt.Sprintf("9:%d", md), "ext4", "MD_UUID=synth:" + strconv.Itoa(md)},
		} {
			vdir := "/sys/devices/virtual/block/" + v.name
			member := parts[i]
			w.file(vdir+"/dev", v.devno+"\n")
			w.file(vdir+"/size", "2097152\n")
			w.file(vdir+"/removable", "0\n")
			w.file(vdir+"/ro", "0\n")
			w.file(vdir+"/queue/rotational", "0\n")
			w.file(vdir+"/queue/scheduler", "none\n")
			w.file(vdir+"/queue/write_cache", "write back\n")
			w.mkdir(vdir + "/holders")
			w.link(vdir+"/slaves/"+member, sysDir+"/"+member)
			w.link(sysDir+"/"+member+"/holders/"+v.name, vdir)
			w.link("/sys/block/"+v.name, vdir)
			w.file("/run/udev/data/b"+v.devno, fmt.Sprintf("E:ID_FS_TYPE=%s\nE:%s\nG:systemd\nV:1\n", v.fs, v.uuidProp))
		}
		dm++
		md++
	}
	return w.err
}

// TestScaleSlope checks that the doctor's cost grows linearly with the
// machine: CPU time (user + system, steadier than wall time on a shared
// machine) of whole runs on 100, 1,000 and 4,000 disks. Linear growth
// gives ratios of 10 and 4 (less at the small end, where start-up counts);
// a quadratic step gives 100 and 16. The bounds are generous to noise and
// far below quadratic.
func TestScaleSlope(t *testing.T) {
	if os.Getenv("DISKDOCTOR_BENCH") != "1" {
		t.Skip("writes 5,100 synthetic disks (about 2 minutes): set DISKDOCTOR_BENCH=1 to run (make bench)")
	}
	bin := binary
	cpu := map[int]time.Duration{}
	for _, n := range []int{100, 1000, 4000} {
		dir := filepath.Join(t.TempDir(), "m")
		if err := writeSyntheticMachine(dir, n); err != nil {
			t.Fatal(err)
		}
		var best time.Duration
		for i := 0; i < 3; i++ {
			r := measureBinary(t, bin, "--root", dir, "--format", "json")
			if best == 0 || r.cpu < best {
				best = r.cpu
			}
		}
		cpu[n] = best
		t.Logf("%d disks: cpu %s (best of 3)", n, best.Round(time.Millisecond))
		_ = os.RemoveAll(dir)
	}
	r1 := float64(cpu[1000]) / float64(cpu[100])
	r2 := float64(cpu[4000]) / float64(cpu[1000])
	t.Logf("cpu ratio 1000/100 = %.2f (linear <= 10), 4000/1000 = %.2f (linear 4)", r1, r2)
	if r1 > 16 || r2 > 7 {
		t.Errorf("cost grows faster than linear: 1000/100 = %.1f (bound 16), 4000/1000 = %.1f (bound 7; quadratic is 16)", r1, r2)
	}
}

type runResult struct {
	wall, cpu time.Duration
	rssKiB    int64
	out       []byte
}

// measureBinary runs the binary on 2 cores (the aim is stated for 2) and
// accepts the exit statuses of a verdict (0, 1, 2). Its peak RSS is
// measured by GNU time, which forks it: a child of this process is started
// with vfork, and the kernel carries the test process's own peak (150 MiB
// once the machines are generated) into the child's ru_maxrss at exec.
// Without /usr/bin/time the RSS is not reported (-1).
func measureBinary(t *testing.T, bin string, args ...string) runResult {
	t.Helper()
	var out, errb bytes.Buffer
	rssFile := ""
	cmd := exec.Command(bin, args...)
	if _, err := os.Stat("/usr/bin/time"); err == nil {
		rssFile = filepath.Join(t.TempDir(), "rss")
		cmd = exec.Command("/usr/bin/time", append([]string{"-o", rssFile, "-f", "%M", bin}, args...)...)
	}
	cmd.Env = append(os.Environ(), fmt.Sprintf("GOMAXPROCS=%d", min(2, runtime.NumCPU())))
	cmd.Stdout, cmd.Stderr = &out, &errb
	start := time.Now()
	err := cmd.Run()
	wall := time.Since(start)
	var exit *exec.ExitError
	if err != nil && !(errors.As(err, &exit) && (exit.ExitCode() == 1 || exit.ExitCode() == 2)) {
		t.Fatalf("%s %s: %v\nstderr: %s", bin, strings.Join(args, " "), err, errb.String())
	}
	// time's own CPU is a fork and a wait; what it reports includes the
	// doctor's, its waited-for child.
	r := runResult{wall: wall, cpu: cmd.ProcessState.UserTime() + cmd.ProcessState.SystemTime(), out: out.Bytes(), rssKiB: -1}
	if rssFile != "" {
		b, err := os.ReadFile(rssFile)
		if err != nil {
			t.Fatalf("/usr/bin/time: %v", err)
		}
		f := strings.Fields(string(b))
		if len(f) == 0 {
			t.Fatalf("/usr/bin/time wrote %q", b)
		}
		if r.rssKiB, err = strconv.ParseInt(f[len(f)-1], 10, 64); err != nil {
			t.Fatalf("/usr/bin/time wrote %q: %v", b, err)
		}
	}
	return r
}

// tarFloor is the time `tar -cf - DIR | wc -c` takes: reading every file
// of the tree once.
func tarFloor(t *testing.T, dir string) time.Duration {
	t.Helper()
	tar := exec.Command("tar", "-cf", "-", "-C", dir, ".")
	stdout, err := tar.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	if err := tar.Start(); err != nil {
		t.Skipf("tar: %v", err)
	}
	n, _ := io.Copy(io.Discard, stdout) // what wc -c does
	if err := tar.Wait(); err != nil {
		t.Fatalf("tar: %v", err)
	}
	if n == 0 {
		t.Fatal("tar wrote nothing")
	}
	return time.Since(start)
}

// median of a run's figures (the upper one of an even count).
func median[T cmp.Ordered](v []T) T {
	s := slices.Clone(v)
	slices.Sort(s)
	return s[len(s)/2]
}

func ms(d time.Duration) string { return fmt.Sprintf("%.0f ms", float64(d.Microseconds())/1000) }

// TestBenchScale prints the figures of issue #14 in one run: for the
// 1,000-disk machine and the 10,000-device one, the tar floor, the doctor's
// wall time and its ratio to the floor, CPU time and peak RSS, as medians
// of alternating runs; then the live check of this machine.
func TestBenchScale(t *testing.T) {
	if os.Getenv("DISKDOCTOR_BENCH") != "1" {
		t.Skip("set DISKDOCTOR_BENCH=1 to run (make bench)")
	}
	runs := 5
	if s := os.Getenv("DISKDOCTOR_BENCH_RUNS"); s != "" {
		if v, err := strconv.Atoi(s); err == nil && v > 0 {
			runs = v
		}
	}
	bin := binary
	var first time.Duration
	for _, m := range []struct {
		label   string
		stacked bool
	}{{"1,000 disks", false}, {"10,000 devices", true}} {
		dir := filepath.Join(t.TempDir(), "m")
		if err := writeSyntheticMachine(dir, benchDisks); err != nil {
			t.Fatal(err)
		}
		if m.stacked {
			if err := addStackedDevices(dir); err != nil {
				t.Fatal(err)
			}
		}
		devs, _ := os.ReadDir(filepath.Join(dir, "sys/block"))
		var tars, walls, cpus []time.Duration
		var rss []int64
		tarFloor(t, dir) // warm the page cache for both
		for i := 0; i < runs; i++ {
			tars = append(tars, tarFloor(t, dir))
			r := measureBinary(t, bin, "--root", dir, "--format", "json")
			walls, cpus = append(walls, r.wall), append(cpus, r.cpu)
			rss = append(rss, r.rssKiB)
		}
		peak := "peak RSS not measured (no /usr/bin/time: apt-get install time)"
		if median(rss) >= 0 {
			peak = fmt.Sprintf("peak RSS %.1f MiB (max %.1f)", float64(median(rss))/1024, float64(slices.Max(rss))/1024)
		}
		line := fmt.Sprintf("bench: %s (%d in /sys/block): tar floor %s, doctor wall %s (%.2fx tar), cpu %s, %s; median of %d alternating runs",
			m.label, len(devs), ms(median(tars)), ms(median(walls)), float64(median(walls))/float64(median(tars)), ms(median(cpus)), peak, runs)
		if first == 0 {
			first = median(walls)
		} else {
			line += fmt.Sprintf("; %.1fx the 1,000-disk time", float64(median(walls))/float64(first))
		}
		fmt.Println(line)
		_ = os.RemoveAll(dir)
	}
	var walls, cpus []time.Duration
	for i := 0; i < runs; i++ {
		r := measureBinary(t, bin, "--format", "json")
		walls, cpus = append(walls, r.wall), append(cpus, r.cpu)
	}
	fmt.Printf("bench: live check of this machine: wall %s, cpu %s; median of %d runs\n", ms(median(walls)), ms(median(cpus)), runs)
}
