package main

// What make bench measures with: the synthetic machine written for a
// person, the measured run of a binary, and the tar floor
// (budget_test.go prints the figures).

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
// hand (strace, perf, tar): DISKDOCTOR_SYNTH_OUT=DIR [DISKDOCTOR_SYNTH_N=1000].
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
