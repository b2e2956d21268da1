// Package tempname names the temporary files and directories diskdoctor
// creates beside a user's files or in $TMPDIR, so that a later run can
// tell its own leftovers (a run killed with SIGKILL cannot clean up) from
// anything else and remove those alone.
//
// A name is PREFIX + PID + "-" + 16 lowercase hex digits (64 random bits)
// + SUFFIX, the prefix naming diskdoctor (".r.json.diskdoctor-",
// "diskdoctor-snapshot-"). A leftover is removed only when its name has
// exactly that form and its process is gone: a user's ".r.json.33768.bak"
// or ".r.json.33769.my notes" does not have it, and a name of a running
// process belongs to that process.
package tempname

import (
	"crypto/rand"
	"encoding/hex"
	"errors"
	"strconv"
	"strings"
	"syscall"
)

const (
	hexLen  = 16
	randLen = hexLen / 2
)

// New is a fresh name for this process.
func New(prefix, suffix string) string {
	var b [randLen]byte
	_, _ = rand.Read(b[:]) // crypto/rand.Read never fails (Go 1.24)
	return prefix + strconv.Itoa(syscall.Getpid()) + "-" + hex.EncodeToString(b[:]) + suffix
}

// PID is the process of a name New(prefix, suffix) made, or false when
// name does not have exactly that form.
func PID(name, prefix, suffix string) (int, bool) {
	rest, ok := strings.CutPrefix(name, prefix)
	if !ok {
		return 0, false
	}
	if rest, ok = strings.CutSuffix(rest, suffix); !ok {
		return 0, false
	}
	pidText, random, ok := strings.Cut(rest, "-")
	if !ok || len(random) != hexLen || strings.ToLower(random) != random {
		return 0, false
	}
	if _, err := hex.DecodeString(random); err != nil {
		return 0, false
	}
	pid, err := strconv.Atoi(pidText)
	if err != nil || pid <= 0 || strconv.Itoa(pid) != pidText {
		return 0, false
	}
	return pid, true
}

// Stale reports whether name is one New(prefix, suffix) made for a
// process that no longer exists.
func Stale(name, prefix, suffix string) bool {
	pid, ok := PID(name, prefix, suffix)
	return ok && !Alive(pid)
}

// Alive: signal 0 checks that a process exists (kill(2); EPERM: it exists
// and belongs to someone else). A pid reused since is taken as alive: the
// leftover stays, which is the safe mistake.
func Alive(pid int) bool {
	err := syscall.Kill(pid, 0)
	return err == nil || errors.Is(err, syscall.EPERM)
}
