package machine

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"golang.org/x/sys/unix"
)

// openat2 and openat answer as unix.Openat2 and unix.Openat do, for a
// short path (the stack buffer), one longer than it, one that is not
// there and one holding a NUL; a short one costs no allocation.
func TestOpenatWrappersAreUnixs(t *testing.T) {
	dir := t.TempDir()
	long := strings.Repeat("d", 200) + "/" + strings.Repeat("e", 200)
	if err := os.MkdirAll(filepath.Join(dir, long), 0o755); err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"a", long + "/f"} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte("x"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	root, err := unix.Open(dir, unix.O_PATH|unix.O_DIRECTORY|unix.O_CLOEXEC, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer unix.Close(root)
	how := &unix.OpenHow{Flags: unix.O_RDONLY | unix.O_CLOEXEC, Resolve: unix.RESOLVE_BENEATH}
	for _, p := range []string{"a", long + "/f", "absent", "a\x00b", "../escape"} {
		wantFD, wantErr := unix.Openat2(root, p, how)
		gotFD, gotErr := openat2(root, p, how)
		if gotErr != wantErr || (gotErr == nil) != (gotFD >= 0) {
			t.Errorf("openat2(%q) = %d, %v; unix.Openat2 = %d, %v", p, gotFD, gotErr, wantFD, wantErr)
		}
		wantFD2, wantErr2 := unix.Openat(root, p, unix.O_RDONLY|unix.O_CLOEXEC, 0)
		gotFD2, gotErr2 := openat(root, p, unix.O_RDONLY|unix.O_CLOEXEC, 0)
		if gotErr2 != wantErr2 || (gotErr2 == nil) != (gotFD2 >= 0) {
			t.Errorf("openat(%q) = %d, %v; unix.Openat = %d, %v", p, gotFD2, gotErr2, wantFD2, wantErr2)
		}
		for _, o := range []struct {
			fd  int
			err error
		}{{wantFD, wantErr}, {gotFD, gotErr}, {wantFD2, wantErr2}, {gotFD2, gotErr2}} {
			if o.err == nil {
				unix.Close(o.fd)
			}
		}
	}
	if n := testing.AllocsPerRun(100, func() {
		if fd, err := openat2(root, "a", how); err == nil {
			unix.Close(fd)
		}
		openat2(root, "absent", how)
	}); n != 0 {
		t.Errorf("openat2 of a short path: %v allocations, want 0", n)
	}
}
