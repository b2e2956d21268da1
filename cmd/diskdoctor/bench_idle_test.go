package main

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// The doctor's own process sleeps while fio measures: without a terminal
// nothing of it ticks, samples or polls during a job, so on a small
// machine a latency-bound job (SYNC4K, an fsync per write) shares the CPUs
// with fio's threads only, as a hand-run fio does (docs/bench.md, "While
// fio measures, diskdoctor only waits"). Counted, not timed: the context
// switches of the doctor's threads over 2 s in the middle of a 3-s job. Blocked in wait4 and in the read of
// fio's output pipe it makes none when run alone, up to 9 seen while the
// rest of the package's tests ran beside it; the progress line (4 Hz),
// forced on without a terminal, makes 100.
func TestBenchDoctorSleepsDuringAJob(t *testing.T) {
	benchNeedFio(t)
	dir := benchTestDir(t)
	cmd := exec.Command(binary, "bench", "--format", "json", "--profile", "sync", "--size", "16MiB", "--runtime", "3s",
		"--probe-timeout", "2s", "--preflight-window", "0", "--force", dir)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	// Its own process group: a signal another test sends to the test's
	// group would wake it.
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	doctor := cmd.Process.Pid
	var measured bool
	var switches int
	var where string
	// The first job whose 2-s window fits inside it: fio started, its job
	// process forked, the same fio still at work when the window ends.
	for _, job := range []string{"sync4k-t1-write", "sync4k-t4-write", "sync4k-t8-write"} {
		fio := benchWaitFio(t, doctor, "--name="+job, 60*time.Second)
		if fio == 0 {
			break
		}
		for i := 0; i < 40 && len(benchChildren(fio)) == 0; i++ {
			time.Sleep(25 * time.Millisecond)
		}
		// Starting fio wakes the doctor's exec and pipe goroutines (some
		// dozen switches in the first milliseconds); then it sleeps.
		time.Sleep(500 * time.Millisecond)
		before, ok1 := benchSwitches(doctor)
		time.Sleep(2 * time.Second)
		after, ok2 := benchSwitches(doctor)
		if ok1 && ok2 && len(benchChildren(fio)) > 0 && benchChildNamed(doctor, "fio") == fio {
			measured, switches, where = true, after-before, job
			break
		}
	}
	// Once counted, the rest of the profile is not needed: SIGTERM ends
	// the run cleanly (exit 143, the test file removed).
	if measured {
		_ = cmd.Process.Signal(syscall.SIGTERM)
	}
	select {
	case err := <-done:
		if err != nil && !(measured && cmd.ProcessState.ExitCode() == 143) {
			t.Fatalf("bench: %v\n%s", err, stderr.String())
		}
	case <-time.After(120 * time.Second):
		cmd.Process.Kill()
		t.Fatal("bench did not end within 120 s")
	}
	benchAssertEmpty(t, dir)
	if !measured {
		t.Skip("no job ran long enough for a 2-s window inside it (a very slow machine)")
	}
	if switches > 30 {
		t.Errorf("the doctor's threads were switched in %d times in 2 s of %s (at most 30: asleep in wait4 it makes none)", switches, where)
	}
	t.Logf("%s: %d context switches of the doctor's threads in 2 s", where, switches)
}

// benchWaitFio waits for a child fio of pid whose command line holds arg.
func benchWaitFio(t *testing.T, pid int, arg string, d time.Duration) int {
	t.Helper()
	for deadline := time.Now().Add(d); time.Now().Before(deadline); time.Sleep(10 * time.Millisecond) {
		for _, c := range benchChildProcs(pid) {
			if c.comm != "fio" {
				continue
			}
			argv, _ := os.ReadFile("/proc/" + strconv.Itoa(c.pid) + "/cmdline")
			if bytes.Contains(argv, []byte(arg+"\x00")) {
				return c.pid
			}
		}
		if _, err := os.Stat("/proc/" + strconv.Itoa(pid)); err != nil {
			return 0
		}
	}
	return 0
}

// benchSwitches sums the voluntary and involuntary context switches of a
// process's own threads (its children not counted).
func benchSwitches(pid int) (int, bool) {
	tasks, err := filepath.Glob("/proc/" + strconv.Itoa(pid) + "/task/*/status")
	if err != nil || len(tasks) == 0 {
		return 0, false
	}
	n := 0
	for _, p := range tasks {
		b, err := os.ReadFile(p)
		if err != nil {
			return 0, false
		}
		for _, l := range strings.Split(string(b), "\n") {
			if k, v, ok := strings.Cut(l, ":"); ok && strings.HasSuffix(k, "ctxt_switches") {
				x, err := strconv.Atoi(strings.TrimSpace(v))
				if err != nil {
					return 0, false
				}
				n += x
			}
		}
	}
	return n, true
}
