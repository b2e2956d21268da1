package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// TestLiveRunOpensNothingForWriting runs a live check of this machine under
// strace, the doctor and every program it starts, and fails on any attempt
// (even a failed one) to open for writing, create, truncate, rename, remove
// or make a directory. /dev/null and the terminal are the only exceptions.
func TestLiveRunOpensNothingForWriting(t *testing.T) {
	strace, err := exec.LookPath("strace")
	if err != nil {
		t.Skip("strace is not installed (apt-get install strace)")
	}
	bin := binary
	log := filepath.Join(t.TempDir(), "strace.log")
	cmd := exec.Command(strace, "-f", "-qq", "-e", "trace=open,openat,openat2,creat,truncate,ftruncate,rename,renameat,renameat2,unlink,unlinkat,mkdir,mkdirat", "-o", log, bin, "--format", "json")
	out, err := cmd.CombinedOutput()
	if err != nil {
		if ee, ok := err.(*exec.ExitError); !ok || ee.ExitCode() > 2 {
			if strings.Contains(string(out), "ptrace") {
				t.Skipf("strace cannot trace here: %s", out)
			}
			t.Fatalf("strace %s: %v\n%s", bin, err, out)
		}
	}
	b, err := os.ReadFile(log)
	if err != nil {
		t.Fatal(err)
	}
	writing := regexp.MustCompile(`O_WRONLY|O_RDWR|O_CREAT|O_TRUNC|^\d+\s+(creat|truncate|ftruncate|rename|renameat2?|unlink|unlinkat|mkdir|mkdirat)\(`)
	allowed := regexp.MustCompile(`"/dev/(null|tty|pts/\d+)"`)
	var calls int
	for _, line := range strings.Split(string(b), "\n") {
		if line == "" {
			continue
		}
		calls++
		if writing.MatchString(line) && !allowed.MatchString(line) {
			t.Errorf("a live check wrote: %s", line)
		}
	}
	if calls < 10 {
		t.Fatalf("strace saw %d calls: the trace did not work", calls)
	}
}
