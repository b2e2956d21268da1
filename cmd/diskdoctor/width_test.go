package main

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"

	"github.com/diskdoctor/diskdoctor/internal/fixturetest"
)

// TestWidthWhenPiped: piped, the report is laid out for 80 columns
// whatever COLUMNS says; --width overrides; the output is the golden text
// (report/ writes the goldens, the binary must print the same).
func TestWidthWhenPiped(t *testing.T) {
	dir := filepath.Join(fixturesDir, "hpe-microserver-writethrough")
	for args, file := range map[string]string{"": "expected.txt", "120": "expected-120.txt", "v": "expected-v.txt"} {
		a := []string{"--root", "fixtures/hpe-microserver-writethrough", "--probe-timeout", "1s"}
		switch args {
		case "120":
			a = append(a, "--width", "120")
		case "v":
			a = append(a, "-v")
		}
		t.Setenv("COLUMNS", "200") // not a terminal: ignored
		out, stderr, code := runBinary(t, a...)
		if code != 2 {
			t.Fatalf("%v: exit %d: %s", a, code, stderr)
		}
		want, err := os.ReadFile(filepath.Join(dir, file))
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(out, want) {
			t.Errorf("%v: the output is not %s\n%s", a, file, fixturetest.FirstDiff(want, out))
		}
	}
}
