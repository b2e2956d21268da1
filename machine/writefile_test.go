package machine

import (
	"errors"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
)

// TestWriteAtomicallyKeepsModeAndCleansStale: an existing report keeps its
// mode; the temporary file of a killed write (a dead PID) is removed, that
// of a live process is not; a failed write leaves the old report as it
// was.
func TestWriteAtomicallyKeepsModeAndCleansStale(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "k.json")
	if err := os.WriteFile(path, []byte("old\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	// A process that has exited: its PID is dead (and not yet reused, in
	// the instant of the test).
	cmd := exec.Command("true")
	if err := cmd.Run(); err != nil {
		t.Skip("no true(1):", err)
	}
	dead := cmd.Process.Pid
	stale := filepath.Join(dir, ".k.json.diskdoctor-"+strconv.Itoa(dead)+"-0123456789abcdef.tmp")
	live := filepath.Join(dir, ".k.json.diskdoctor-"+strconv.Itoa(os.Getppid())+"-fedcba9876543210.tmp")
	other := filepath.Join(dir, ".other.json.diskdoctor-"+strconv.Itoa(dead)+"-0123456789abcdef.tmp")
	// The user's own files beside the report, whose names the old sweep's
	// glob (.BASE.*.*) matched: the doctor never made them.
	users := []string{
		filepath.Join(dir, ".k.json."+strconv.Itoa(dead)+".bak"),
		filepath.Join(dir, ".k.json."+strconv.Itoa(dead)+".my notes"),
		filepath.Join(dir, ".k.json.diskdoctor-"+strconv.Itoa(dead)+"-0123456789abcdef.tmp.bak"),
		filepath.Join(dir, ".k.json.diskdoctor-"+strconv.Itoa(dead)+"-0123456789ABCDEF.tmp"),
		filepath.Join(dir, ".k.json.diskdoctor-"+strconv.Itoa(dead)+"-0123.tmp"),
	}
	for _, p := range append([]string{stale, live, other}, users...) {
		if err := os.WriteFile(p, []byte("half"), 0o600); err != nil {
			t.Fatal(err)
		}
	}

	if err := WriteAtomically(path, 0o644, func(w io.Writer) error { _, err := io.WriteString(w, "new\n"); return err }); err != nil {
		t.Fatal(err)
	}
	if b, _ := os.ReadFile(path); string(b) != "new\n" {
		t.Errorf("report is %q", b)
	}
	if st, _ := os.Stat(path); st.Mode().Perm() != 0o600 {
		t.Errorf("mode %v; the existing report's 0600 must be kept", st.Mode().Perm())
	}
	if exists(stale) {
		t.Errorf("%s (a dead process's temporary file) was not removed", stale)
	}
	if !exists(live) || !exists(other) {
		t.Errorf("a live process's temporary file, or another report's, was removed")
	}
	for _, p := range users {
		if !exists(p) {
			t.Errorf("the user's %q was removed", filepath.Base(p))
		}
	}

	failed := errors.New("the renderer failed")
	if err := WriteAtomically(path, 0o644, func(w io.Writer) error { io.WriteString(w, "partial"); return failed }); !errors.Is(err, failed) {
		t.Fatalf("error %v", err)
	}
	if b, _ := os.ReadFile(path); string(b) != "new\n" {
		t.Errorf("a failed write replaced the report with %q", b)
	}
	ents, _ := os.ReadDir(dir)
	if len(ents) != 3+len(users) { // the report, the live and the other temporary file, the user's
		var names []string
		for _, e := range ents {
			names = append(names, e.Name())
		}
		t.Errorf("left behind: %v", names)
	}
}

// TestWriteAtomicallyMissingDirectory says which directory is missing and
// how to make it.
func TestWriteAtomicallyMissingDirectory(t *testing.T) {
	path := filepath.Join(t.TempDir(), "no such dir", "report.json")
	err := WriteAtomically(path, 0o644, func(io.Writer) error { return nil })
	if err == nil || !strings.Contains(err.Error(), "does not exist") || !strings.Contains(err.Error(), "mkdir -p '") {
		t.Errorf("error %v; want the missing directory named, with mkdir -p", err)
	}
}

// TestWriteAtomicallyKeepsOwner: a report that belongs to another user
// (node_exporter's textfile directory, say) keeps its owner when root
// rewrites it.
func TestWriteAtomicallyKeepsOwner(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("only root can give a file to another user")
	}
	path := filepath.Join(t.TempDir(), "r.prom")
	if err := os.WriteFile(path, []byte("old"), 0o640); err != nil {
		t.Fatal(err)
	}
	if err := os.Chown(path, 65534, 65534); err != nil {
		t.Fatal(err)
	}
	if err := WriteAtomically(path, 0o644, func(w io.Writer) error { _, err := io.WriteString(w, "new"); return err }); err != nil {
		t.Fatal(err)
	}
	st, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	sys := st.Sys().(*syscall.Stat_t)
	if sys.Uid != 65534 || sys.Gid != 65534 || st.Mode().Perm() != 0o640 {
		t.Errorf("owner %d:%d mode %v; want 65534:65534 0640 kept", sys.Uid, sys.Gid, st.Mode().Perm())
	}
}

func exists(p string) bool { _, err := os.Stat(p); return err == nil }
