package main

import (
	"bytes"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/diskdoctor/diskdoctor/bench"
)

// A stale test file of a run that died (its PID no longer runs) is removed
// by the next run, which says so; a live run's file is kept.
func TestBenchStaleFileRemoved(t *testing.T) {
	dir := benchTestDir(t)
	dead := exec.Command("true")
	if err := dead.Run(); err != nil {
		t.Fatal(err)
	}
	stale := filepath.Join(dir, ".diskdoctor-bench-"+strconv.Itoa(dead.Process.Pid)+".tmp")
	staleSrc := stale + ".src"
	live := filepath.Join(dir, ".diskdoctor-bench-"+strconv.Itoa(os.Getppid())+".tmp")
	other := filepath.Join(dir, "data.tmp")
	for _, p := range []string{stale, staleSrc, live, other} {
		if err := os.WriteFile(p, []byte("x"), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	var stdout, stderr bytes.Buffer
	// A dry run only names them.
	if code := run(t.Context(), []string{"bench", "--dry-run", "--dd", "--size", "16m", dir}, &stdout, &stderr); code != 0 || !strings.Contains(stderr.String(), "found "+stale) {
		t.Fatalf("dry run: exit %d: %s", code, stderr.String())
	}
	if _, err := os.Stat(stale); err != nil {
		t.Fatalf("the dry run removed %s", stale)
	}
	stderr.Reset()
	if code := run(t.Context(), []string{"bench", "--dd", "--force", "--size", "4m", "--runtime", "1", "--preflight-window", "0", dir}, &stdout, &stderr); code != 0 {
		t.Fatalf("exit %d: %s", code, stderr.String())
	}
	for _, p := range []string{stale, staleSrc} {
		if _, err := os.Stat(p); err == nil {
			t.Errorf("%s not removed", p)
		}
		if !strings.Contains(stderr.String(), "removed "+p+": the test file of a bench run that no longer runs") {
			t.Errorf("removal of %s not said: %s", p, stderr.String())
		}
	}
	for _, p := range []string{live, other} {
		if _, err := os.Stat(p); err != nil {
			t.Errorf("%s removed: %v", p, err)
		}
	}
}

// Every speedtest-hd spelling produces the same dry-run jobs as its
// diskdoctor spelling (the job lines; the comments carry the preflight).
func TestBenchSpeedtestHDFlags(t *testing.T) {
	t.Parallel()
	dir := benchTestDir(t)
	fio, err := exec.LookPath("fio")
	if err != nil {
		fio = "/usr/bin/fio" // only its name is printed: the dry run with --dd does not run it
	}
	jobs := func(args ...string) string {
		t.Helper()
		var stdout, stderr bytes.Buffer
		code := run(t.Context(), append(append([]string{"bench", "--dry-run", "--probe-timeout", "1s"}, args...), dir), &stdout, &stderr)
		if code != 0 {
			t.Fatalf("%v: exit %d: %s", args, code, stderr.String())
		}
		var keep []string
		for _, l := range strings.Split(stdout.String(), "\n") {
			if !strings.HasPrefix(l, "#") {
				keep = append(keep, l)
			}
		}
		return strings.Join(keep, "\n")
	}
	needFio := func() {
		if _, err := exec.LookPath("fio"); err != nil {
			t.Skip("fio is not installed: the job files need its engine list")
		}
	}
	dd := [][2][]string{
		{{"--dd", "--size=4g"}, {"--fio", filepath.Join(dir, "no-such-fio"), "--size", "4GiB"}},
		{{"--dd", "--runtime=10"}, {"--dd", "--runtime", "10s"}},
	}
	for _, c := range dd {
		if a, b := jobs(c[0]...), jobs(c[1]...); a != b || a == "" {
			t.Errorf("%v != %v:\n%s\n---\n%s", c[0], c[1], a, b)
		}
	}
	needFio()
	for _, c := range [][2][]string{
		{{"--runtime=10"}, {"--runtime", "10s"}},
		{{"--size=4g"}, {"--size", "4GiB"}},
		{{"--size=4G"}, {"--size", "4GiB"}},
		{{"--size=512m"}, {"--size", "512MiB"}},
		{{"--slog"}, {"--profile", "sync"}},
		{{"--slog", "--runtime=10", "--size=4g"}, {"--profile", "sync", "--runtime", "10s", "--size", "4GiB"}},
		{{"--buffered"}, {"--direct=false"}},
		{{"--direct"}, {}},
		{{"--verbose"}, {}},
		{{"-v"}, {}},
		{{"--fio", "--runtime=10"}, {"--runtime", "10s"}},
		{{"--fio", fio, "--size=4g"}, {"--size", "4GiB"}},
		{{"--fio=" + fio}, {}},
	} {
		a, b := jobs(c[0]...), jobs(c[1]...)
		if a != b || !strings.Contains(a, "[seq1m-q8t1-read]") && !strings.Contains(a, "[sync4k-t1-write]") {
			t.Errorf("%v != %v:\n%s\n---\n%s", c[0], c[1], a, b)
		}
	}
	if a := jobs("--slog"); strings.Count(a, "sync=dsync") != 4 || !strings.Contains(a, "numjobs=16") {
		t.Errorf("--slog is not the 1/4/8/16-thread sync profile:\n%s", a)
	}
	if a := jobs("--buffered"); strings.Contains(a, "direct=1") {
		t.Errorf("--buffered still direct:\n%s", a)
	}
	var stderr bytes.Buffer
	if code := run(t.Context(), []string{"bench", "--dry-run", "--direct", "--buffered", dir}, &bytes.Buffer{}, &stderr); code != 3 {
		t.Errorf("--direct --buffered: exit %d", code)
	}
}

// A competing writer on the target's loop device makes the preflight
// refuse, naming its pid, command line and rates.
func TestBenchCompetingWriterRefused(t *testing.T) {
	benchNeedFio(t)
	if _, err := exec.LookPath("mkfs.ext4"); err != nil {
		t.Skip("mkfs.ext4 is not installed")
	}
	dev := loopDevice(t, 256)
	must(t, "mkfs.ext4", "-q", "-F", "-E", "lazy_itable_init=0,lazy_journal_init=0", dev)
	mnt := t.TempDir()
	must(t, "mount", dev, mnt)
	t.Cleanup(func() { _ = exec.Command("umount", mnt).Run() })
	// The writer, as in the issue: fio hammering the same disk with random
	// writes, with a hostile command line (issue #25): a program name that
	// drives the terminal and goes on for 300 bytes, and an environment
	// handed over as JSON (fio's --description takes any text).
	writer := exec.Command("fio", "--name=competitor", `--description=--env {"AWS_CA_BUNDLE": "/etc/ssl/s3cr3t.pem"}`, "--filename="+filepath.Join(mnt, "competitor"), "--size=64m", "--rw=randwrite", "--bs=4k",
		"--direct=1", "--ioengine=psync", "--time_based", "--runtime=60")
	writer.Args[0] = "fio\x1b]0;pwned\x07\x1b[2J" + strings.Repeat("x", 300)
	if err := writer.Start(); err != nil {
		t.Fatal(err)
	}
	// SIGTERM: fio stops its job processes (which run in sessions of their
	// own, out of reach of a group signal) and exits.
	t.Cleanup(func() { _ = writer.Process.Signal(syscall.SIGTERM); _ = writer.Wait() })
	time.Sleep(1500 * time.Millisecond) // laid out, writing
	var stdout, stderr bytes.Buffer
	code := run(t.Context(), []string{"bench", "--size", "16m", "--runtime", "1", "--preflight-window", "2s", mnt}, &stdout, &stderr)
	if code != 2 {
		t.Fatalf("exit %d, want 2 (refused): %s", code, stderr.String())
	}
	msg := stderr.String()
	// Named once, in a table: pid, the program and its first plain
	// arguments (never the JSON, nor a control character), unit, rates.
	if !regexp.MustCompile(`\n +\d+  fio\?\?0\?pwned\?\?\?2Jx+…`).MatchString(msg) {
		t.Errorf("the writer's pid and command are not named: %s", msg)
	}
	for _, want := range []string{"other I/O on the target's devices", filepath.Base(dev), "PID", "COMMAND", "UNIT", "MB/s", "~IOPS", "~SHARE", "--force"} {
		if !strings.Contains(msg, want) {
			t.Errorf("refusal lacks %q: %s", want, msg)
		}
	}
	for _, leak := range []string{"AWS_CA_BUNDLE", "s3cr3t", "{", "\x1b", "\x07", strings.Repeat("x", 40)} {
		if strings.Contains(msg, leak) {
			t.Errorf("refusal shows %q of the writer's command line: %s", leak, msg)
		}
	}
	if n := strings.Count(msg, "pwned"); n != 1 {
		t.Errorf("the writer is named %d times: %s", n, msg)
	}
	for _, l := range strings.Split(msg, "\n") {
		if w := utf8.RuneCountInString(l); w > 80 {
			t.Errorf("a line of %d columns: %q", w, l)
		}
	}
	ents, _ := os.ReadDir(mnt)
	for _, e := range ents {
		if strings.HasPrefix(e.Name(), ".diskdoctor-bench-") {
			t.Errorf("test file written although refused: %s", e.Name())
		}
	}

	// --force runs anyway; the result carries the warning, before and
	// after the jobs, and the reading says what the figures share.
	stdout.Reset()
	stderr.Reset()
	code = run(t.Context(), []string{"bench", "--force", "--format", "json", "--profile", "sync", "--size", "16m", "--runtime", "1", "--preflight-window", "1s", mnt}, &stdout, &stderr)
	if code != 0 {
		t.Fatalf("--force: exit %d: %s", code, stderr.String())
	}
	var out bench.Result
	if err := json.Unmarshal(stdout.Bytes(), &out); err != nil {
		t.Fatal(err)
	}
	if !out.Preflight.Competing.Busy() || !out.Preflight.After.Busy() || !out.Preflight.Has("bench-competing-io") || !out.Preflight.Has("bench-competing-io-after") {
		t.Errorf("competing I/O not carried: %+v", out.Preflight)
	}
	for _, c := range out.Preflight.Checks {
		if strings.HasPrefix(c.ID, "bench-competing-io") && c.Severity != "warning" {
			t.Errorf("%s is %s with --force", c.ID, c.Severity)
		}
	}
	if r := strings.Join(out.Reading, "\n"); !strings.Contains(r, "other processes did I/O on the devices") || !strings.Contains(r, "right after the last job") {
		t.Errorf("reading: %s", r)
	}
	// The program bounded and cleaned, its first plain argument, and
	// nothing from the JSON on.
	short := regexp.MustCompile(`^fio\?\?0\?pwned\?\?\?2Jx{14}… --name=competitor …$`)
	for _, p := range append(out.Preflight.Competing.Processes, out.Preflight.After.Processes...) {
		if p.Comm == "fio" && !short.MatchString(p.Cmdline) {
			t.Errorf("JSON names the writer %q", p.Cmdline)
		}
	}
}
