package main

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"

	"github.com/diskdoctor/diskdoctor/machine/manifest"
)

// fakeProgram is the source of the program that stands for every command
// of a recorded machine laid out as a host mount: it prints the output
// recorded for its argv (files under /fake, keyed by the argv's SHA-256),
// hangs where the recording says the command timed out, and logs its argv
// and pid to /fake/ran.log. /fake is an absolute path: only a process
// chrooted into the host root finds it. Static (CGO_ENABLED=0), so that
// the chroot needs no libraries.
const fakeProgram = `package main

import (
	"crypto/sha256"
	"encoding/hex"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"
)

func main() {
	argv := append([]string{filepath.Base(os.Args[0])}, os.Args[1:]...)
	if f, err := os.OpenFile("/fake/ran.log", os.O_APPEND|os.O_WRONLY|os.O_CREATE, 0o644); err == nil {
		f.WriteString(strconv.Itoa(os.Getpid()) + " " + strings.Join(argv, " ") + "\n")
		f.Close()
	}
	sum := sha256.Sum256([]byte(strings.Join(argv, "\x00")))
	key := "/fake/" + hex.EncodeToString(sum[:])
	if _, err := os.Stat(key + ".hang"); err == nil {
		time.Sleep(time.Hour)
	}
	out, err := os.ReadFile(key + ".out")
	if err != nil {
		os.Stderr.WriteString("fake: no output recorded for this argv\n")
		os.Exit(1)
	}
	os.Stdout.Write(out)
	if b, err := os.ReadFile(key + ".err"); err == nil {
		os.Stderr.Write(b)
	}
	b, _ := os.ReadFile(key + ".exit")
	code, _ := strconv.Atoi(strings.TrimSpace(string(b)))
	os.Exit(code)
}
`

var (
	fakeOnce sync.Once
	fakeBin  string
	fakeErr  error
)

// buildFake builds fakeProgram once per test binary.
func buildFake(t *testing.T) string {
	t.Helper()
	fakeOnce.Do(func() {
		dir, err := os.MkdirTemp("", "diskdoctor-fake")
		if err != nil {
			fakeErr = err
			return
		}
		src := filepath.Join(dir, "fake.go")
		if fakeErr = os.WriteFile(src, []byte(fakeProgram), 0o644); fakeErr != nil {
			return
		}
		fakeBin = filepath.Join(dir, "fake")
		cmd := exec.Command("go", "build", "-o", fakeBin, src)
		cmd.Dir = dir
		cmd.Env = append(os.Environ(), "CGO_ENABLED=0", "GO111MODULE=off")
		if out, err := cmd.CombinedOutput(); err != nil {
			fakeErr = &exec.Error{Name: string(out), Err: err}
		}
	})
	if fakeErr != nil {
		t.Fatal(fakeErr)
	}
	return fakeBin
}

// hostMount lays the recorded machine fixtures/name out as a live host's
// root mounted into a container: its files as they are, its commands
// replaced by the fake program installed under each program's name in
// usr/bin (root-owned, mode 0755; /bin and /sbin links into usr/ as on a
// merged-/usr system), no command manifest, and /proc/self the container's
// own process (pid 4242, with an overlay root) as the kernel would resolve
// it for the doctor, while /proc/1 stays the recording's init.
func hostMount(t *testing.T, name string) string {
	t.Helper()
	if os.Geteuid() != 0 {
		t.Skip("--host-root chroots: needs root (CAP_SYS_CHROOT)")
	}
	fake := buildFake(t)
	dir := filepath.Join(t.TempDir(), "host")
	if out, err := exec.Command("cp", "-a", filepath.Join(fixturesDir, name), dir).CombinedOutput(); err != nil {
		t.Fatalf("cp: %v: %s", err, out)
	}
	b, err := os.ReadFile(filepath.Join(dir, "commands", "manifest.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	entries, err := manifest.Parse(bytes.NewReader(b))
	if err != nil {
		t.Fatal(err)
	}
	must := func(err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	for _, d := range []string{"fake", "usr/bin", "usr/sbin"} {
		must(os.MkdirAll(filepath.Join(dir, d), 0o755))
	}
	for _, l := range []string{"bin", "sbin"} {
		if _, err := os.Lstat(filepath.Join(dir, l)); os.IsNotExist(err) {
			must(os.Symlink("usr/"+l, filepath.Join(dir, l)))
		}
	}
	prog, err := os.ReadFile(fake)
	must(err)
	for _, e := range entries {
		if e.Missing {
			continue
		}
		must(os.WriteFile(filepath.Join(dir, "usr/bin", e.Argv[0]), prog, 0o755))
		sum := sha256.Sum256([]byte(strings.Join(e.Argv, "\x00")))
		key := filepath.Join(dir, "fake", hex.EncodeToString(sum[:]))
		if e.Timeout {
			must(os.WriteFile(key+".hang", nil, 0o644))
			continue
		}
		out, err := os.ReadFile(filepath.Join(dir, "commands", e.Stdout))
		must(err)
		must(os.WriteFile(key+".out", out, 0o644))
		if e.Stderr != "" {
			errb, err := os.ReadFile(filepath.Join(dir, "commands", e.Stderr))
			must(err)
			must(os.WriteFile(key+".err", errb, 0o644))
		}
		must(os.WriteFile(key+".exit", []byte(strconv.Itoa(e.Exit)), 0o644))
	}
	// A live host holds no recording.
	must(os.RemoveAll(filepath.Join(dir, "commands")))
	must(os.RemoveAll(filepath.Join(dir, "samples")))
	proc := filepath.Join(dir, "proc")
	must(os.MkdirAll(filepath.Join(proc, "4242"), 0o755))
	container := "1 0 0:50 / / rw,relatime - overlay overlay rw,lowerdir=/l,upperdir=/u,workdir=/w\n"
	must(os.WriteFile(filepath.Join(proc, "4242", "mountinfo"), []byte(container), 0o644))
	must(os.WriteFile(filepath.Join(proc, "4242", "mounts"), []byte("overlay / overlay rw 0 0\n"), 0o644))
	if _, err := os.Stat(filepath.Join(proc, "1", "mountinfo")); err != nil {
		t.Fatalf("fixture %s has no proc/1/mountinfo: %v", name, err)
	}
	os.Remove(filepath.Join(proc, "self"))
	must(os.Symlink("4242", filepath.Join(proc, "self")))
	return dir
}

// report is what a host root and its recording must agree on.
type judged struct {
	Verdict  string `json:"verdict"`
	Findings []struct {
		Rule     string          `json:"rule"`
		Severity string          `json:"severity"`
		Subjects []string        `json:"subjects"`
		Observed string          `json:"observed"`
		Evidence json.RawMessage `json:"evidence"`
	} `json:"findings"`
	Skipped []struct {
		Check  string `json:"check"`
		Reason string `json:"reason"`
		Hint   string `json:"hint"`
	} `json:"skipped"`
}

func judge(t *testing.T, args ...string) (judged, int) {
	t.Helper()
	stdout, stderr, code := runBinary(t, append(args, "--format", "json", "--sample", "0", "--probe-timeout", "1s")...)
	var j judged
	if err := json.Unmarshal(stdout, &j); err != nil || code == 3 {
		t.Fatalf("%v: exit %d, %v\n%s\n%s", args, code, err, stdout, stderr)
	}
	return j, code
}

// ranLog is the fake programs' log: pid and argv of each run.
func ranLog(t *testing.T, dir string) []string {
	b, err := os.ReadFile(filepath.Join(dir, "fake", "ran.log"))
	if err != nil {
		t.Fatalf("no program ran inside the host root: %v", err)
	}
	return strings.Split(strings.TrimSpace(string(b)), "\n")
}

// --host-root on a recorded machine laid out as a host mount judges as
// the recording's replay does, with the commands run for real inside it
// and the mount table the host's init's, not the container's.
func TestHostRootJudgesAsTheReplay(t *testing.T) {
	for _, name := range []string{"hpe-microserver-writethrough", "md-raid1-degraded"} {
		t.Run(name, func(t *testing.T) {
			dir := hostMount(t, name)
			live, code := judge(t, "--host-root", dir)
			replay, want := judge(t, "--root", "fixtures/"+name)
			if code != want || live.Verdict != replay.Verdict {
				t.Errorf("--host-root: exit %d, %s; the replay: exit %d, %s", code, live.Verdict, want, replay.Verdict)
			}
			if !reflect.DeepEqual(live.Findings, replay.Findings) {
				a, _ := json.MarshalIndent(live.Findings, "", " ")
				b, _ := json.MarshalIndent(replay.Findings, "", " ")
				t.Errorf("findings differ\n--host-root:\n%s\n--root:\n%s", a, b)
			}
			log := strings.Join(ranLog(t, dir), "\n")
			if !strings.Contains(log, "dmesg") || !strings.Contains(log, "hdparm -W /dev/sda") {
				t.Errorf("the host's dmesg and hdparm did not run inside the root; ran:\n%s", log)
			}
			// df is not on this host (the recording has none): said of
			// the host, with the install for the host.
			found := false
			for _, s := range live.Skipped {
				if s.Reason == "df: not installed on the host" {
					found = strings.HasPrefix(s.Hint, "on the host (not in the container): ") && strings.Contains(s.Hint, "coreutils")
				}
			}
			if !found {
				t.Errorf("no skipped entry says df is missing on the host: %+v", live.Skipped)
			}
		})
	}
}

// A program that hangs on the host is killed at the probe timeout, as on
// the machine the doctor runs on.
func TestHostRootHangingProgramIsKilled(t *testing.T) {
	dir := hostMount(t, "zpool-hung")
	live, _ := judge(t, "--host-root", dir)
	timedOut := false
	for _, s := range live.Skipped {
		timedOut = timedOut || strings.Contains(s.Reason, "timed out") && strings.HasPrefix(s.Check, "zpool")
	}
	if !timedOut {
		t.Errorf("no skipped entry says zpool timed out: %+v", live.Skipped)
	}
	n := 0
	for _, line := range ranLog(t, dir) {
		pid, argv, _ := strings.Cut(line, " ")
		if !strings.HasPrefix(argv, "zpool") && !strings.HasPrefix(argv, "zfs") {
			continue
		}
		n++
		p, _ := strconv.Atoi(pid)
		if err := syscall.Kill(p, 0); err == nil {
			t.Errorf("%s (pid %d) still runs after the doctor exited", argv, p)
		}
	}
	if n == 0 {
		t.Error("the hanging zpool did not run")
	}
}

func TestHostRootUsageErrors(t *testing.T) {
	notRoot := t.TempDir()
	for _, args := range [][]string{
		{"--host-root", "/", "--root", "fixtures/healthy-workstation"},
		{"--host-root", "/", "--snapshot", "x.tar.gz"},
		{"--host-root", filepath.Join(notRoot, "absent")},
		{"--host-root", notRoot},
		{"snapshot", "-o", filepath.Join(notRoot, "x.tar.gz"), "--host-root", "/", "--root", "fixtures/healthy-workstation"},
	} {
		if _, stderr, code := runBinary(t, args...); code != 3 || !bytes.Contains(stderr, []byte("--host-root")) {
			t.Errorf("%v: exit %d, stderr %q; want 3 naming --host-root", args, code, stderr)
		}
	}
}

// snapshot --host-root records the host (its commands run in it), and the
// snapshot's replay judges as the host root did (serials kept, so that
// the evidence compares).
func TestHostRootSnapshot(t *testing.T) {
	dir := hostMount(t, "hpe-microserver-writethrough")
	out := filepath.Join(t.TempDir(), "host.tar.gz")
	if _, stderr, code := runBinary(t, "snapshot", "--host-root", dir, "--keep-serials", "--probe-timeout", "1s", "-o", out); code != 0 {
		t.Fatalf("snapshot --host-root: exit %d: %s", code, stderr)
	}
	live, code := judge(t, "--host-root", dir)
	replay, want := judge(t, "--snapshot", out)
	if code != want || !reflect.DeepEqual(live.Findings, replay.Findings) {
		a, _ := json.MarshalIndent(live.Findings, "", " ")
		b, _ := json.MarshalIndent(replay.Findings, "", " ")
		t.Errorf("exit %d vs %d; findings differ\n--host-root:\n%s\n--snapshot:\n%s", code, want, a, b)
	}
}
