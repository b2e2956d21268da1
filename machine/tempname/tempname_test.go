package tempname

import (
	"os"
	"path/filepath"
	"strconv"
	"testing"
)

func TestPID(t *testing.T) {
	n := New(".r.json.diskdoctor-", ".tmp")
	if pid, ok := PID(n, ".r.json.diskdoctor-", ".tmp"); !ok || pid != os.Getpid() {
		t.Errorf("PID(%q) = %d, %v", n, pid, ok)
	}
	if Stale(n, ".r.json.diskdoctor-", ".tmp") {
		t.Errorf("this process's %q is stale", n)
	}
	for _, name := range []string{
		".r.json.33768.bak", ".r.json.33769.my notes", // issue #26
		".r.json.diskdoctor-33768-0123456789abcdef.tmp.bak",
		".r.json.diskdoctor-33768-0123456789ABCDEF.tmp",
		".r.json.diskdoctor-33768-0123456789abcde.tmp",
		".r.json.diskdoctor-033768-0123456789abcdef.tmp",
		".r.json.diskdoctor-+33768-0123456789abcdef.tmp",
		".r.json.diskdoctor-0-0123456789abcdef.tmp",
		".r.json.diskdoctor-33768-0123456789abcdeg.tmp",
		".other.diskdoctor-33768-0123456789abcdef.tmp",
	} {
		if pid, ok := PID(name, ".r.json.diskdoctor-", ".tmp"); ok {
			t.Errorf("PID(%q) = %d: not a name New makes", name, pid)
		}
	}
	if _, ok := PID(".r.json.diskdoctor-"+strconv.Itoa(1<<22+1)+"-0123456789abcdef.tmp", ".r.json.diskdoctor-", ".tmp"); !ok {
		t.Error("a well-formed name refused")
	}
}

// Mkdir removes a dead run's directory of its form and keeps a live
// run's, another form's and a file of the form.
func TestMkdirRemovesDeadRunsDirs(t *testing.T) {
	tmp := t.TempDir()
	t.Setenv("TMPDIR", tmp)
	const prefix = "diskdoctor-test-"
	dead := filepath.Join(tmp, prefix+"2147483646-0123456789abcdef")
	live := filepath.Join(tmp, prefix+strconv.Itoa(os.Getpid())+"-0123456789abcdef")
	other := filepath.Join(tmp, prefix+"2147483646-notours")
	for _, d := range []string{dead, live, other} {
		if err := os.Mkdir(d, 0o700); err != nil {
			t.Fatal(err)
		}
	}
	file := filepath.Join(tmp, prefix+"2147483646-fedcba9876543210")
	if err := os.WriteFile(file, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	dir, err := Mkdir(prefix)
	if err != nil {
		t.Fatal(err)
	}
	if st, err := os.Stat(dir); err != nil || st.Mode().Perm() != 0o700 {
		t.Errorf("new directory %s: %v %v", dir, st, err)
	}
	if _, err := os.Stat(dead); err == nil {
		t.Errorf("the dead run's %s is still there", dead)
	}
	for _, keep := range []string{live, other, file} {
		if _, err := os.Stat(keep); err != nil {
			t.Errorf("%s was removed", keep)
		}
	}
}
