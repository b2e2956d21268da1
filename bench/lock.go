package bench

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"golang.org/x/sys/unix"
)

// LockDir is where a bench run's lock files go: the FHS's directory for
// lock files (FHS 3.0, 5.9 /var/lock, which Debian makes /run/lock), on a
// tmpfs, so a lock never outlives a boot. Not the target directory: it
// may be writable by the user whose files are measured (and their test
// files are swept there), and a lock file there would be one more write
// on the filesystem being measured.
const LockDir = "/run/lock"

// LockPath is the lock file of the device "major:minor" in dir.
func LockPath(dir, devNo string) string {
	return filepath.Join(dir, "diskdoctor-bench-"+strings.ReplaceAll(devNo, ":", "-")+".lock")
}

// LockedError is a target another bench run holds.
type LockedError struct {
	Path  string
	DevNo string
	PID   int // 0: the holder did not write its pid
}

func (e *LockedError) Error() string {
	who := "another bench run"
	if e.PID > 0 {
		who = fmt.Sprintf("another bench run (pid %d)", e.PID)
	}
	return fmt.Sprintf("bench refused: %s holds device %s (%s): two runs at once share the device and each measures a part of it; wait for it to end (--force does not override this)", who, e.DevNo, e.Path)
}

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
