package archive

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// member is one tar member of a test archive.
type member struct {
	name, link string
	typ        byte
	data       []byte
}

func file(name, data string) member { return member{name: name, typ: tar.TypeReg, data: []byte(data)} }

func dir(name string) member { return member{name: name, typ: tar.TypeDir} }

func symlink(name, target string) member {
	return member{name: name, typ: tar.TypeSymlink, link: target}
}

// buildArchive writes members with archive/tar, gzip-compressed.
func buildArchive(t testing.TB, ms ...member) []byte {
	t.Helper()
	var buf bytes.Buffer
	gz := gzip.NewWriter(&buf)
	tw := tar.NewWriter(gz)
	for _, m := range ms {
		h := &tar.Header{Name: m.name, Typeflag: m.typ, Linkname: m.link, Mode: 0o644, Size: int64(len(m.data)), Format: tar.FormatPAX}
		if m.typ != tar.TypeReg {
			h.Size = 0
		}
		if m.typ == tar.TypeChar || m.typ == tar.TypeBlock {
			h.Devmajor, h.Devminor = 8, 0
		}
		if err := tw.WriteHeader(h); err != nil {
			t.Fatal(err)
		}
		if len(m.data) > 0 {
			if _, err := tw.Write(m.data); err != nil {
				t.Fatal(err)
			}
		}
	}
	if err := tw.Close(); err != nil {
		t.Fatal(err)
	}
	if err := gz.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// unpackInto unpacks into a fresh directory inside a parent directory, so
// that anything written beside it can be seen.
func unpackInto(t *testing.T, b []byte, lim Limits) (string, error) {
	t.Helper()
	parent := t.TempDir()
	dst := filepath.Join(parent, "dst")
	if err := os.Mkdir(dst, 0o700); err != nil {
		t.Fatal(err)
	}
	err := Read(t.Context(), bytes.NewReader(b), dst, lim)
	ents, _ := os.ReadDir(parent)
	if len(ents) != 1 {
		t.Errorf("something was written beside the destination: %v", ents)
	}
	return dst, err
}

func TestReadArchiveRefuses(t *testing.T) {
	zeros := func(n int) []byte { return make([]byte, n) }
	cases := []struct {
		name    string
		members []member
		lim     Limits
		member  string // the member the error must name
		reason  string
	}{
		{"absolute path", []member{dir("sys"), file("/etc/evil", "x")}, Limits{}, "/etc/evil", "absolute"},
		{"dot-dot", []member{dir("sys"), file("../evil", "x")}, Limits{}, "../evil", `".."`},
		{"dot-dot inside", []member{file("sys/../../evil", "x")}, Limits{}, "sys/../../evil", `".."`},
		{"absolute link", []member{dir("sys"), symlink("sys/passwd", "/etc/passwd")}, Limits{}, "sys/passwd", "absolute"},
		{"escaping link", []member{dir("sys"), symlink("sys/up", "../../etc")}, Limits{}, "sys/up", "outside"},
		{"escape through a link to .", []member{dir("sys"), symlink("a", "."), symlink("b", "a/..")}, Limits{}, "b", "outside"},
		{"escape made by a later link", []member{dir("sys"), symlink("x", "y/.."), symlink("y", ".")}, Limits{}, "x", "outside"},
		{"chain leaving the root", []member{dir("sys"), dir("sys/d"), symlink("sys/d/l", "../.."), symlink("sys/m", "d/l/..")}, Limits{}, "sys/m", "outside"},
		{"member beneath a link", []member{dir("sys"), symlink("l", "sys"), file("l/x", "x")}, Limits{}, "l/x", "beneath the link"},
		{"character device", []member{dir("sys"), {name: "dev/sda", typ: tar.TypeChar}}, Limits{}, "dev/sda", "device node"},
		{"block device", []member{dir("sys"), {name: "dev/sda", typ: tar.TypeBlock}}, Limits{}, "dev/sda", "device node"},
		{"fifo", []member{dir("sys"), {name: "sys/fifo", typ: tar.TypeFifo}}, Limits{}, "sys/fifo", "fifo"},
		{"hard link", []member{file("sys/a", "x"), {name: "sys/b", typ: tar.TypeLink, link: "sys/a"}}, Limits{}, "sys/b", "hard link"},
		{"hard link out", []member{dir("sys"), {name: "sys/shadow", typ: tar.TypeLink, link: "/etc/shadow"}}, Limits{}, "sys/shadow", "hard link"},
		{"huge member", []member{dir("sys"), {name: "sys/big", typ: tar.TypeReg, data: zeros(2048)}}, Limits{MaxMember: 1024}, "sys/big", "more than the 1024"},
		{"total size", []member{file("sys/a", strings.Repeat("a", 600)), file("sys/b", strings.Repeat("b", 600))}, Limits{MaxTotal: 1000}, "sys/b", "more than 1000 bytes"},
		{"too many members", []member{dir("sys"), file("sys/1", ""), file("sys/2", ""), file("sys/3", "")}, Limits{MaxMembers: 3}, "sys/3", "more than 3 members"},
		{"duplicate", []member{file("sys/a", "1"), file("sys/a", "2")}, Limits{}, "sys/a", "duplicate"},
		{"file over directory", []member{file("sys", "1"), file("sys/a", "2")}, Limits{}, "sys/a", "beneath the file"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, err := unpackInto(t, buildArchive(t, c.members...), c.lim)
			var ae *Error
			if !errors.As(err, &ae) {
				t.Fatalf("accepted, or not an *Error: %v", err)
			}
			if ae.Member != c.member || !strings.Contains(ae.Reason, c.reason) {
				t.Errorf("error %q, want member %q and %q", err, c.member, c.reason)
			}
			if !strings.Contains(err.Error(), c.member) {
				t.Errorf("error %q does not name the member", err)
			}
		})
	}
}

// The default caps: a member over 64 MiB is refused from its header, and a
// stream that expands like a bomb is refused before it fills the disk.
func TestReadArchiveDefaultCaps(t *testing.T) {
	t.Run("member over 64 MiB", func(t *testing.T) {
		b := buildArchive(t, dir("sys"), member{name: "sys/huge", typ: tar.TypeReg, data: make([]byte, MaxMemberBytes+1)})
		_, err := unpackInto(t, b, Limits{})
		if err == nil || !strings.Contains(err.Error(), "sys/huge") {
			t.Fatalf("want a refusal naming sys/huge, got %v", err)
		}
	})
	t.Run("bomb", func(t *testing.T) {
		var ms []member
		for i := range 4 {
			ms = append(ms, member{name: "sys/z" + strconv.Itoa(i), typ: tar.TypeReg, data: make([]byte, 8<<20)})
		}
		b := buildArchive(t, ms...)
		t.Logf("bomb: %d compressed bytes for 32 MiB", len(b))
		dst, err := unpackInto(t, b, Limits{})
		if err == nil || !strings.Contains(err.Error(), "archive bomb") {
			t.Fatalf("want an archive bomb refusal, got %v", err)
		}
		var total int64
		_ = filepath.WalkDir(dst, func(_ string, d fs.DirEntry, _ error) error {
			if info, err := d.Info(); err == nil && d.Type().IsRegular() {
				total += info.Size()
			}
			return nil
		})
		if total > 24<<20 {
			t.Errorf("%d bytes written before the refusal", total)
		}
	})
	t.Run("garbage", func(t *testing.T) {
		for _, b := range [][]byte{[]byte("not an archive at all, just text"), {0x1f, 0x8b, 0, 1, 2}, {}} {
			if _, err := unpackInto(t, b, Limits{}); err == nil {
				t.Errorf("%q accepted", b)
			}
		}
	})
}

func TestReadArchiveAccepts(t *testing.T) {
	b := buildArchive(t,
		dir("sys/"), dir("sys/devices/pci/block/sda"), file("sys/devices/pci/block/sda/size", "100\n"),
		dir("sys/block"), symlink("sys/block/sda", "../devices/pci/block/sda"),
		symlink("sys/devices/pci/block/sda/bdi", "../../../virtual/bdi/8:0"), // dangling, as in real sysfs snapshots
		symlink("sys/devices/pci/block/sda/subsystem", "../../../../class/block"),
		file("./commands/manifest.yaml", "[]\n"))
	dst, err := unpackInto(t, b, Limits{})
	if err != nil {
		t.Fatal(err)
	}
	got, err := os.ReadFile(filepath.Join(dst, "sys/block/sda/size"))
	if err != nil || string(got) != "100\n" {
		t.Fatalf("read through the link: %q %v", got, err)
	}
	real, err := filepath.EvalSymlinks(dst)
	if err != nil {
		t.Fatal(err)
	}
	if r, err := filepath.EvalSymlinks(filepath.Join(dst, "sys/block/sda")); err != nil || r != filepath.Join(real, "sys/devices/pci/block/sda") {
		t.Errorf("resolve: %q %v", r, err)
	}
}

// Open unpacks into a private 0700 directory and leaves nothing
// behind when it refuses.
func TestOpenPrivateAndCleaned(t *testing.T) {
	tmp := t.TempDir()
	t.Setenv("TMPDIR", tmp)
	good := filepath.Join(t.TempDir(), "good.tar.gz")
	bad := filepath.Join(t.TempDir(), "bad.tar.gz")
	_ = os.WriteFile(good, buildArchive(t, file("sys/x", "1")), 0o600)
	_ = os.WriteFile(bad, buildArchive(t, file("sys/x", "1"), symlink("sys/y", "/etc")), 0o600)
	dir, cleanup, err := Open(t.Context(), good)
	if err != nil {
		t.Fatal(err)
	}
	st, err := os.Stat(dir)
	if err != nil || st.Mode().Perm() != 0o700 || !strings.HasPrefix(dir, tmp) {
		t.Errorf("unpacked into %s (%v), want a 0700 directory under TMPDIR", dir, st.Mode())
	}
	cleanup()
	if _, err := os.Stat(dir); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("%s left after cleanup", dir)
	}
	if _, _, err := Open(t.Context(), bad); err == nil || !strings.Contains(err.Error(), "sys/y") {
		t.Errorf("bad archive: %v", err)
	}
	if ents, _ := os.ReadDir(tmp); len(ents) != 0 {
		t.Errorf("a refused archive left %v behind", ents)
	}
}

func FuzzReadArchive(f *testing.F) {
	f.Add(buildArchive(f, dir("sys"), file("sys/a", "1"), symlink("sys/b", "a")))
	f.Add(buildArchive(f, dir("sys"), symlink("a", "."), symlink("b", "a/..")))
	f.Add(buildArchive(f, file("../x", "1")))
	f.Add(buildArchive(f, member{name: "dev/sda", typ: tar.TypeBlock}))
	f.Add([]byte("plain text"))
	var plain bytes.Buffer
	tw := tar.NewWriter(&plain)
	_ = tw.WriteHeader(&tar.Header{Name: "sys/l", Typeflag: tar.TypeSymlink, Linkname: "../sys"})
	_ = tw.Close()
	f.Add(plain.Bytes())
	f.Fuzz(func(t *testing.T, b []byte) {
		parent := t.TempDir()
		dst := filepath.Join(parent, "dst")
		if err := os.Mkdir(dst, 0o700); err != nil {
			t.Fatal(err)
		}
		err := Read(t.Context(), bytes.NewReader(b), dst, Limits{MaxMember: 1 << 16, MaxTotal: 1 << 20, MaxMembers: 256})
		if ents, _ := os.ReadDir(parent); len(ents) != 1 {
			t.Fatalf("wrote beside the destination: %v", ents)
		}
		if err != nil {
			return
		}
		real, _ := filepath.EvalSymlinks(dst)
		_ = filepath.WalkDir(dst, func(p string, d fs.DirEntry, err error) error {
			if err != nil {
				return nil
			}
			if d.Type()&(fs.ModeDevice|fs.ModeNamedPipe|fs.ModeSocket|fs.ModeCharDevice) != 0 {
				t.Fatalf("special file %s", p)
			}
			if d.Type()&fs.ModeSymlink != 0 {
				if r, err := filepath.EvalSymlinks(p); err == nil && r != real && !strings.HasPrefix(r, real+string(filepath.Separator)) {
					t.Fatalf("%s resolves outside: %s", p, r)
				}
			}
			return nil
		})
	})
}
