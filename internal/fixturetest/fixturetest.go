// Package fixturetest is what the tests of several packages need to replay
// fixtures/: the list of recorded machines and whether one recorded a
// sampling window. Only tests import it; the binary never does.
package fixturetest

import (
	"os"
	"path/filepath"
	"testing"
)

// Machines lists the recorded machines under dir (those with a sys/ tree),
// by name; none is a failure of the test.
func Machines(t testing.TB, dir string) []string {
	t.Helper()
	ents, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, e := range ents {
		if e.IsDir() && exists(filepath.Join(dir, e.Name(), "sys")) {
			out = append(out, e.Name())
		}
	}
	if len(out) == 0 {
		t.Fatalf("no recorded machines under %s", dir)
	}
	return out
}

// HasWindow reports whether a machine recorded a sampling window; its
// golden files are made with --sample.
func HasWindow(dir, name string) bool {
	return exists(filepath.Join(dir, name, "samples", "window.yaml"))
}

func exists(p string) bool { _, err := os.Stat(p); return err == nil }
