package archive

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"context"
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// rawHeader is one 512-byte ustar header block, written by hand: the
// attacks below are chains that archive/tar's writer never produces.
func rawHeader(name string, typ byte, size int64) []byte {
	h := make([]byte, 512)
	copy(h[0:100], name)
	copy(h[100:108], "0000644\x00")
	copy(h[108:116], "0000000\x00")
	copy(h[116:124], "0000000\x00")
	copy(h[124:136], fmt.Sprintf("%011o\x00", size))
	copy(h[136:148], "00000000000\x00")
	h[156] = typ
	copy(h[257:265], "ustar\x0000")
	copy(h[148:156], "        ")
	var sum int64
	for _, c := range h {
		sum += int64(c)
	}
	copy(h[148:156], fmt.Sprintf("%06o\x00 ", sum))
	return h
}

func pad(n int64) []byte { return make([]byte, (512-n%512)%512) }

// lazyArchive compresses what gen writes, on demand: a reader of a 4 GB
// attack costs only what the reader actually consumes. It reports how many
// compressed bytes were handed out.
type lazyArchive struct {
	pr   *io.PipeReader
	read int64
}

func newLazyArchive(gen func(w io.Writer) error) *lazyArchive {
	pr, pw := io.Pipe()
	go func() {
		gz := gzip.NewWriter(pw)
		err := gen(gz)
		if err == nil {
			err = gz.Close()
		}
		pw.CloseWithError(err)
	}()
	return &lazyArchive{pr: pr}
}

func (l *lazyArchive) Read(p []byte) (int, error) {
	n, err := l.pr.Read(p)
	l.read += int64(n)
	return n, err
}

func (l *lazyArchive) Close() { l.pr.CloseWithError(errors.New("reader done")) }

// longNameChain writes n records of the given type, each of size bytes,
// then one small member: the archive of issue #16 item 7 (4,096 names of
// 1 MiB, 4 GiB of work) with typ 'L' (GNU) or 'x' (PAX).
func longNameChain(n int, typ byte, size int64) func(w io.Writer) error {
	return func(w io.Writer) error {
		body := bytes.Repeat([]byte("a"), int(size))
		if typ == tar.TypeXHeader {
			rec := fmt.Sprintf(" path=%s\n", strings.Repeat("a", int(size)))
			d := len(fmt.Sprint(len(rec)))
			if len(fmt.Sprint(len(rec)+d)) > d {
				d++
			}
			rec = fmt.Sprintf("%d%s", len(rec)+d, rec) // "<len> path=...\n", the length counting its own digits
			body = []byte(rec)
			size = int64(len(body))
		}
		for range n {
			for _, b := range [][]byte{rawHeader("././@LongLink", typ, size), body, pad(size)} {
				if _, err := w.Write(b); err != nil {
					return err
				}
			}
		}
		for _, b := range [][]byte{rawHeader("sys/x", tar.TypeReg, 1), []byte("x"), pad(1), make([]byte, 1024)} {
			if _, err := w.Write(b); err != nil {
				return err
			}
		}
		return nil
	}
}

// TestReadArchiveLongNameChain (#16 item 7): chains of PAX and GNU
// long-name records are refused from their first raw header, in a few
// milliseconds, with a short quote of the name.
func TestReadArchiveLongNameChain(t *testing.T) {
	for _, c := range []struct {
		name string
		n    int
		typ  byte
		size int64
		want string
	}{
		{"4096 GNU names of 1 MiB", 4096, tar.TypeGNULongName, 1 << 20, "GNU long-name record of 1048576 bytes"},
		{"4096 PAX names of 1 MiB", 4096, tar.TypeXHeader, 1 << 20, "PAX header record of"},
		{"4096 GNU names of 4 KiB", 4096, tar.TypeGNULongName, 4 << 10, "more than 8 PAX or GNU long-name records in a row"},
		{"4096 PAX names of 4 KiB", 4096, tar.TypeXHeader, 4 << 10, "more than 8 PAX or GNU long-name records in a row"},
	} {
		t.Run(c.name, func(t *testing.T) {
			src := newLazyArchive(longNameChain(c.n, c.typ, c.size))
			defer src.Close()
			start := time.Now()
			err := Read(t.Context(), src, t.TempDir(), Limits{})
			took := time.Since(start)
			var ae *Error
			if !errors.As(err, &ae) || !strings.Contains(err.Error(), c.want) {
				t.Fatalf("want a refusal %q, got %v", c.want, err)
			}
			if took > 2*time.Second {
				t.Errorf("refused after %s", took)
			}
			if len(err.Error()) > 300 {
				t.Errorf("the refusal quotes %d bytes: %.200s…", len(err.Error()), err)
			}
			t.Logf("refused after %s and %d compressed bytes: %v", took.Round(time.Millisecond), src.read, err)
		})
	}
}

// A long member name (archive/tar assembles it from a PAX record) is
// quoted in a refusal only by its first bytes.
func TestReadArchiveQuotesShortPrefix(t *testing.T) {
	long := "sys/" + strings.Repeat("n", 5000)
	_, err := unpackInto(t, buildArchive(t, dir("sys"), file(long, "x")), Limits{})
	if err == nil || len(err.Error()) > 300 || !strings.Contains(err.Error(), "longer than 4096") {
		t.Fatalf("refusal of a 5000-byte name: %.300v (%d bytes)", err, len(fmt.Sprint(err)))
	}
}

// TestReadArchiveHonoursCancel (#16 item 7): Ctrl-C (a cancelled context)
// stops the reader promptly, inside an endless stream of members.
func TestReadArchiveHonoursCancel(t *testing.T) {
	src := newLazyArchive(func(w io.Writer) error {
		for i := 0; ; i++ {
			name := fmt.Sprintf("sys/f%d", i)
			for _, b := range [][]byte{rawHeader(name, tar.TypeReg, 1), []byte("x"), pad(1)} {
				if _, err := w.Write(b); err != nil {
					return err
				}
			}
		}
	})
	defer src.Close()
	ctx, cancel := context.WithCancel(t.Context())
	time.AfterFunc(200*time.Millisecond, cancel)
	start := time.Now()
	err := Read(ctx, src, t.TempDir(), Limits{})
	took := time.Since(start)
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("want context.Canceled, got %v", err)
	}
	if took > 1200*time.Millisecond {
		t.Errorf("cancelled at 200ms, returned after %s", took)
	}
}

// Garbage after an intact archive, or a truncated stream, is refused: the
// gzip stream is read to its end.
func TestReadArchiveReadsGzipToItsEnd(t *testing.T) {
	good := buildArchive(t, dir("sys"), file("sys/a", "1"))
	for name, b := range map[string][]byte{
		"truncated trailer": good[:len(good)-4],
		"trailing garbage":  append(bytes.Clone(good), "garbage"...),
		"bad crc":           append(bytes.Clone(good[:len(good)-8]), 0, 0, 0, 0, 0, 0, 0, 0),
	} {
		if _, err := unpackInto(t, b, Limits{}); err == nil {
			t.Errorf("%s: accepted", name)
		}
	}
}

// Verify refuses a member over the cap from its raw header, having read
// only that far: an archive of 1 GiB costs no more than one of 1 KiB.
func TestVerifyRefusesFromHeaders(t *testing.T) {
	src := newLazyArchive(func(w io.Writer) error {
		if _, err := w.Write(rawHeader("sys/huge", tar.TypeReg, 1<<30)); err != nil {
			return err
		}
		zeros := make([]byte, 1<<20)
		for range 1 << 10 {
			if _, err := w.Write(zeros); err != nil {
				return err
			}
		}
		return nil
	})
	defer src.Close()
	err := Verify(t.Context(), src, Limits{})
	var ae *Error
	if !errors.As(err, &ae) || ae.Member != "sys/huge" || !strings.Contains(ae.Reason, "more than the") {
		t.Fatalf("want a refusal of sys/huge from its header, got %v", err)
	}
	if src.read > 1<<20 {
		t.Errorf("read %d compressed bytes before refusing", src.read)
	}
}

// TestOpenRefusesFifo (#16 item 5): --snapshot given a fifo
// (or a device) is refused at once instead of waiting for a writer.
func TestOpenRefusesFifo(t *testing.T) {
	fifo := filepath.Join(t.TempDir(), "snap.tar.gz")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Skipf("mkfifo: %v", err)
	}
	for _, p := range []string{fifo, "/dev/null"} {
		done := make(chan error, 1)
		go func() {
			_, _, err := Open(t.Context(), p)
			done <- err
		}()
		select {
		case err := <-done:
			if err == nil || !strings.Contains(err.Error(), "not a regular file") {
				t.Errorf("%s: %v, want a refusal", p, err)
			}
		case <-time.After(3 * time.Second):
			t.Fatalf("%s: Open blocks", p)
		}
	}
}
