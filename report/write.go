package report

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"

	"github.com/diskdoctor/diskdoctor/internal/shellquote"
)

// WriteAtomically writes a temporary file beside path and renames it over
// path, so a reader (a node_exporter scrape) never sees half a file, and a
// write that fails or is interrupted leaves the previous file in place.
//
// The temporary file is named .BASE.PID.RANDOM: temporary files of earlier
// writes whose process is dead (killed mid-write) are removed first. It is
// synced before the rename, so a crash after the rename cannot leave an
// empty report. An existing report keeps its mode and owner; a new one gets
// mode.
func WriteAtomically(path string, mode os.FileMode, write func(io.Writer) error) error {
	dir, base := filepath.Dir(path), filepath.Base(path)
	if st, err := os.Stat(dir); err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return fmt.Errorf("--output %s: the directory %s does not exist (create it first: mkdir -p %s)", path, dir, shellquote.Quote(dir))
		}
		return fmt.Errorf("--output %s: %w", path, err)
	} else if !st.IsDir() {
		return fmt.Errorf("--output %s: %s is not a directory", path, dir)
	}
	removeStaleTemps(dir, base)

	uid, gid := -1, -1
	if st, err := os.Stat(path); err == nil {
		if !st.Mode().IsRegular() {
			return fmt.Errorf("--output %s: not a regular file", path)
		}
		mode = st.Mode().Perm()
		if sys, ok := st.Sys().(*syscall.Stat_t); ok {
			uid, gid = int(sys.Uid), int(sys.Gid)
		}
	}

	f, err := os.CreateTemp(dir, tempPrefix(base)+"*")
	if err != nil {
		return fmt.Errorf("--output %s: %w", path, err)
	}
	defer os.Remove(f.Name()) // after the rename, there is nothing left to remove
	if err := write(f); err != nil {
		f.Close()
		return err
	}
	if err := f.Chmod(mode); err != nil {
		f.Close()
		return err
	}
	if uid >= 0 && uid != os.Geteuid() || gid >= 0 && gid != os.Getegid() {
		// Only root may give a file away; anyone else keeps the report
		// theirs, as a plain overwrite would not.
		_ = f.Chown(uid, gid)
	}
	if err := f.Sync(); err != nil {
		f.Close()
		return err
	}
	if err := f.Close(); err != nil {
		return err
	}
	return os.Rename(f.Name(), path)
}

// tempPrefix is the name of the temporary files of one process's writes of
// base.
func tempPrefix(base string) string {
	return "." + base + "." + strconv.Itoa(os.Getpid()) + "."
}

// removeStaleTemps removes .BASE.PID.* files whose process no longer
// exists: what a killed write of the same report left behind.
func removeStaleTemps(dir, base string) {
	matches, _ := filepath.Glob(filepath.Join(dir, "."+globEscape(base)+".*.*"))
	for _, m := range matches {
		rest := strings.TrimPrefix(filepath.Base(m), "."+base+".")
		pidText, _, ok := strings.Cut(rest, ".")
		pid, err := strconv.Atoi(pidText)
		if !ok || err != nil || pid <= 0 || processAlive(pid) {
			continue
		}
		if st, err := os.Lstat(m); err == nil && st.Mode().IsRegular() {
			_ = os.Remove(m)
		}
	}
}

// processAlive: signal 0 checks that a process exists (EPERM: it exists
// and belongs to someone else).
func processAlive(pid int) bool {
	err := syscall.Kill(pid, 0)
	return err == nil || errors.Is(err, syscall.EPERM)
}

func globEscape(s string) string {
	return strings.NewReplacer(`\`, `\\`, `*`, `\*`, `?`, `\?`, `[`, `\[`).Replace(s)
}
