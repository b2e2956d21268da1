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
	"io/fs"
	"os"
	"path/filepath"
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

// Mkdir makes this run's directory $TMPDIR/<prefix>PID-<16 hex>, mode
// 0700, after removing those that runs killed before they could clean up
// (SIGKILL leaves no chance) left there: a name of exactly that form,
// whose pid is dead, a directory (not a link: Lstat) owned by this user.
// Another user's directory is theirs to remove, even where its name is
// ours; what is inside one of ours the doctor wrote for this user, in a
// 0700 directory no one else could enter.
func Mkdir(prefix string) (string, error) {
	tmp := os.TempDir()
	ents, _ := os.ReadDir(tmp)
	for _, e := range ents {
		if !Stale(e.Name(), prefix, "") {
			continue
		}
		m := filepath.Join(tmp, e.Name())
		st, err := os.Lstat(m)
		if err != nil || !st.IsDir() {
			continue
		}
		if sys, ok := st.Sys().(*syscall.Stat_t); !ok || int(sys.Uid) != os.Geteuid() {
			continue
		}
		_ = os.RemoveAll(m)
	}
	for range 10 {
		dir := filepath.Join(tmp, New(prefix, ""))
		err := os.Mkdir(dir, 0o700)
		if !errors.Is(err, fs.ErrExist) {
			return dir, err
		}
	}
	return "", errors.New("no free name for a directory " + prefix + "… in " + tmp)
}
