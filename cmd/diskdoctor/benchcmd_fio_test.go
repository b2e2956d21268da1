package main

import (
	"bytes"
	"context"
	"encoding/json"
	"github.com/diskdoctor/diskdoctor/bench"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// Real benchmark runs, small and short: a 32 MiB file, 1 s per test, on a
// directory of the repository checkout (a real block device, not the tmpfs
// that os.TempDir may be).

func benchNeedFio(t *testing.T) {
	t.Helper()
	if _, err := exec.LookPath("fio"); err != nil {
		t.Skip("fio is not installed (apt-get install fio; make test installs it)")
	}
}

// benchTestDir is an empty directory under the package directory, removed
// afterwards.
func benchTestDir(t *testing.T) string {
	t.Helper()
	dir, err := os.MkdirTemp(".", ".bench-")
	if err != nil {
		t.Fatal(err)
	}
	abs, _ := filepath.Abs(dir)
	t.Cleanup(func() { os.RemoveAll(abs) })
	return abs
}

func benchAssertEmpty(t *testing.T, dir string) {
	t.Helper()
	ents, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range ents {
		t.Errorf("left behind in %s: %s", dir, e.Name())
	}
}

// benchTestDatasheets gives the virtual class figures, so that rows on
// this VM's virtio disk get a datasheet comparison.
func benchTestDatasheets(t *testing.T) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "ds.yaml")
	y := `version: test
classes:
  - class: virtual
    name: "Virtual disk (test figures)"
    interface: virtio
    seq_read_mbs: 1000
    seq_write_mbs: 1000
    rand_read_iops: 100000
    rand_write_iops: 100000
    write_latency_us: 50
    volatile_cache: true
    plp: false
    source: "test figures for the bench tests"
`
	if err := os.WriteFile(p, []byte(y), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

func benchRunJSON(t *testing.T, args ...string) *bench.Result {
	t.Helper()
	var stdout, stderr bytes.Buffer
	// --force: a neighbour's I/O on a shared test machine can make the
	// host's io pressure critical; these tests are about the measurements,
	// and the preflight's window is TestBenchCompetingWriterRefused's.
	code := run(t.Context(), append([]string{"bench", "--format", "json", "--size", "32MiB", "--runtime", "1s", "--probe-timeout", "2s", "--preflight-window", "0", "--force"}, args...), &stdout, &stderr)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr.String())
	}
	var out bench.Result
	if err := json.Unmarshal(stdout.Bytes(), &out); err != nil {
		t.Fatalf("bench JSON: %v\n%s", err, stdout.String())
	}
	if out.Schema != bench.Schema || len(out.Rows) == 0 {
		t.Fatalf("schema %q, %d rows", out.Schema, len(out.Rows))
	}
	for _, r := range out.Rows {
		if r.MBs <= 0 || r.IOPS <= 0 || r.Command == "" {
			t.Errorf("%s %s: %.1f MB/s %.0f IOPS, command %q", r.Test, r.Op, r.MBs, r.IOPS, r.Command)
		}
		if r.Tool == "fio" && (r.Lat.P50 <= 0 || r.Lat.P99 < r.Lat.P50 || r.Lat.P999 < r.Lat.P99 || r.Job == "") {
			t.Errorf("%s %s: latencies %+v", r.Test, r.Op, r.Lat)
		}
	}
	if len(out.Reading) == 0 {
		t.Error("no reading")
	}
	return &out
}

func TestBenchCmdProfileCDM(t *testing.T) {
	benchNeedFio(t)
	dir := benchTestDir(t)
	out := benchRunJSON(t, "--datasheets", benchTestDatasheets(t), dir)
	benchAssertEmpty(t, dir)
	if len(out.Rows) != 8 || out.Tool != "fio" || out.Engine == "" || !strings.HasPrefix(out.FioVersion, "fio-") {
		t.Fatalf("%d rows, tool %s, engine %q, %q", len(out.Rows), out.Tool, out.Engine, out.FioVersion)
	}
	want := []string{"SEQ1M Q8T1", "SEQ1M Q1T1", "RND4K Q32T1", "RND4K Q32T16"}
	for i, r := range out.Rows {
		if r.Asked != want[i%4] || (i < 4) != (r.Op == "read") {
			t.Errorf("row %d: %s %s", i, r.Asked, r.Op)
		}
		if r.Datasheet == nil || r.Pct == nil || *r.Pct <= 0 {
			t.Errorf("%s %s: no datasheet comparison", r.Test, r.Op)
		}
		if !strings.Contains(r.Job, "buffer_compress_percentage=0") || !strings.Contains(r.Job, "refill_buffers=1") {
			t.Errorf("%s: job writes compressible data:\n%s", r.Test, r.Job)
		}
	}
	if out.Datasheet == nil || out.Datasheet.Product != "Virtual disk (test figures) (class default)" {
		t.Errorf("datasheet %+v", out.Datasheet)
	}
	if !out.Target.DirectOK || !out.Direct || len(out.Target.Disks) == 0 {
		t.Errorf("target %+v, direct %v", out.Target, out.Direct)
	}
	if !out.Preflight.Has("bench-file-smaller-than-ram") {
		t.Errorf("a 32 MiB file, no RAM warning: %v", out.Preflight.Checks)
	}
}

func TestBenchCmdProfileSyncSteady(t *testing.T) {
	benchNeedFio(t)
	dir := benchTestDir(t)
	out := benchRunJSON(t, "--profile", "sync", "--steady", "--steady-max", "3s", dir)
	benchAssertEmpty(t, dir)
	if len(out.Rows) != 5 {
		t.Fatalf("%d rows", len(out.Rows))
	}
	for i, threads := range []int{1, 4, 8, 16} {
		r := out.Rows[i]
		if r.Kind != "sync" || r.Threads != threads || r.QD != 1 || r.Op != "write" || !strings.Contains(r.Job, "sync=dsync") {
			t.Errorf("row %d: %+v", i, r)
		}
	}
	st := out.Rows[4]
	if st.Kind != "steady" || st.Steady == nil || !strings.HasPrefix(st.Steady.Criterion, "iops_slope") || !strings.Contains(st.Job, "ss_dur=2s") {
		t.Errorf("steady row %+v", st)
	}
}

func TestBenchCmdProfileSweep(t *testing.T) {
	benchNeedFio(t)
	dir := benchTestDir(t)
	out := benchRunJSON(t, "--profile", "sweep", "--max-depth", "8", dir)
	benchAssertEmpty(t, dir)
	s := out.Sweep
	if s == nil || len(s.Points) == 0 || len(s.Points) > 4 || s.Rule == "" || s.Reason == "" {
		t.Fatalf("sweep %+v", s)
	}
	for i, p := range s.Points {
		if p.Load != 1<<i || p.IOPS <= 0 || p.P99Us <= 0 {
			t.Errorf("point %d: %+v", i, p)
		}
	}
	if s.KneeLoad > 0 && !strings.Contains(strings.Join(out.Reading, "\n"), "sweep knee at") {
		t.Errorf("knee %d not in the reading: %v", s.KneeLoad, out.Reading)
	}
}

func TestBenchCmdDDFallback(t *testing.T) {
	if _, err := exec.LookPath("dd"); err != nil {
		t.Skip("dd is not installed")
	}
	dir := benchTestDir(t)
	out := benchRunJSON(t, "--fio", filepath.Join(dir, "no-such-fio"), dir)
	benchAssertEmpty(t, dir)
	if out.Tool != "dd" || len(out.Rows) != 4 || !out.Preflight.Has("bench-fio-missing") {
		t.Fatalf("tool %s, %d rows, %v", out.Tool, len(out.Rows), out.Preflight.Checks)
	}
	if !strings.Contains(out.Reading[0], "dd") || !strings.Contains(out.Rows[2].Command, "oflag=direct,dsync") {
		t.Errorf("reading %q, dsync row %q", out.Reading[0], out.Rows[2].Command)
	}
}

func TestBenchCmdDryRun(t *testing.T) {
	benchNeedFio(t)
	dir := benchTestDir(t)
	for profile, jobs := range map[string]int{"cdm": 8, "sync": 4, "sweep": 9} {
		var stdout, stderr bytes.Buffer
		if code := run(t.Context(), []string{"bench", "--dry-run", "--profile", profile, dir}, &stdout, &stderr); code != 0 {
			t.Fatalf("%s: exit %d: %s", profile, code, stderr.String())
		}
		text := stdout.String()
		if n := strings.Count(text, "\n["); n != jobs {
			t.Errorf("%s: %d jobs, want %d:\n%s", profile, n, jobs, text)
		}
		if strings.Count(text, "# fio --output-format=json --name=") != jobs || strings.Count(text, "\nstonewall\n") != jobs {
			t.Errorf("%s: command lines or stonewalls missing:\n%s", profile, text)
		}
	}
	benchAssertEmpty(t, dir)
}

func TestBenchCmdRefusesWithoutDirectory(t *testing.T) {
	var dev string
	ents, _ := os.ReadDir("/sys/block")
	for _, e := range ents {
		if fi, err := os.Stat("/dev/" + e.Name()); err == nil && fi.Mode()&os.ModeDevice != 0 && fi.Mode()&os.ModeCharDevice == 0 {
			dev = "/dev/" + e.Name()
			break
		}
	}
	cases := map[string]string{"regular file": "benchcmd.go"}
	if dev != "" {
		cases["raw device"] = dev
	}
	for name, path := range cases {
		var stdout, stderr bytes.Buffer
		code := run(t.Context(), []string{"bench", "--runtime", "1s", path}, &stdout, &stderr)
		if code != 3 {
			t.Errorf("%s: exit %d", name, code)
		}
		if name == "raw device" && !strings.Contains(stderr.String(), "--device-write-i-know") {
			t.Errorf("%s: %s", name, stderr.String())
		}
	}
	var stderr bytes.Buffer
	if code := run(t.Context(), []string{"bench", "--profile", "crystal", "."}, &bytes.Buffer{}, &stderr); code != 3 || !strings.Contains(stderr.String(), "--profile") {
		t.Errorf("bad profile: exit %d, %s", code, stderr.String())
	}
	// No room for the file: refused even with --force, nothing written,
	// and --format json still reports the preflight.
	dir := benchTestDir(t)
	stderr.Reset()
	var stdout bytes.Buffer
	code := run(t.Context(), []string{"bench", "--size", "1000TiB", "--force", "--format", "json", "--probe-timeout", "2s", dir}, &stdout, &stderr)
	if code == 0 || !strings.Contains(stderr.String(), "bench-no-space") {
		t.Errorf("no space: exit %d, %s", code, stderr.String())
	}
	var out bench.Result
	if err := json.Unmarshal(stdout.Bytes(), &out); err != nil || !out.Preflight.Refused || len(out.Rows) != 0 {
		t.Errorf("refused JSON (%v): %s", err, stdout.String())
	}
	benchAssertEmpty(t, dir)
}

// SIGHUP (the terminal closed), SIGTERM (kill) and SIGINT (Ctrl-C) to the
// diskdoctor binary while fio runs: fio's process group is stopped, the
// test file removed, and the exit status is the signal's (128+N).
func TestBenchCmdSignals(t *testing.T) {
	benchNeedFio(t)
	for _, sig := range []syscall.Signal{syscall.SIGHUP, syscall.SIGTERM, syscall.SIGINT} {
		t.Run(sig.String(), func(t *testing.T) { benchSignalled(t, sig) })
	}
}

func benchSignalled(t *testing.T, sig syscall.Signal) {
	dir := benchTestDir(t)
	cmd := exec.Command(binary, "bench", "--size", "64MiB", "--runtime", "30s", "--probe-timeout", "2s", "--preflight-window", "0", "--force", dir)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	fioPID := 0
	deadline := time.Now().Add(30 * time.Second)
	for fioPID == 0 && time.Now().Before(deadline) {
		time.Sleep(100 * time.Millisecond)
		// The test's fio, not the engine probe before it.
		if pid := benchChildNamed(cmd.Process.Pid, "fio"); pid != 0 {
			if argv, _ := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/cmdline"); bytes.Contains(argv, []byte("--runtime=30s")) {
				fioPID = pid
			}
		}
	}
	if fioPID == 0 {
		cmd.Process.Kill()
		t.Fatalf("fio never started; stderr: %s", stderr.String())
	}
	time.Sleep(500 * time.Millisecond) // fio is at work, its job processes forked
	var jobs []int                     // fio's job processes (each in a session of its own)
	for i := 0; i < 50 && len(jobs) == 0; i++ {
		jobs = benchChildren(fioPID)
		time.Sleep(100 * time.Millisecond)
	}
	if len(jobs) == 0 {
		t.Logf("fio %d forked no job process within 5 s", fioPID)
	}
	if err := cmd.Process.Signal(sig); err != nil {
		t.Fatal(err)
	}
	select {
	case <-done:
	case <-time.After(20 * time.Second):
		cmd.Process.Kill()
		t.Fatalf("bench did not stop within 20 s of %s", sig)
	}
	if got, want := cmd.ProcessState.ExitCode(), 128+int(sig); got != want {
		t.Errorf("exit %d, want %d; stderr: %s", got, want, stderr.String())
	}
	if !strings.Contains(stderr.String(), "interrupted") {
		t.Errorf("stderr: %s", stderr.String())
	}
	benchAssertEmpty(t, dir)
	for _, pid := range append(jobs, fioPID) {
		if b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/comm"); err == nil && strings.TrimSpace(string(b)) == "fio" {
			t.Errorf("fio (pid %d) still runs", pid)
		}
	}
}

// benchChild is a process and its command name.
type benchChild struct {
	pid  int
	comm string
}

// benchChildProcs lists the children of pid from /proc/*/stat
// ("pid (comm) state ppid …").
func benchChildProcs(pid int) []benchChild {
	var out []benchChild
	ents, _ := os.ReadDir("/proc")
	for _, e := range ents {
		child, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		b, err := os.ReadFile("/proc/" + e.Name() + "/stat")
		if err != nil {
			continue
		}
		s := string(b)
		i := strings.LastIndexByte(s, ')')
		j := strings.IndexByte(s, '(')
		if i < 0 || j < 0 || j > i {
			continue
		}
		if f := strings.Fields(s[i+1:]); len(f) > 1 && f[1] == strconv.Itoa(pid) {
			out = append(out, benchChild{child, s[j+1 : i]})
		}
	}
	return out
}

// benchChildren lists the children of pid.
func benchChildren(pid int) []int {
	var out []int
	for _, c := range benchChildProcs(pid) {
		out = append(out, c.pid)
	}
	return out
}

// benchChildNamed finds a child of pid whose command name is name.
func benchChildNamed(pid int, name string) int {
	for _, c := range benchChildProcs(pid) {
		if c.comm == name {
			return c.pid
		}
	}
	return 0
}

// An in-process cancellation (the context main() cancels on SIGINT) during
// the dd fallback also removes both files.
func TestBenchCmdCancelledContext(t *testing.T) {
	dir := benchTestDir(t)
	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	go func() {
		for ctx.Err() == nil {
			if ents, _ := os.ReadDir(dir); len(ents) > 0 {
				time.Sleep(300 * time.Millisecond)
				cancel()
				return
			}
			time.Sleep(20 * time.Millisecond)
		}
	}()
	var stdout, stderr bytes.Buffer
	code := run(ctx, []string{"bench", "--size", "64MiB", "--runtime", "20s", "--force", "--fio", filepath.Join(dir, "no-fio"), dir}, &stdout, &stderr)
	if code == 0 {
		t.Fatalf("cancelled bench exited 0: %s", stdout.String())
	}
	benchAssertEmpty(t, dir)
}
