package archive

import (
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"testing"
)

// issue #26: a run killed with SIGKILL while it unpacked a snapshot left
// its diskdoctor-snapshot-* directory in $TMPDIR, and later runs left it
// too. The next Open removes it: a directory of the doctor's exact name,
// this user's, whose process is dead. Anything else stays: a live run's
// directory, another user's, a link, a name of another form.
func TestOpenRemovesDeadRunsUnpackDir(t *testing.T) {
	tmp := t.TempDir()
	t.Setenv("TMPDIR", tmp)
	cmd := exec.Command("true")
	if err := cmd.Run(); err != nil {
		t.Skip("no true(1):", err)
	}
	dead := strconv.Itoa(cmd.Process.Pid)
	mk := func(name string) string {
		p := filepath.Join(tmp, name)
		if err := os.MkdirAll(filepath.Join(p, "sys/block"), 0o700); err != nil {
			t.Fatal(err)
		}
		return p
	}
	stale := mk("diskdoctor-snapshot-" + dead + "-0123456789abcdef")
	live := mk("diskdoctor-snapshot-" + strconv.Itoa(os.Getppid()) + "-0123456789abcdef")
	other := mk("diskdoctor-snapshot-" + dead + "-notes")
	keep := []string{live, other}
	if os.Geteuid() == 0 {
		foreign := mk("diskdoctor-snapshot-" + dead + "-fedcba9876543210")
		if err := os.Chown(foreign, 65534, 65534); err != nil {
			t.Fatal(err)
		}
		keep = append(keep, foreign)
	}
	link := filepath.Join(tmp, "diskdoctor-snapshot-"+dead+"-00112233445566ff")
	if err := os.Symlink(live, link); err != nil {
		t.Fatal(err)
	}
	keep = append(keep, link)

	good := filepath.Join(t.TempDir(), "good.tar.gz")
	if err := os.WriteFile(good, buildArchive(t, file("sys/x", "1")), 0o600); err != nil {
		t.Fatal(err)
	}
	dir, cleanup, err := Open(t.Context(), good)
	if err != nil {
		t.Fatal(err)
	}
	defer cleanup()
	if _, err := os.Lstat(stale); err == nil {
		t.Errorf("the dead run's %s was not removed", filepath.Base(stale))
	}
	for _, p := range keep {
		if _, err := os.Lstat(p); err != nil {
			t.Errorf("%s was removed: %v", filepath.Base(p), err)
		}
	}
	if pid, ok := unpackDirPID(filepath.Base(dir)); !ok || pid != os.Getpid() {
		t.Errorf("unpack directory %s does not carry this run's pid", dir)
	}
}
