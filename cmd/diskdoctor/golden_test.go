package main

import (
	"bytes"
	"flag"
	"os"
	"strconv"
	"testing"

	"github.com/diskdoctor/diskdoctor/internal/fixturetest"
)

var update = flag.Bool("update", false, "rewrite golden files (the fixtures' expected.json is doctor/'s, their text reports report/'s)")

const fixturesDir = "../../fixtures"

// fixtures lists every recorded machine under fixtures/.
func fixtures(t *testing.T) []string { return fixturetest.Machines(t, fixturesDir) }

func exists(p string) bool { _, err := os.Stat(p); return err == nil }

func hasWindow(name string) bool { return fixturetest.HasWindow(fixturesDir, name) }

func golden(t *testing.T, path string, got []byte) {
	t.Helper()
	if *update {
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (write it with: go test ./cmd/diskdoctor -update, then review the diff)", err)
	}
	if !bytes.Equal(want, got) {
		t.Errorf("%s differs from the doctor's output; if the change is intended, run go test ./... -update and review the diff\n%s", path, firstDiff(want, got))
	}
}

// firstDiff shows the first differing line, enough to see what changed.
func firstDiff(want, got []byte) string {
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
			return "line " + itoa(i+1) + ":\n  want: " + string(w) + "\n  got:  " + string(g)
		}
	}
	return ""
}

func itoa(n int) string { return strconv.Itoa(n) }
