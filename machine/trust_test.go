package machine_test

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/diskdoctor/diskdoctor/machine"
)

func needRoot(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("chown to another user needs root")
	}
}

// The machine's /etc/diskdoctor/datasheets.d on the live machine: a file
// planted by nobody, mode 0666, and a good file in a directory others can
// write are refused, naming what failed and the fix; a root file, mode
// 0644, in root directories is read; a recorded machine's copy is data of
// the recording and is read whoever owns it.
func TestReadTrustedLive(t *testing.T) {
	needRoot(t)
	root := t.TempDir()
	dir := filepath.Join(root, "etc/diskdoctor/datasheets.d")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	write := func(name string, uid int, mode os.FileMode) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte("models: []\n"), 0o600); err != nil {
			t.Fatal(err)
		}
		if err := os.Chown(p, uid, uid); err != nil {
			t.Fatal(err)
		}
		if err := os.Chmod(p, mode); err != nil {
			t.Fatal(err)
		}
		return "/etc/diskdoctor/datasheets.d/" + name
	}
	planted := write("zz-planted.yaml", 65534, 0o666)
	good := write("10-site.yaml", 0, 0o644)
	live := machine.LiveAt(root)
	ctx := t.Context()

	_, err := live.ReadTrusted(ctx, planted, 1<<20)
	var u *machine.UntrustedError
	if !errors.As(err, &u) || !errors.Is(err, machine.ErrUntrusted) {
		t.Fatalf("planted file: err = %v, want an UntrustedError", err)
	}
	real := filepath.Join(root, planted)
	if !strings.Contains(u.Why, "owned by uid 65534, not root") || !strings.Contains(u.Why, "writable by group and others (mode 0666)") ||
		u.Fix != "chown root:root "+real+"; chmod go-w "+real {
		t.Errorf("planted file: %+v", u)
	}
	if b, err := live.ReadTrusted(ctx, good, 1<<20); err != nil || string(b) != "models: []\n" {
		t.Errorf("root's 0644 file: %q, %v", b, err)
	}

	// A link to the planted file is the planted file.
	if err := os.Symlink("zz-planted.yaml", filepath.Join(dir, "20-link.yaml")); err != nil {
		t.Fatal(err)
	}
	if _, err := live.ReadTrusted(ctx, "/etc/diskdoctor/datasheets.d/20-link.yaml", 1<<20); !errors.Is(err, machine.ErrUntrusted) {
		t.Errorf("link to the planted file: err = %v", err)
	}

	// A directory others could write: anyone could replace root's file.
	if err := os.Chmod(filepath.Join(root, "etc/diskdoctor"), 0o775); err != nil {
		t.Fatal(err)
	}
	_, err = live.ReadTrusted(ctx, good, 1<<20)
	if !errors.As(err, &u) || u.Path != filepath.Join(root, "etc/diskdoctor") || !strings.Contains(u.Fix, "chmod go-w") ||
		!strings.Contains(err.Error(), "its directory") {
		t.Errorf("group-writable directory: %v (%+v)", err, u)
	}
	// The sticky bit: others may create entries but not replace root's.
	if err := os.Chmod(filepath.Join(root, "etc/diskdoctor"), os.ModeSticky|0o777); err != nil {
		t.Fatal(err)
	}
	if _, err := live.ReadTrusted(ctx, good, 1<<20); err != nil {
		t.Errorf("sticky directory: %v", err)
	}

	// Recorded: the same planted file is the recording's data.
	if err := os.MkdirAll(filepath.Join(root, "sys"), 0o755); err != nil {
		t.Fatal(err)
	}
	rec, err := machine.Recorded(root)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := rec.ReadTrusted(ctx, planted, 1<<20); err != nil {
		t.Errorf("recorded machine's file: %v", err)
	}
}
