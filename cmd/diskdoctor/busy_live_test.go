package main

import (
	"encoding/json"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"
)

// Issue #25: on a busy machine, a fio writer on a loop-mounted ext4 and
// CPU burners, the default run (no --sample) watches its short window and
// does not say READY or a plain OK: it says the loop device is busy and
// names the writer. --sample 0 is the instant check, without a window.
func TestLiveBusyMachineDefaultRun(t *testing.T) {
	for _, tool := range []string{"fio", "mkfs.ext4", "yes", "nice"} {
		if _, err := exec.LookPath(tool); err != nil {
			t.Skipf("%s not installed (make test installs fio); skipping the busy-machine test", tool)
		}
	}
	dev := loopDevice(t, 256) // skips without root
	must(t, "mkfs.ext4", "-q", "-F", dev)
	mnt := t.TempDir()
	must(t, "mount", dev, mnt)
	t.Cleanup(func() {
		// The killed fio job may hold its file a moment longer.
		for range 50 {
			if exec.Command("umount", mnt).Run() == nil {
				return
			}
			time.Sleep(100 * time.Millisecond)
		}
		t.Errorf("%s could not be unmounted", mnt)
	})
	t.Logf("the writer's device: %s", filepath.Base(dev))

	ctx := t.Context()
	// --thread: the job runs in fio's own process (fio(1)), which the
	// cleanup kills; a forked job would outlive it and hold the mount.
	fio := exec.CommandContext(ctx, "fio", "--thread", "--name=diskdoctor-busy", "--filename="+filepath.Join(mnt, "f"),
		"--size=128M", "--rw=write", "--bs=1M", "--direct=1", "--ioengine=libaio", "--iodepth=16", "--time_based", "--runtime=30", "--output=/dev/null")
	if err := fio.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = fio.Process.Kill(); _ = fio.Wait() })
	// CPU burners, one per CPU: with fio and the doctor more runnable
	// tasks than CPUs, so that tasks wait for a CPU (cpu "some" pressure).
	// At the lowest priority (nice(1) execs yes in its place): a runnable
	// burner still counts as waiting, but fio and the loop device's worker
	// run when they need to, and keep the device busy.
	for range runtime.NumCPU() {
		burn := exec.CommandContext(ctx, "nice", "-n", "19", "yes") // its output goes to /dev/null
		if err := burn.Start(); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { _ = burn.Process.Kill(); _ = burn.Wait() })
	}
	time.Sleep(2 * time.Second) // past fio's file layout, into steady writes

	var lastOut string // the whole report of verdict's last run
	verdict := func(args ...string) string {
		t.Helper()
		stdout, stderr, code := runBinary(t, append([]string{"--color", "never", "--width", "400"}, args...)...)
		if code == 3 {
			t.Fatalf("%v: exit 3: %s", args, stderr)
		}
		lastOut = string(stdout)
		lines := strings.Split(strings.TrimRight(string(stdout), "\n"), "\n")
		t.Logf("%v:\n%s", args, stdout)
		// The verdict, repeated before the first action at the end.
		for i := len(lines) - 1; i >= 0; i-- {
			if verdictStart.MatchString(lines[i]) {
				return lines[i]
			}
		}
		return lines[len(lines)-1]
	}
	bench := verdict("--context", "benchmark")
	if strings.HasPrefix(bench, "READY") {
		t.Errorf("--context benchmark on a busy machine says %q", bench)
	}
	// The busiest device is this test's loop device, or another
	// package's, whose tests run at the same time (go test ./... runs
	// packages in parallel): a loop device, and a writer, in any case.
	for _, want := range []string{"loop", "top process pid", "fio "} {
		if !strings.Contains(bench, want) {
			t.Errorf("--context benchmark verdict %q does not name %q", bench, want)
		}
	}
	health := verdict()
	// A plain run calls the machine busy in its verdict when the busiest
	// device is at least half busy (rules.BusyUtilPct); below that, with
	// the tests of other packages sharing the CPUs, it must still say it
	// is busy in a line of its own and name the writer in its tables.
	out := lastOut
	if strings.HasPrefix(health, "OK:") && !strings.Contains(out, "Busy now:") {
		t.Errorf("the default verdict on a busy machine is a plain OK: %q", health)
	}
	if !strings.Contains(health, "fio ") && !strings.Contains(out, " fio ") {
		t.Errorf("the default report does not name the writer:\n%s", out)
	}

	var rep struct {
		Sample *struct {
			Default   bool               `json:"default"`
			Seconds   float64            `json:"seconds"`
			Pressure  map[string]float64 `json:"pressure"`
			Processes []struct {
				Cmdline string `json:"cmdline"`
			} `json:"processes"`
		} `json:"sample"`
	}
	stdout, stderr, code := runBinary(t, "--format", "json")
	if code == 3 {
		t.Fatalf("--format json: exit 3: %s", stderr)
	}
	if err := json.Unmarshal(stdout, &rep); err != nil {
		t.Fatalf("%v\n%s", err, stdout)
	}
	if s := rep.Sample; s == nil || !s.Default || s.Seconds < 1 {
		t.Errorf("--format json takes the default window of at least 1 s too: %+v", s)
	} else if s.Pressure["cpu_some"] <= 0 {
		t.Errorf("no CPU pressure measured in the window with %d burners: %v", runtime.NumCPU(), s.Pressure)
	}
	stdout, _, _ = runBinary(t, "--format", "json", "--sample", "0")
	rep.Sample = nil
	if err := json.Unmarshal(stdout, &rep); err != nil || rep.Sample != nil {
		t.Errorf("--sample 0: a window was taken (%v): %+v", err, rep.Sample)
	}
}
