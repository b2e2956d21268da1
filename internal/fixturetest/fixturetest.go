// Package fixturetest is what the tests of several packages need to replay
// fixtures/: the list of recorded machines and whether one recorded a
// sampling window. Only tests import it; the binary never does.
package fixturetest

import (
	"bytes"
	"os"
	"path/filepath"
	"strconv"
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

// Golden compares got with the golden file at path, or rewrites the file
// when update is set (go test -update); pkg names the package whose -update
// writes it, for the message when the file is missing.
func Golden(t testing.TB, path string, got []byte, update bool, pkg string) {
	t.Helper()
	if update {
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (write it with: go test %s -update, then review the diff)", err, pkg)
	}
	if !bytes.Equal(want, got) {
		t.Errorf("%s differs from the doctor's output; if the change is intended, run go test ./... -update and review the diff\n%s", path, FirstDiff(want, got))
	}
}

// FirstDiff shows the first differing line, enough to see what changed.
func FirstDiff(want, got []byte) string {
	wl, gl := bytes.Split(want, []byte("\n")), bytes.Split(got, []byte("\n"))
	for i := 0; i < len(wl) || i < len(gl); i++ {
		var w, g []byte
		if i < len(wl) {
			w = wl[i]
		}
		if i < len(gl) {
			g = gl[i]
		}
		if !bytes.Equal(w, g) {
			return "line " + strconv.Itoa(i+1) + ":\n  want: " + string(w) + "\n  got:  " + string(g)
		}
	}
	return ""
}

// BenchMachine is the recorded machine a benchmark examines, named by
// $DISKDOCTOR_BENCH_ROOT (the synthetic 1,000-disk machine, for one); the
// benchmark is skipped without it.
func BenchMachine(b testing.TB) string {
	root := os.Getenv("DISKDOCTOR_BENCH_ROOT")
	if root == "" {
		b.Skip("set DISKDOCTOR_BENCH_ROOT to a recorded machine (e.g. one written by DISKDOCTOR_SYNTH_OUT=DIR go test -run TestWriteSyntheticMachine ./cmd/diskdoctor)")
	}
	return root
}
