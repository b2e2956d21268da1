package main

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"unsafe"

	"golang.org/x/sys/unix"

	"github.com/diskdoctor/diskdoctor/bench"
)

// The test file a person prepares with the dry run's recipe is the one
// diskdoctor bench prepares (Exec.Fill): same size, fresh random data, on
// stable storage, none of it in the page cache, and — where strace can
// watch both — the same system calls on it in the same order (1 MiB
// writes to a file created O_EXCL, fsync, syncfs, fadvise DONTNEED over
// the whole file). The doctor's Fill runs in a child (this test binary,
// TestBenchFillHelper) so that strace can watch it alone.
func TestBenchRecipePreparesTheDoctorsFile(t *testing.T) {
	benchNeedFio(t) // without fio the dry run prints the dd fallback, which has no recipe
	dir := benchTestDir(t)
	printed := dryRunRecipe(t, "--size", "5m", dir)
	if len(printed.sections) != 8 || filepath.Dir(printed.file) != dir {
		t.Fatalf("dry run: test file %s, jobs %q", printed.file, printed.sections)
	}
	t.Run("the dry run's recipe", func(t *testing.T) {
		compareRecipe(t, printed.prepare, printed.file, filepath.Join(dir, "by-doctor.tmp"), 5<<20, false)
	})
	t.Run("an odd size", func(t *testing.T) {
		odd := uint64(5<<20 + 12345) // not a multiple of the 1 MiB writes: the recipe is exact anyway
		file := filepath.Join(dir, "odd-by-hand.tmp")
		compareRecipe(t, bench.PrepareRecipe(file, odd, false), file, filepath.Join(dir, "by-doctor.tmp"), odd, false)
	})
	t.Run("a raw device", func(t *testing.T) {
		dev := loopDevice(t, 8)
		printed := dryRunRecipe(t, "--device-write-i-know", "--size", "5m", dev)
		if printed.file != dev {
			t.Fatalf("dry run: test file %s, want %s", printed.file, dev)
		}
		compareRecipe(t, printed.prepare, dev, dev, 5<<20, true)
	})
}

func dryRunRecipe(t *testing.T, args ...string) handRecipe {
	t.Helper()
	var stdout, stderr bytes.Buffer
	if code := run(t.Context(), append([]string{"bench", "--dry-run", "--probe-timeout", "2s"}, args...), &stdout, &stderr); code != 0 {
		t.Fatalf("dry run: exit %d: %s", code, stderr.String())
	}
	printed, err := parseDryRun(stdout.String())
	if err != nil {
		t.Fatal(err)
	}
	return printed
}

// compareRecipe runs the recipe (which prepares handPath), then the
// doctor's Fill on doctorPath (on a device, the same one, after the
// recipe's state was read), and compares what they leave.
func compareRecipe(t *testing.T, recipe, handPath, doctorPath string, size uint64, device bool) {
	t.Helper()
	if !device {
		t.Cleanup(func() { os.Remove(handPath); os.Remove(doctorPath) })
	}
	strace, straceErr := exec.LookPath("strace")
	var handCalls, doctorCalls []string
	if straceErr == nil {
		handCalls = traced(t, strace, handPath, nil, "sh", "-c", recipe)
	} else if out, err := exec.Command("sh", "-c", recipe).CombinedOutput(); err != nil {
		t.Fatalf("%s: %v\n%s", recipe, err, out)
	}
	hand := fileState(t, handPath, size)
	if straceErr == nil {
		env := []string{"DISKDOCTOR_FILL_HELPER_PATH=" + doctorPath, "DISKDOCTOR_FILL_HELPER_SIZE=" + strconv.FormatUint(size, 10)}
		if device {
			env = append(env, "DISKDOCTOR_FILL_HELPER_DEVICE=1")
		}
		doctorCalls = traced(t, strace, doctorPath, env, os.Args[0], "-test.run=^TestBenchFillHelper$", "-test.count=1")
	} else {
		ex := &bench.Exec{}
		err := ex.Fill(t.Context(), doctorPath, size, device, nil)
		if cerr := ex.Close(); err == nil {
			err = cerr
		}
		if err != nil {
			t.Fatal(err)
		}
	}
	doctor := fileState(t, doctorPath, size)
	want := fileFacts{size: int64(size), regular: !device, cached: 0, random: true}
	if device {
		want.size = 8 << 20 // the loop device's
	}
	if hand.fileFacts != want || doctor.fileFacts != want {
		t.Errorf("by the recipe %+v, by the doctor %+v, want %+v\nrecipe: %s", hand.fileFacts, doctor.fileFacts, want, recipe)
	}
	if bytes.Equal(hand.head, doctor.head) {
		t.Error("the recipe's file and the doctor's begin with the same bytes: not fresh random data")
	}
	if straceErr != nil {
		t.Skipf("strace is not installed: the system calls are not compared (apt-get install strace)")
	}
	if !slices.Equal(handCalls, doctorCalls) {
		t.Errorf("system calls on the test file differ\nby the recipe: %q\nby the doctor: %q", handCalls, doctorCalls)
	}
	wantCalls := []string{"create exclusive"}
	if device {
		wantCalls = []string{"open for writing"}
	}
	wantCalls = append(wantCalls, fmt.Sprintf("write 1048576 ×%d", size>>20))
	if rest := size % (1 << 20); rest != 0 {
		wantCalls = append(wantCalls, fmt.Sprintf("write %d ×1", rest))
	}
	wantCalls = append(wantCalls, "fsync", "syncfs", "fadvise64 0 0 POSIX_FADV_DONTNEED")
	if !slices.Equal(doctorCalls, wantCalls) {
		t.Errorf("the doctor's system calls on the test file: %q, want %q", doctorCalls, wantCalls)
	}
}

// TestBenchFillHelper is the doctor's side of the test above, run as a
// child: Exec.Fill, as `diskdoctor bench` prepares its test file.
func TestBenchFillHelper(t *testing.T) {
	path, size := os.Getenv("DISKDOCTOR_FILL_HELPER_PATH"), os.Getenv("DISKDOCTOR_FILL_HELPER_SIZE")
	if path == "" {
		t.Skip("a child of TestBenchRecipePreparesTheDoctorsFile")
	}
	n, err := strconv.ParseUint(size, 10, 64)
	if err != nil {
		t.Fatal(err)
	}
	ex := &bench.Exec{}
	if err := ex.Fill(t.Context(), path, n, os.Getenv("DISKDOCTOR_FILL_HELPER_DEVICE") == "1", nil); err != nil {
		t.Fatal(err)
	}
	if err := ex.Close(); err != nil {
		t.Fatal(err)
	}
}

// straceLine is one system call as `strace -f -y` prints it: pid, name,
// arguments (file descriptors with their paths), result.
var straceLine = regexp.MustCompile(`^\d+\s+(\w+)\((.*)\)\s+= (-?\d+)`)

// joinResumed puts back together the system calls strace -f splits when
// another thread's call comes in between ("123 write(3</f>, ..., 1048576
// <unfinished ...>" then "123 <... write resumed>) = 1048576"): the Go
// runtime writes to its own descriptors from other threads while Fill
// writes the test file.
func joinResumed(lines []string) []string {
	pending := map[string]string{}
	var out []string
	for _, l := range lines {
		pid, rest, _ := strings.Cut(strings.TrimSpace(l), " ")
		rest = strings.TrimSpace(rest)
		switch {
		case strings.HasSuffix(rest, "<unfinished ...>"):
			pending[pid] = strings.TrimSuffix(rest, "<unfinished ...>")
		case strings.HasPrefix(rest, "<... "):
			head, ok := pending[pid]
			_, tail, found := strings.Cut(rest, " resumed>")
			if ok && found {
				out = append(out, pid+" "+strings.TrimRight(head, " ")+tail)
				delete(pending, pid)
			}
		default:
			out = append(out, l)
		}
	}
	return out
}

// traced runs argv under strace and returns the system calls made on file,
// in order, consecutive writes of one size counted: "create exclusive",
// "write 1048576 ×5", "fsync", "syncfs", "fadvise64 0 0 POSIX_FADV_DONTNEED".
// A read-only open (sync -f, dd iflag=nocache) is not listed: it changes
// nothing.
func traced(t *testing.T, strace, file string, env []string, argv ...string) []string {
	t.Helper()
	log := filepath.Join(t.TempDir(), "strace.log")
	cmd := exec.Command(strace, append([]string{"-f", "-qq", "-y", "-s", "0", "-o", log,
		"-e", "trace=open,openat,creat,write,pwrite64,writev,fsync,fdatasync,syncfs,sync,sync_file_range,fadvise64,ftruncate"}, argv...)...)
	cmd.Env = append(os.Environ(), env...)
	if out, err := cmd.CombinedOutput(); err != nil {
		if strings.Contains(string(out), "ptrace") {
			t.Skipf("strace cannot trace here: %s", out)
		}
		t.Fatalf("%q: %v\n%s", argv, err, out)
	}
	text, err := os.ReadFile(log)
	if err != nil {
		t.Fatal(err)
	}
	var calls []string
	var last string
	var n int
	flush := func() {
		if last != "" {
			calls = append(calls, fmt.Sprintf("%s ×%d", last, n))
		}
		last, n = "", 0
	}
	onFile := "<" + file + ">"
	for _, l := range joinResumed(strings.Split(string(text), "\n")) {
		m := straceLine.FindStringSubmatch(l)
		if m == nil {
			continue
		}
		name, args, ret := m[1], strings.Split(m[2], ", "), m[3]
		var call string
		switch {
		case name == "open" || name == "openat" || name == "creat":
			switch {
			case !strings.Contains(m[2], `"`+file+`"`):
				continue
			case strings.Contains(m[2], "O_CREAT"):
				call = "create"
				if strings.Contains(m[2], "O_EXCL") {
					call += " exclusive"
				}
			case strings.Contains(m[2], "O_WRONLY") || strings.Contains(m[2], "O_RDWR"):
				// On a device O_EXCL only claims it (EBUSY when mounted):
				// the data written is the same.
				call = "open for writing"
			default:
				continue
			}
		case !strings.HasSuffix(args[0], onFile):
			continue
		case name == "write" || name == "pwrite64":
			if last == "write "+ret {
				n++
				continue
			}
			flush()
			last, n = "write "+ret, 1
			continue
		case name == "fadvise64":
			call = strings.Join(append([]string{name}, args[1:]...), " ")
		default:
			call = name
		}
		flush()
		calls = append(calls, call)
	}
	flush()
	return calls
}

type fileFacts struct {
	size    int64
	regular bool
	cached  int  // pages in the page cache (mincore, as fincore counts them)
	random  bool // the first 64 KiB are not one repeated byte
}

type fileInfo struct {
	fileFacts
	head []byte
}

func fileState(t *testing.T, path string, size uint64) fileInfo {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		t.Fatal(err)
	}
	var s fileInfo
	s.regular = fi.Mode().IsRegular()
	end, err := f.Seek(0, io.SeekEnd) // a device's size too
	if err != nil {
		t.Fatal(err)
	}
	s.size = end
	if s.size < int64(size) || size == 0 {
		return s
	}
	// Count the cached pages of the test file's bytes before reading any.
	m, err := unix.Mmap(int(f.Fd()), 0, int(size), unix.PROT_READ, unix.MAP_SHARED)
	if err != nil {
		t.Fatal(err)
	}
	defer unix.Munmap(m)
	pg := os.Getpagesize()
	vec := make([]byte, (len(m)+pg-1)/pg)
	if _, _, e := unix.Syscall(unix.SYS_MINCORE, uintptr(unsafe.Pointer(&m[0])), uintptr(len(m)), uintptr(unsafe.Pointer(&vec[0]))); e != 0 {
		t.Fatalf("mincore: %v", e)
	}
	for _, v := range vec {
		s.cached += int(v & 1)
	}
	s.head = make([]byte, min(64<<10, size))
	if _, err := f.ReadAt(s.head, 0); err != nil {
		t.Fatal(err)
	}
	s.random = bytes.Count(s.head, s.head[:1]) != len(s.head)
	return s
}

func TestJoinResumed(t *testing.T) {
	got := joinResumed([]string{
		`7 write(3</t/f>, ""..., 1048576 <unfinished ...>`,
		`8 write(5<anon_inode:[eventfd]>, "", 8) = 8`,
		`7 <... write resumed>) = 1048576`,
		`7 fadvise64(3</t/f>, 0, 0, POSIX_FADV_DONTNEED) = 0`,
	})
	want := []string{
		`8 write(5<anon_inode:[eventfd]>, "", 8) = 8`,
		`7 write(3</t/f>, ""..., 1048576) = 1048576`,
		`7 fadvise64(3</t/f>, 0, 0, POSIX_FADV_DONTNEED) = 0`,
	}
	if !slices.Equal(got, want) {
		t.Errorf("joinResumed:\n got %q\nwant %q", got, want)
	}
	if m := straceLine.FindStringSubmatch(got[1]); m == nil || m[1] != "write" || m[3] != "1048576" {
		t.Errorf("a joined line does not parse: %q", m)
	}
}
