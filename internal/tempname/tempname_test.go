package tempname

import (
	"os"
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
