package snapshot

import (
	"archive/tar"
	"bufio"
	"bytes"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/klauspost/compress/gzip"
)

// Limits of what a snapshot archive may hold. A real snapshot is a few
// megabytes; the caps only stop hostile or broken archives.
const (
	MaxMemberBytes = 64 << 20  // one member's content
	MaxTotalBytes  = 512 << 20 // all members' content
	MaxMembers     = 1_000_000 // members of one archive
	// MaxRatio is the largest expansion of the compressed input tolerated
	// once more than ratioFloor bytes have been unpacked: a real snapshot
	// (small text files, tar headers) expands 20-40 times, an archive bomb
	// (zeros) a thousand.
	MaxRatio   = 200
	ratioFloor = 16 << 20
)

// ArchiveLimits cap what ReadArchive accepts; zero fields take the defaults.
type ArchiveLimits struct {
	MaxMember  int64
	MaxTotal   int64
	MaxMembers int
	MaxRatio   float64
}

func (l ArchiveLimits) withDefaults() ArchiveLimits {
	if l.MaxMember <= 0 {
		l.MaxMember = MaxMemberBytes
	}
	if l.MaxTotal <= 0 {
		l.MaxTotal = MaxTotalBytes
	}
	if l.MaxMembers <= 0 {
		l.MaxMembers = MaxMembers
	}
	if l.MaxRatio <= 0 {
		l.MaxRatio = MaxRatio
	}
	return l
}

// ArchiveStats describes a written archive.
type ArchiveStats struct {
	Files, Dirs, Links int
	Bytes              int64 // content bytes before compression
	Compressed         int64 // bytes written
}

type countWriter struct {
	w io.Writer
	n int64
}

func (c *countWriter) Write(p []byte) (int, error) {
	n, err := c.w.Write(p)
	c.n += int64(n)
	return n, err
}

// WriteArchive writes the recording as a gzip-compressed tar in the fixture
// layout, with meta as diskdoctor-snapshot.yaml at its root. Links are
// written as links, never followed.
func WriteArchive(w io.Writer, rec *Recording, meta []byte, mtime time.Time) (ArchiveStats, error) {
	var st ArchiveStats
	// Whole seconds fit the ustar header; a fraction would cost every
	// member a PAX record (twice the blocks, a third of the writing time).
	mtime = mtime.Truncate(time.Second)
	type member struct {
		e    *Entry
		size int64 // in the tar stream
	}
	var ms []member
	var total int64
	err := rec.walk(meta, func(e *Entry) error {
		switch e.Type {
		case EntryDir:
			st.Dirs++
		case EntryLink:
			st.Links++
		default:
			st.Files++
			st.Bytes += int64(len(e.Data))
		}
		size := int64(blockSize)
		if e.Type == EntryFile {
			size += (int64(len(e.Data)) + blockSize - 1) &^ (blockSize - 1)
		}
		ms = append(ms, member{e, size})
		total += size
		return nil
	})
	if err != nil {
		return st, err
	}
	// The members are written in two halves of the tar stream at once,
	// each deflated as a gzip member of its own (gzip readers read the
	// members of a file one after the other): one stream, its headers
	// formatted on one goroutine and deflated on another, used the two
	// cores two thirds of its time. The second half waits in memory (half
	// of the compressed archive) until the first is written.
	k, half := 0, int64(0)
	for k < len(ms) && half < total/2 {
		half += ms[k].size
		k++
	}
	write := func(out io.Writer, ms []member, last bool) error {
		// klauspost/compress's deflate at its fastest level. On the
		// 1,000-disk machine's 33 MB of tar (mostly headers and padding)
		// its default level took 50 ms for 0.85 MB (compress/flate 115
		// ms for 0.74 MB), longer than the tar side once headers were
		// written from blocks (20 ms): BestSpeed takes 35 ms for 1.05
		// MB, a fifth larger, still a fifth of what a snapshot may weigh
		// (issue #14: under 5 MB).
		gz, err := gzip.NewWriterLevel(out, gzip.BestSpeed)
		if err != nil {
			return err
		}
		bw := bufio.NewWriterSize(gz, pipeBlock)
		tw := newMemberWriter(bw, mtime)
		h := new(tar.Header) // one for all: a header is copied where it is kept
		for _, m := range ms {
			e := m.e
			*h = tar.Header{Name: e.Path, ModTime: mtime, Format: tar.FormatPAX}
			var data []byte
			switch e.Type {
			case EntryDir:
				h.Typeflag, h.Mode, h.Name = tar.TypeDir, 0o755, e.Path+"/"
			case EntryLink:
				h.Typeflag, h.Mode, h.Linkname = tar.TypeSymlink, 0o777, e.Target
			default:
				h.Typeflag, h.Mode, h.Size = tar.TypeReg, 0o644, int64(len(e.Data))
				data = e.Data
			}
			if err := tw.member(h, data); err != nil {
				return fmt.Errorf("%s: %w", e.Path, err)
			}
		}
		if last {
			err = tw.tw.Close() // the end of the archive
		} else {
			err = tw.tw.Flush()
		}
		if err == nil {
			err = bw.Flush()
		}
		if cerr := gz.Close(); err == nil {
			err = cerr
		}
		return err
	}
	cw := &countWriter{w: w}
	var second bytes.Buffer
	done := make(chan error, 1)
	go func() { done <- write(&second, ms[k:], true) }()
	err = write(cw, ms[:k], false)
	if serr := <-done; err == nil {
		err = serr
	}
	if err == nil {
		_, err = cw.Write(second.Bytes())
	}
	if err != nil {
		return st, err
	}
	st.Compressed = cw.n
	return st, nil
}

// pipeBlock is what the tar writer hands the compressor at once.
const pipeBlock = 256 << 10

// memberWriter writes tar members as archive/tar does, byte for byte: a
// member whose header archive/tar writes as plain ustar (an ASCII name of
// at most 100 bytes, or one it splits into prefix and name, an ASCII link
// target of at most 100) is its header block for the member's type with
// the name, target, size and checksum put in; any other goes through
// archive/tar. Its WriteHeader (validation, PAX checks, the formatting of
// every field) was the tar side's cost: some 40,000 members on a
// 1,000-disk machine.
type memberWriter struct {
	w    *bufio.Writer
	tw   *tar.Writer // over w: members written here are padded before the next
	tmpl map[byte]*[blockSize]byte
	// base is the checksum of each header block without the fields put
	// in (their bytes are added to it: a fifth of the block to sum).
	base map[byte]int64
	// The block being written, and zeros to pad with: kept here, since a
	// block on the stack escapes to the heap through Write.
	blk, zeros [blockSize]byte
}

const blockSize = 512

// Offsets of the ustar header's fields that vary between members of one
// archive.
const (
	nameOff, nameLen     = 0, 100
	sizeOff, sizeLen     = 124, 12
	chksumOff, chksumLen = 148, 8
	linkOff, linkLen     = 157, 100
	prefixOff, prefixLen = 345, 155
)

func newMemberWriter(w *bufio.Writer, mtime time.Time) *memberWriter {
	m := &memberWriter{w: w, tw: tar.NewWriter(w), tmpl: map[byte]*[blockSize]byte{}, base: map[byte]int64{}}
	// The header blocks archive/tar writes for the three kinds of member;
	// none if it writes any with more than one block (a time ustar cannot
	// hold): every member then goes through it.
	for _, h := range []tar.Header{
		{Typeflag: tar.TypeReg, Mode: 0o644},
		{Typeflag: tar.TypeDir, Mode: 0o755},
		{Typeflag: tar.TypeSymlink, Mode: 0o777, Linkname: "t"},
	} {
		h.Name, h.ModTime, h.Format = "n", mtime, tar.FormatPAX
		var buf bytes.Buffer
		t := tar.NewWriter(&buf)
		if t.WriteHeader(&h) != nil || t.Flush() != nil || buf.Len() != blockSize {
			m.tmpl = nil
			break
		}
		b := new([blockSize]byte)
		copy(b[:], buf.Bytes())
		clear(b[nameOff : nameOff+nameLen])
		clear(b[linkOff : linkOff+linkLen])
		clear(b[sizeOff : sizeOff+sizeLen])
		m.tmpl[h.Typeflag] = b
		sum := int64(0)
		for i, c := range b {
			if i >= chksumOff && i < chksumOff+chksumLen {
				c = ' ' // as the checksum is taken
			}
			sum += int64(c)
		}
		m.base[h.Typeflag] = sum
	}
	return m
}

// byteSum is the sum of s's bytes.
func byteSum(s string) int64 {
	n := int64(0)
	for i := 0; i < len(s); i++ {
		n += int64(s[i])
	}
	return n
}

// member writes one member: its header, data and padding.
func (m *memberWriter) member(h *tar.Header, data []byte) error {
	prefix, name, ok := ustarName(h.Name)
	tmpl := m.tmpl[h.Typeflag]
	// archive/tar refuses a name with a slash at its end but a directory's.
	slash := h.Typeflag != tar.TypeDir && strings.HasSuffix(h.Name, "/")
	if !ok || tmpl == nil || slash || !ustarString(h.Linkname, linkLen) || int64(len(data)) != h.Size || h.Size >= 1<<33 {
		if err := m.tw.WriteHeader(h); err != nil {
			return err
		}
		if _, err := m.tw.Write(data); err != nil {
			return err
		}
		return m.tw.Flush() // its padding, before a header written here
	}
	blk := &m.blk
	*blk = *tmpl
	putString(blk[nameOff:nameOff+nameLen], name)
	putString(blk[prefixOff:prefixOff+prefixLen], prefix)
	putString(blk[linkOff:linkOff+linkLen], h.Linkname)
	putOctal(blk[sizeOff:sizeOff+sizeLen], h.Size)
	sum := m.base[h.Typeflag] + byteSum(name) + byteSum(prefix) + byteSum(h.Linkname)
	for _, c := range blk[sizeOff : sizeOff+sizeLen] {
		sum += int64(c)
	}
	putOctal(blk[chksumOff:chksumOff+chksumLen-1], sum)
	blk[chksumOff+chksumLen-1] = ' '
	if _, err := m.w.Write(blk[:]); err != nil {
		return err
	}
	if _, err := m.w.Write(data); err != nil {
		return err
	}
	if pad := -len(data) & (blockSize - 1); pad > 0 {
		if _, err := m.w.Write(m.zeros[:pad]); err != nil {
			return err
		}
	}
	return nil
}

// ustarName splits a member's name as archive/tar does for a ustar header:
// whole when it fits the name field, else at the last '/' that leaves a
// prefix of at most 155 bytes and a non-empty name of at most 100; ok is
// false for a name it would write in a PAX record.
func ustarName(s string) (prefix, name string, ok bool) {
	if !ustarString(s, len(s)) {
		return "", "", false
	}
	if len(s) <= nameLen {
		return "", s, true
	}
	end := min(len(s), prefixLen+1)
	if end == len(s) && s[end-1] == '/' {
		end-- // a directory's own slash stays in its name
	}
	i := strings.LastIndexByte(s[:end], '/')
	if i <= 0 || i > prefixLen || len(s)-i-1 == 0 || len(s)-i-1 > nameLen {
		return "", "", false
	}
	return s[:i], s[i+1:], true
}

// ustarString: printable ASCII of at most max bytes, which archive/tar
// writes into a ustar field as it is.
func ustarString(s string, max int) bool {
	if len(s) > max {
		return false
	}
	for i := 0; i < len(s); i++ {
		if s[i] < 0x20 || s[i] > 0x7e {
			return false
		}
	}
	return true
}

// putString writes s into a field, NUL-terminated when shorter.
func putString(f []byte, s string) {
	n := copy(f, s)
	if n < len(f) {
		f[n] = 0
	}
}

// putOctal writes x in octal, zero-padded to fill all but the field's
// last byte, which is NUL.
func putOctal(f []byte, x int64) {
	for i := len(f) - 2; i >= 0; i-- {
		f[i] = byte('0' + x&7)
		x >>= 3
	}
	f[len(f)-1] = 0
}
