package bench

import (
	"bytes"
	"context"
	crand "crypto/rand"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/diskdoctor/diskdoctor/machine/tempname"

	"golang.org/x/sys/unix"

	"github.com/diskdoctor/diskdoctor/machine"
)

// Runner is the one place where the bench executes programs and writes
// files: fio, dd, the test file, the O_DIRECT probe. Exec is the live
// machine; Replay answers from a recorded machine's fio outputs.
type Runner interface {
	// LookPath finds a program (fio, dd).
	LookPath(name string) (string, error)
	// Fio runs fio with argv (no program name) and returns its standard
	// output and standard error; a non-zero exit is an error.
	Fio(ctx context.Context, fio string, argv []string) (stdout, stderr []byte, err error)
	// DD runs dd with argv for at most d (then interrupts it, and dd
	// prints its summary) and returns its standard error.
	DD(ctx context.Context, dd string, argv []string, d time.Duration) (stderr []byte, err error)
	// Fill writes size bytes of fresh random data to path: a new file
	// (O_EXCL), or a raw device opened O_EXCL and held until Close.
	Fill(ctx context.Context, path string, size uint64, device bool, progress func(done, total uint64)) error
	// ProbeDirect writes one aligned 4 KiB block with O_DIRECT in dir.
	ProbeDirect(ctx context.Context, dir string) (ok bool, why string)
	// Remove removes a file; one already gone is removed.
	Remove(path string) error
	// RemoveStale removes the test files of dead runs in dir and names
	// them; with keep it only names them.
	RemoveStale(dir string, keep bool) ([]string, error)
	// Close releases what Fill holds (the exclusive device).
	Close() error
	// Lock holds the target device (its "major:minor") for this run
	// alone until release; a device another run holds is a *LockedError.
	Lock(devNo string) (release func() error, err error)
}

// Exec is the live machine's runner.
type Exec struct {
	held *os.File // the raw device, opened O_EXCL for the whole run
	// Dirs are where fio and dd are found: nil for machine.SystemPath,
	// never $PATH (a test's own directories otherwise). --fio PATH names
	// a program outright.
	Dirs []string
	// LockDir is where the device locks go ("": LockDir).
	LockDir string
}

// Lock implements Runner.
func (e *Exec) Lock(devNo string) (func() error, error) {
	return lockDevice(or(e.LockDir, LockDir), devNo)
}

// LookPath implements Runner.
func (e *Exec) LookPath(name string) (string, error) { return machine.FindProgram(name, e.Dirs) }

// Fio implements Runner. fio runs in its own process group; on
// cancellation the group gets SIGTERM (fio stops its jobs and exits), then
// SIGKILL after 5 s.
func (e *Exec) Fio(ctx context.Context, fio string, argv []string) ([]byte, []byte, error) {
	cmd := exec.CommandContext(ctx, fio, argv...)
	cmd.Env = machine.ProgramEnv(e.Dirs)
	stopGroup(cmd, syscall.SIGTERM)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	return stdout.Bytes(), stderr.Bytes(), err
}

// stopGroup puts the command in its own process group and makes
// cancellation signal the whole group: fio forks one process per job.
func stopGroup(cmd *exec.Cmd, sig syscall.Signal) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.Cancel = func() error { return syscall.Kill(-cmd.Process.Pid, sig) }
	cmd.WaitDelay = 5 * time.Second
}

// DD implements Runner.
func (e *Exec) DD(ctx context.Context, dd string, argv []string, d time.Duration) ([]byte, error) {
	tctx, cancel := context.WithTimeout(ctx, d)
	defer cancel()
	cmd := exec.CommandContext(tctx, dd, argv...)
	cmd.Env = machine.ProgramEnv(e.Dirs)
	stopGroup(cmd, syscall.SIGINT)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	err := cmd.Run()
	if tctx.Err() != nil && ctx.Err() == nil {
		err = nil // stopped at --runtime, as meant: the summary follows
	}
	return stderr.Bytes(), err
}

// Fill implements Runner.
func (e *Exec) Fill(ctx context.Context, path string, size uint64, device bool, progress func(done, total uint64)) error {
	flags := os.O_WRONLY | os.O_EXCL
	if !device {
		flags |= os.O_CREATE
	}
	f, err := os.OpenFile(path, flags|syscall.O_CLOEXEC, 0o600)
	if err != nil {
		if device && errors.Is(err, syscall.EBUSY) {
			return fmt.Errorf("%s is in use (the kernel refused an exclusive open: mounted, swap, or held by md, LVM, dm or ZFS): %w", path, err)
		}
		return fmt.Errorf("test file: %w", err)
	}
	err = fillRandom(ctx, f, size, progress)
	if err == nil {
		err = settle(f)
	}
	if device && err == nil {
		e.held = f // the exclusive open keeps others from mounting it meanwhile
		return nil
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	return err
}

// settle leaves the file on stable storage, no other dirty data of the
// filesystem still being written back while the first job runs (a syncfs,
// not just an fsync), and the file's pages out of the page cache. The dry
// run's recipe (PrepareRecipe) does the same steps with coreutils.
func settle(f *os.File) error {
	if err := f.Sync(); err != nil {
		return err
	}
	fd := int(f.Fd())
	if err := unix.Syncfs(fd); err != nil {
		return fmt.Errorf("syncfs: %w", err)
	}
	_ = unix.Fadvise(fd, 0, 0, unix.FADV_DONTNEED) // fio's invalidate=1 does it too; only a hint
	return nil
}

// fillRandom writes n bytes of fresh random data (ChaCha8 seeded from
// crypto/rand: incompressible and never repeated), in 1 MiB writes: the
// recipe's dd bs=1M writes the same sizes.
func fillRandom(ctx context.Context, w io.Writer, n uint64, progress func(done, total uint64)) error {
	var seed [32]byte
	_, _ = crand.Read(seed[:])
	rng := rand.NewChaCha8(seed)
	buf := make([]byte, mib)
	for done := uint64(0); done < n; {
		if err := ctx.Err(); err != nil {
			return err
		}
		chunk := buf[:min(uint64(len(buf)), n-done)]
		_, _ = rng.Read(chunk)
		if _, err := w.Write(chunk); err != nil {
			return fmt.Errorf("writing the test file: %w", err)
		}
		done += uint64(len(chunk))
		if progress != nil && done%(64*mib) == 0 {
			progress(done, n)
		}
	}
	return nil
}

// ProbeDirect implements Runner: opening with O_DIRECT and writing one
// aligned block is the only way to know the filesystem honours it.
func (*Exec) ProbeDirect(_ context.Context, dir string) (bool, string) {
	p := filepath.Join(dir, fmt.Sprintf(".diskdoctor-odirect-%d.tmp", os.Getpid()))
	defer os.Remove(p)
	fd, err := syscall.Open(p, syscall.O_WRONLY|syscall.O_CREAT|syscall.O_EXCL|syscall.O_DIRECT|syscall.O_CLOEXEC, 0o600)
	if err != nil {
		if errors.Is(err, syscall.EINVAL) {
			return false, "open with O_DIRECT: " + err.Error()
		}
		return false, "open: " + err.Error()
	}
	defer syscall.Close(fd)
	buf, err := syscall.Mmap(-1, 0, 4096, syscall.PROT_READ|syscall.PROT_WRITE, syscall.MAP_ANON|syscall.MAP_PRIVATE)
	if err != nil {
		return false, "mmap: " + err.Error()
	}
	defer syscall.Munmap(buf)
	_, _ = crand.Read(buf)
	if _, err := syscall.Write(fd, buf); err != nil {
		return false, "aligned 4 KiB O_DIRECT write: " + err.Error()
	}
	return true, ""
}

// Remove implements Runner.
func (*Exec) Remove(p string) error {
	if err := os.Remove(p); err != nil && !errors.Is(err, os.ErrNotExist) {
		return err
	}
	return nil
}

// RemoveStale implements Runner: .diskdoctor-bench-PID.tmp (and the dd
// fallback's .src beside it) whose PID no longer runs.
func (e *Exec) RemoveStale(dir string, keep bool) ([]string, error) {
	ents, err := os.ReadDir(dir)
	if err != nil {
		return nil, err
	}
	var removed []string
	var errs []error
	for _, ent := range ents {
		pid, ok := stalePID(ent.Name())
		if !ok || !ent.Type().IsRegular() || pid == os.Getpid() || tempname.Alive(pid) {
			continue
		}
		p := filepath.Join(dir, ent.Name())
		if keep {
			removed = append(removed, p)
			continue
		}
		if err := e.Remove(p); err != nil {
			errs = append(errs, err)
			continue
		}
		removed = append(removed, p)
	}
	return removed, errors.Join(errs...)
}

// stalePID reads the PID of a test file's name.
func stalePID(name string) (int, bool) {
	rest, ok := strings.CutPrefix(name, TestFilePrefix)
	if !ok {
		return 0, false
	}
	rest, ok = strings.CutSuffix(strings.TrimSuffix(rest, ".src"), TestFileSuffix)
	if !ok {
		return 0, false
	}
	pid, err := strconv.Atoi(rest)
	return pid, err == nil && pid > 0
}

// errnoText names an errno that fio reports (5: input/output error).
func errnoText(n int) string { return syscall.Errno(n).Error() }

// Close implements Runner.
func (e *Exec) Close() error {
	if e.held == nil {
		return nil
	}
	err := e.held.Close()
	e.held = nil
	return err
}

// Replay is a recorded bench run: fio's answers are the recorded machine's
// commands (commands/manifest.yaml, argv "fio …"), and nothing is written.
type Replay struct {
	Host *machine.Host
	Root string // as given (--root)
	// Recording is the run recorded (nil: none), for the error of a call
	// it does not hold.
	Recording *Recording
}

// LookPath implements Runner: fio is there when the recording has its
// version.
func (r *Replay) LookPath(name string) (string, error) { return name, nil }

// Fio implements Runner.
func (r *Replay) Fio(ctx context.Context, fio string, argv []string) ([]byte, []byte, error) {
	res, err := r.Host.Run(ctx, append([]string{fio}, argv...)...)
	if errors.Is(err, machine.ErrToolMissing) {
		// An argv the recording lacks: not a missing fio (the machine may
		// well have one), a call that was never recorded.
		if r.Recording == nil {
			return nil, nil, NoRecording(r.Root)
		}
		return nil, nil, &notRecorded{fmt.Sprintf("fio %s: not in the bench run recorded in %s (%s)", strings.Join(argv, " "), r.Recording.Root, r.Recording.Args())}
	}
	if err != nil {
		return nil, nil, err
	}
	if res.Exit != 0 {
		return res.Stdout, res.Stderr, fmt.Errorf("exit status %d", res.Exit)
	}
	return res.Stdout, res.Stderr, nil
}

// DD implements Runner.
func (r *Replay) DD(ctx context.Context, dd string, argv []string, _ time.Duration) ([]byte, error) {
	res, err := r.Host.Run(ctx, append([]string{dd}, argv...)...)
	if err != nil {
		return nil, err
	}
	return res.Stderr, nil
}

// Fill implements Runner: nothing to write on a recorded machine.
func (*Replay) Fill(context.Context, string, uint64, bool, func(done, total uint64)) error {
	return nil
}

// ProbeDirect implements Runner: the recorded jobs ran with O_DIRECT.
func (*Replay) ProbeDirect(context.Context, string) (bool, string) { return true, "" }

// Remove implements Runner.
func (*Replay) Remove(string) error { return nil }

// RemoveStale implements Runner.
func (*Replay) RemoveStale(string, bool) ([]string, error) { return nil, nil }

// Lock implements Runner: a replay measures nothing and holds nothing.
func (*Replay) Lock(string) (func() error, error) { return func() error { return nil }, nil }

// Close implements Runner.
func (*Replay) Close() error { return nil }

// lockDevice takes the exclusive lock of device devNo (the st_dev of the
// target directory's filesystem, the st_rdev of a raw device: both are
// the device measured), flock(2) LOCK_EX|LOCK_NB on its lock file in dir,
// and writes its pid there for the run it refuses. The kernel drops a
// flock with the file's last descriptor, so a run that is killed holds
// nothing. The file is opened without following a link (dir may be
// world-writable, sticky) and must be a regular file.
func lockDevice(dir, devNo string) (release func() error, err error) {
	if devNo == "" {
		return func() error { return nil }, nil // nothing to name the lock by
	}
	p := LockPath(dir, devNo)
	f, err := os.OpenFile(p, os.O_RDWR|os.O_CREATE|unix.O_NOFOLLOW|unix.O_CLOEXEC, 0o644)
	if err != nil {
		return nil, fmt.Errorf("bench: the lock of device %s: %w", devNo, err)
	}
	if st, err := f.Stat(); err != nil || !st.Mode().IsRegular() {
		f.Close()
		return nil, fmt.Errorf("bench: the lock of device %s: %s is not a regular file", devNo, p)
	}
	if err := unix.Flock(int(f.Fd()), unix.LOCK_EX|unix.LOCK_NB); err != nil {
		defer f.Close()
		if errors.Is(err, unix.EWOULDBLOCK) {
			b := make([]byte, 32)
			n, _ := f.ReadAt(b, 0)
			pid, _ := strconv.Atoi(strings.TrimSpace(string(b[:n])))
			return nil, &LockedError{Path: p, DevNo: devNo, PID: pid}
		}
		return nil, fmt.Errorf("bench: the lock of device %s (%s): %w", devNo, p, err)
	}
	// Ours now: the pid for whoever is refused.
	if err := f.Truncate(0); err == nil {
		_, _ = f.WriteAt([]byte(strconv.Itoa(os.Getpid())+"\n"), 0)
	}
	return f.Close, nil
}
