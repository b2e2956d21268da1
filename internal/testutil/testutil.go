// Package testutil holds the helpers the probes' and the machine's tests
// share, so that no package's tests keep a copy of them.
package testutil

import (
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"testing"
)

// Ptr is a pointer to a copy of v.
func Ptr[T any](v T) *T { return &v }

// Must fails the test on an error.
func Must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

// WriteFile writes s to p, making its directories.
func WriteFile(t *testing.T, p, s string) {
	t.Helper()
	Must(t, os.MkdirAll(filepath.Dir(p), 0o755))
	Must(t, os.WriteFile(p, []byte(s), 0o644))
}

// CopyTree copies the directory tree src to dst (made if missing), keeping
// symbolic links as links with their own targets: a recorded machine's
// /sys and /dev/disk hold links. os.CopyFS does not serve: Go 1.24's
// returns ErrInvalid for a symbolic link ("Symbolic links in fsys are not
// supported", os/dir.go; Go 1.25 copies them), and go.mod allows Go 1.24.
func CopyTree(t *testing.T, dst, src string) {
	t.Helper()
	Must(t, filepath.WalkDir(src, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, err := filepath.Rel(src, p)
		if err != nil {
			return err
		}
		to := filepath.Join(dst, rel)
		switch {
		case d.Type()&fs.ModeSymlink != 0:
			target, err := os.Readlink(p)
			if err != nil {
				return err
			}
			return os.Symlink(target, to)
		case d.IsDir():
			return os.MkdirAll(to, 0o755)
		case d.Type().IsRegular():
			b, err := os.ReadFile(p)
			if err != nil {
				return err
			}
			info, err := d.Info()
			if err != nil {
				return err
			}
			return os.WriteFile(to, b, info.Mode().Perm()|0o200)
		default:
			return fmt.Errorf("%s: neither a file, a directory nor a symbolic link", p)
		}
	}))
}

// SharedSamples is the directory of real, published tool outputs shared by
// the project (not copied into the repository): shared/samples beside the
// module's root.
func SharedSamples() string {
	dir, err := os.Getwd()
	if err != nil {
		return "shared/samples"
	}
	for d := dir; ; d = filepath.Dir(d) {
		if _, err := os.Stat(filepath.Join(d, "go.mod")); err == nil {
			return filepath.Join(d, "..", "shared", "samples")
		}
		if filepath.Dir(d) == d {
			return filepath.Join(dir, "..", "..", "shared", "samples")
		}
	}
}

// ReadSample reads a shared sample, skipping the test when the shared
// samples are not beside the repository.
func ReadSample(t *testing.T, rel string) []byte {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(SharedSamples(), rel))
	if err != nil {
		t.Skipf("sample %s not available (%v): the shared samples live beside the repository", rel, err)
	}
	return b
}
