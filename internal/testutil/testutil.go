// Package testutil holds the helpers the probes' and the machine's tests
// share, so that no package's tests keep a copy of them.
package testutil

import (
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
