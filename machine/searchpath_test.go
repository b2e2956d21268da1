package machine_test

import (
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/diskdoctor/diskdoctor/machine"
)

// fakeTool writes an executable script name into a world-writable
// directory that, run, leaves a mark there.
func fakeTool(t *testing.T, name string) (dir, mark string) {
	t.Helper()
	dir = t.TempDir()
	if err := os.Chmod(dir, 0o777); err != nil {
		t.Fatal(err)
	}
	mark = filepath.Join(dir, "ran")
	script := "#!/bin/sh\necho fake > " + mark + "\n"
	if err := os.WriteFile(filepath.Join(dir, name), []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	return dir, mark
}

// The attack of issue #26: PATH=<world-writable dir>:$PATH ran a fake
// dmesg as root. Programs come from the fixed system directories alone;
// an empty environment (env -i) still finds them.
func TestProgramsOnlyFromSystemDirs(t *testing.T) {
	if _, err := os.Stat("/usr/bin/dmesg"); err != nil {
		if _, err := os.Stat("/bin/dmesg"); err != nil {
			t.Skip("no dmesg on this machine")
		}
	}
	dir, mark := fakeTool(t, "dmesg")
	t.Setenv("PATH", dir+string(os.PathListSeparator)+os.Getenv("PATH"))
	res, err := machine.Live().Run(t.Context(), "dmesg", "--version")
	if _, serr := os.Stat(mark); serr == nil {
		t.Fatal("the fake dmesg of a directory in $PATH ran")
	}
	if err != nil || res.Exit != 0 {
		t.Errorf("dmesg --version: exit %d, %v", res.Exit, err)
	}

	t.Setenv("PATH", "") // env -i
	if _, err := machine.Live().Run(t.Context(), "dmesg", "--version"); errors.Is(err, machine.ErrToolMissing) {
		t.Errorf("with no PATH, dmesg is %v", err)
	}

	// The child's own PATH is the fixed list too: a program that runs
	// another by name (a vendor wrapper) cannot be led to the fake.
	t.Setenv("PATH", dir)
	res, err = machine.Live().Run(t.Context(), "sh", "-c", `printf %s "$PATH"`)
	if err != nil || string(res.Stdout) != machine.SystemPath {
		t.Errorf("the child's PATH: %q, %v; want %q", res.Stdout, err, machine.SystemPath)
	}

	// Tests name their own directories explicitly.
	if _, err := machine.LiveWithSearchPath([]string{dir}).Run(t.Context(), "dmesg"); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(mark); err != nil {
		t.Error("LiveWithSearchPath did not run the tool of its directory")
	}
}

// A vendor's tool directory (/opt/MegaRAID/storcli) is searched only
// while root owns it and nobody else may write it: a directory others can
// write would let them put a storcli64 there that runs as root.
func TestVendorDirsOnlyWhenTrusted(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("needs root: the directories must be root's (run the tests as root, as CI does)")
	}
	base := t.TempDir()
	good, open, other := filepath.Join(base, "good"), filepath.Join(base, "open"), filepath.Join(base, "other")
	for dir, mode := range map[string]os.FileMode{good: 0o755, open: 0o775, other: 0o755} {
		if err := os.Mkdir(dir, mode); err != nil {
			t.Fatal(err)
		}
		if err := os.Chmod(dir, mode); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Chown(other, 65534, 65534); err != nil {
		t.Fatal(err)
	}
	got := machine.TrustedDirs([]string{good, open, other, filepath.Join(base, "absent")})
	if len(got) != 1 || got[0] != good {
		t.Errorf("trusted %v, want only %s", got, good)
	}
}
