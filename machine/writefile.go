package machine

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"syscall"

	"github.com/diskdoctor/diskdoctor/internal/shellquote"
	"github.com/diskdoctor/diskdoctor/machine/tempname"
)

// WriteAtomically writes a temporary file beside path and renames it over
// path, so a reader (a node_exporter scrape) never sees half a file, and a
// write that fails or is interrupted leaves the previous file in place.
//
// The temporary file is named .BASE.diskdoctor-PID-RANDOM.tmp
// (machine/tempname): temporary files of earlier writes of that exact
// form whose process is dead (killed mid-write) are removed first, and
// nothing else. It is
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

	f, err := createTemp(dir, base)
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

// tempPrefix and tempSuffix frame the temporary files of base: with
// tempname's pid and random part between them.
func tempPrefix(base string) string { return "." + base + ".diskdoctor-" }

const tempSuffix = ".tmp"

// createTemp creates a new temporary file for base in dir, mode 0600.
func createTemp(dir, base string) (*os.File, error) {
	for range 10 {
		name := filepath.Join(dir, tempname.New(tempPrefix(base), tempSuffix))
		f, err := os.OpenFile(name, os.O_RDWR|os.O_CREATE|os.O_EXCL|syscall.O_CLOEXEC, 0o600)
		if !errors.Is(err, fs.ErrExist) {
			return f, err
		}
	}
	return nil, errors.New("no free temporary file name")
}

// removeStaleTemps removes the temporary files of base that a write of
// the same report killed before its rename left behind: names of exactly
// the form createTemp makes (the user's .BASE.123.bak never has it) whose
// process is dead, and regular files only.
func removeStaleTemps(dir, base string) {
	matches, _ := filepath.Glob(filepath.Join(dir, globEscape(tempPrefix(base))+"*"+tempSuffix))
	for _, m := range matches {
		if !tempname.Stale(filepath.Base(m), tempPrefix(base), tempSuffix) {
			continue
		}
		if st, err := os.Lstat(m); err == nil && st.Mode().IsRegular() {
			_ = os.Remove(m)
		}
	}
}

func globEscape(s string) string {
	return strings.NewReplacer(`\`, `\\`, `*`, `\*`, `?`, `\?`, `[`, `\[`).Replace(s)
}
