package archive

import (
	"archive/tar"
	"bufio"
	"bytes"
	"strings"
	"time"
)

// memberWriter writes tar members as archive/tar does, byte for byte: a
// member whose header archive/tar writes as plain ustar (an ASCII name of
// at most 100 bytes, or one it splits into prefix and name, an ASCII link
// target of at most 100) is its header block for the member's type with
// the name, target, size and checksum put in; any other goes through
// archive/tar. archive/tar's WriteHeader validates and formats every field
// of every member, and a recorded machine is tens of thousands of small
// members: that, not the compression, was the writer's cost, and the
// snapshot command's budget (issue #22: at most twice the check's wall
// time) is missed without this. TestMembersAreArchiveTars holds it to
// archive/tar's output. The field offsets are the ustar header's (POSIX
// pax, "ustar Interchange Format").
type memberWriter struct {
	w    *bufio.Writer
	tw   *tar.Writer // over w: members written here are padded before the next
	tmpl map[byte]*[blockSize]byte
	// base is the checksum of each header block without the fields put
	// in (their bytes are added to it, instead of summing the block).
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
