package machine

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// resolveTree is a recorded root with the links a hostile tree has: an
// absolute link, a ".." chain past the root, a loop, a chain of links and
// a kernel-style relative device link.
func resolveTree(tb testing.TB) string {
	tb.Helper()
	root := filepath.Join(tb.TempDir(), "root")
	for _, d := range []string{"sys/devices/pci/block/sda/queue", "sys/block", "etc", "a/b/c"} {
		if err := os.MkdirAll(filepath.Join(root, d), 0o755); err != nil {
			tb.Fatal(err)
		}
	}
	if err := os.WriteFile(filepath.Join(root, "sys/devices/pci/block/sda/queue/write_cache"), []byte("write back\n"), 0o644); err != nil {
		tb.Fatal(err)
	}
	for link, target := range map[string]string{
		"sys/block/sda": "../devices/pci/block/sda",
		"sys/block/abs": "/sys/devices/pci",
		"etc/shadow":    "../../../../../../../../etc/shadow",
		"etc/loop1":     "loop2",
		"etc/loop2":     "loop1",
		"a/b/c/up":      "../../../sys/block/sda",
		"a/chain":       "b/c/up",
		"a/root":        "/",
		"a/dotdot":      "..",
	} {
		if err := os.Symlink(target, filepath.Join(root, link)); err != nil {
			tb.Fatal(err)
		}
	}
	return root
}

// FuzzResolveInRoot: the user-space walk kept for kernels without openat2
// resolves as RESOLVE_IN_ROOT does, and never to a path outside the root.
func FuzzResolveInRoot(f *testing.F) {
	for _, s := range []string{"/sys/block/sda/queue/write_cache", "/sys/block/abs/block", "/etc/shadow", "/etc/loop1", "/a/chain/queue", "/a/root/a/dotdot/../../..", "/../../sys"} {
		f.Add(s)
	}
	root := resolveTree(f)
	fs, err := newRootFS(root)
	if err != nil {
		f.Fatal(err)
	}
	walk := *fs
	walk.walk = true
	f.Fuzz(func(t *testing.T, p string) {
		if strings.IndexByte(p, 0) >= 0 || strings.HasSuffix(p, "/") || len(p) > 1024 {
			return
		}
		w, werr := walk.resolve(p)
		if werr == nil && (!strings.HasPrefix(w, "/") || strings.Contains(w, "..") || strings.HasPrefix(w, root)) {
			t.Fatalf("walk resolved %q to %q", p, w)
		}
		if fs.walk {
			return // no openat2 to compare with
		}
		k, kerr := fs.resolve(p)
		if werr == nil && kerr == nil && w != k {
			t.Fatalf("%q: walk %q, openat2 %q", p, w, k)
		}
	})
}
