package machine

import (
	"context"
	"os"
	"path/filepath"
	"testing"
)

// TestRunNoShell: Run passes argv to the program as is. Arguments that a
// shell would expand, split or chain reach the program as single words and
// run nothing.
func TestRunNoShell(t *testing.T) {
	h := Live()
	if _, err := h.Run(context.Background(), "printf", "x"); err != nil {
		t.Skipf("printf: %v", err)
	}
	marker := filepath.Join(t.TempDir(), "PWNED")
	args := []string{"a b", "$(touch " + marker + ")", "`touch " + marker + "`", "; touch " + marker, "| touch " + marker, "*", "$HOME", "'\"\\"}
	res, err := h.Run(context.Background(), append([]string{"printf", "[%s]\n"}, args...)...)
	if err != nil || res.Exit != 0 {
		t.Fatalf("printf: %v, exit %d", err, res.Exit)
	}
	want := ""
	for _, a := range args {
		want += "[" + a + "]\n"
	}
	if string(res.Stdout) != want {
		t.Errorf("printf printed\n%s\nwant\n%s", res.Stdout, want)
	}
	if _, err := os.Stat(marker); err == nil {
		t.Error("an argument was run by a shell")
	}
}
