package bench

import (
	"os"
	"path/filepath"
	"testing"
)

// issue #26: bench's fio came from $PATH, so a directory in front of it
// ran someone else's fio as root. It comes from the system directories;
// a test names its own.
func TestFioNotFromPATH(t *testing.T) {
	dir := t.TempDir()
	fake := filepath.Join(dir, "fio")
	if err := os.WriteFile(fake, []byte("#!/bin/sh\nexit 0\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	t.Setenv("PATH", dir+string(os.PathListSeparator)+os.Getenv("PATH"))
	if p, _ := (&Exec{}).LookPath("fio"); p == fake {
		t.Errorf("fio found in $PATH: %s", p)
	}
	if p, err := (&Exec{Dirs: []string{dir}}).LookPath("fio"); p != fake || err != nil {
		t.Errorf("Exec{Dirs}: %q, %v; want %s", p, err, fake)
	}
	// --fio PATH names the program outright.
	if p, err := (&Exec{}).LookPath(fake); p != fake || err != nil {
		t.Errorf("--fio %s: %q, %v", fake, p, err)
	}
}
