package machine

import (
	"bufio"
	"bytes"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"testing"
	"time"
)

// fdTableSize is FDSize of /proc/self/status: the entries of this
// process's descriptor table.
func fdTableSize(t *testing.T) int {
	t.Helper()
	b, err := os.ReadFile("/proc/self/status")
	if err != nil {
		t.Skipf("no /proc/self/status: %v", err)
	}
	sc := bufio.NewScanner(bytes.NewReader(b))
	for sc.Scan() {
		if v, ok := strings.CutPrefix(sc.Text(), "FDSize:"); ok {
			n, err := strconv.Atoi(strings.TrimSpace(v))
			if err != nil {
				t.Fatalf("FDSize %q: %v", v, err)
			}
			return n
		}
	}
	t.Skip("no FDSize in /proc/self/status")
	return 0
}

// Opening a root grows the descriptor table in one step, to what the
// directory cache may hold, instead of doubling it from its start (64
// entries) with a grace period's wait each time. The table belongs to the
// process and never shrinks, so the test runs in a fresh one.
func TestOpeningARootReservesTheDescriptorTable(t *testing.T) {
	if os.Getenv("DISKDOCTOR_FDTABLE_CHILD") == "" {
		cmd := exec.Command(os.Args[0], "-test.run", "^TestOpeningARootReservesTheDescriptorTable$", "-test.v")
		cmd.Env = append(os.Environ(), "DISKDOCTOR_FDTABLE_CHILD=1")
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("child: %v\n%s", err, out)
		}
		if !bytes.Contains(out, []byte("--- PASS")) {
			t.Fatalf("child did not pass:\n%s", out)
		}
		return
	}
	before := fdTableSize(t)
	r, err := newRootFS(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	want := r.dirs.max + descriptorHeadroom
	if before >= want {
		t.Skipf("the table already had %d entries", before)
	}
	for deadline := time.Now().Add(10 * time.Second); fdTableSize(t) < want; {
		if time.Now().After(deadline) {
			t.Fatalf("descriptor table %d entries (was %d), want at least %d", fdTableSize(t), before, want)
		}
		time.Sleep(5 * time.Millisecond)
	}
	t.Logf("descriptor table %d -> %d entries", before, fdTableSize(t))
}
