package archive

import (
	"archive/tar"
	"bufio"
	"bytes"
	"strings"
	"testing"
	"time"
)

// The members written from header blocks are archive/tar's own, byte for
// byte: names of every length around the ustar fields' (100, the 155-byte
// prefix, a directory's slash at the split), names and targets it writes in
// PAX records (too long, not ASCII, a control byte), contents that fill
// their last block or not, in every order of the two ways.
func TestMembersAreArchiveTars(t *testing.T) {
	long := func(n int, sep int) string {
		var b strings.Builder
		for b.Len() < n {
			if sep > 0 && b.Len()%sep == sep-1 && b.Len() < n-1 {
				b.WriteByte('/')
			} else {
				b.WriteByte('a' + byte(b.Len()%26))
			}
		}
		return b.String()
	}
	type member struct {
		h    tar.Header
		data []byte
	}
	var ms []member
	names := []string{"a", "sys/block/sda/queue/rotational", long(99, 10), long(100, 10), long(101, 10), long(150, 10),
		long(155, 10) + "/x", long(156, 10) + "/x", long(160, 10), long(240, 10), long(256, 10), long(300, 10), long(200, 0), "x/" + long(101, 0),
		long(101, 0) + "/x", "sys/dévices/x", "a\tb", "sys/devices/pci0000:00/0000:00:1f.2/ata1/host0/target0:0:0/0:0:0:0/block/sda/queue/scheduler"}
	for i, n := range names {
		data := bytes.Repeat([]byte{byte('0' + i%10)}, []int{0, 1, 511, 512, 513, 4096, 70000}[i%7])
		ms = append(ms, member{tar.Header{Name: n, Typeflag: tar.TypeReg, Mode: 0o644, Size: int64(len(data))}, data})
		for _, d := range []string{n + "/", strings.TrimSuffix(n[:min(len(n), 156)], "/") + "/"} {
			ms = append(ms, member{tar.Header{Name: d, Typeflag: tar.TypeDir, Mode: 0o755}, nil})
		}
		for _, target := range []string{"../../x", long(100, 7), long(101, 7), "dé", n} {
			ms = append(ms, member{tar.Header{Name: n, Typeflag: tar.TypeSymlink, Mode: 0o777, Linkname: target}, nil})
		}
	}
	mtime := time.Date(2026, 12, 1, 1, 2, 3, 0, time.UTC)
	write := func(fast bool) []byte {
		var buf bytes.Buffer
		bw := bufio.NewWriter(&buf)
		m := newMemberWriter(bw, mtime)
		if m.tmpl == nil {
			t.Fatal("no header blocks for a time in whole seconds")
		}
		if !fast {
			m.tmpl = nil
		}
		for _, x := range ms {
			h := x.h
			h.ModTime, h.Format = mtime, tar.FormatPAX
			if err := m.member(&h, x.data); err != nil {
				t.Fatalf("%q: %v", h.Name, err)
			}
		}
		if err := m.tw.Close(); err != nil {
			t.Fatal(err)
		}
		if err := bw.Flush(); err != nil {
			t.Fatal(err)
		}
		return buf.Bytes()
	}
	want, got := write(false), write(true)
	if !bytes.Equal(got, want) {
		for i := 0; i < min(len(got), len(want)); i += blockSize {
			if !bytes.Equal(got[i:min(i+blockSize, len(got))], want[i:min(i+blockSize, len(want))]) {
				t.Fatalf("block %d differs:\n got %q\nwant %q", i/blockSize, got[i:min(i+blockSize, len(got))], want[i:min(i+blockSize, len(want))])
			}
		}
		t.Fatalf("%d bytes, archive/tar %d", len(got), len(want))
	}
	// Both kinds were written: members from header blocks and through
	// archive/tar (PAX records).
	if !bytes.Contains(want, []byte("PaxHeaders")) {
		t.Error("no member went through archive/tar's PAX records")
	}
}

// What archive/tar refuses is refused, and a time ustar cannot hold (a
// fraction of a second) leaves every member to archive/tar.
func TestMemberWriterFallsBack(t *testing.T) {
	mtime := time.Date(2026, 12, 1, 1, 2, 3, 0, time.UTC)
	m := newMemberWriter(bufio.NewWriter(&bytes.Buffer{}), mtime)
	for _, n := range []string{"a/", "a\x00b"} {
		if err := m.member(&tar.Header{Name: n, Typeflag: tar.TypeReg, ModTime: mtime, Format: tar.FormatPAX}, nil); err == nil {
			t.Errorf("a file named %q is written", n)
		}
	}
	if m := newMemberWriter(bufio.NewWriter(&bytes.Buffer{}), mtime.Add(time.Millisecond)); m.tmpl != nil {
		t.Error("header blocks for a time with a fraction of a second")
	}
}
