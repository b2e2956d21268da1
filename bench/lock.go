package bench

import (
	"fmt"
	"path/filepath"
	"strings"
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
