package archive

import (
	"archive/tar"
	"bufio"
	"compress/gzip"
	"context"
	"errors"
	"io"
	"strconv"
	"strings"
)

// Bounds of a tar stream's own metadata, checked on the raw 512-byte
// headers before archive/tar reads what they announce: archive/tar reads
// a PAX or GNU long-name record (up to 1 MiB since Go issue #54853,
// CVE-2022-2879) and a chain of them in one Next call, so a 4,096-long
// chain of 1 MiB names is 4 GiB of work that neither the member caps nor a
// cancelled context would interrupt.
const (
	maxMetaRecord = 64 << 10 // one PAX or GNU long-name/long-link record
	maxMetaChain  = 8        // such records in a row before a member
)

// openStream returns the tar stream of r, decompressed when it is gzip and
// guarded (bomb ratio, cancellation, bounds of the tar metadata), and the
// function that reads the rest of the stream after the tar's end marker
// through the same guard, so that gzip verifies the CRC-32 and length at
// the end of each of its members (RFC 1952 §2.3.1: CRC32 and ISIZE close
// every member, and compress/gzip checks them only when it reaches them):
// a corrupt archive is refused whole.
func openStream(ctx context.Context, r io.Reader, lim Limits) (io.Reader, func() error, error) {
	in := &countReader{r: r}
	br := bufio.NewReader(in)
	var src io.Reader = br
	if magic, err := br.Peek(2); err == nil && magic[0] == 0x1f && magic[1] == 0x8b {
		gz, err := gzip.NewReader(br)
		if err != nil {
			return nil, nil, refuse("", "not a gzip stream: %v", err)
		}
		src = gz
	}
	guard := &guardReader{ctx: ctx, r: src, in: in, lim: lim}
	finish := func() error {
		if _, err := io.Copy(io.Discard, guard); err != nil {
			var ae *Error
			if errors.As(err, &ae) || ctx.Err() != nil {
				return err
			}
			return refuse("", "corrupt stream: %v", err)
		}
		return nil
	}
	return guard, finish, nil
}

type countReader struct {
	r io.Reader
	n int64
}

func (c *countReader) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	c.n += int64(n)
	return n, err
}

// guardReader passes the tar stream through, stopping it at the first
// read past the bomb ratio or after ctx is cancelled, and checking each
// raw 512-byte tar header as it passes: a PAX or GNU long-name record over
// maxMetaRecord bytes, or more than maxMetaChain in a row, is refused
// before archive/tar reads it.
type guardReader struct {
	ctx context.Context
	r   io.Reader
	in  *countReader // the compressed input, for the ratio
	lim Limits
	out int64 // tar bytes passed
	err error

	// Tar block structure: the offset of the next header, the header
	// being assembled, and special records in a row.
	next  int64
	hdr   [512]byte
	hlen  int
	chain int
	ended bool // two zero blocks or the first one: end of archive

	// The member caps, from the raw headers: so that Verify refuses an
	// archive over them without reading all of it.
	members int
	total   int64
}

func (g *guardReader) Read(p []byte) (int, error) {
	if g.err != nil {
		return 0, g.err
	}
	if err := g.ctx.Err(); err != nil {
		g.err = err
		return 0, err
	}
	n, err := g.r.Read(p)
	if n > 0 {
		if herr := g.scan(p[:n]); herr != nil {
			g.err = herr
			return 0, herr
		}
		g.out += int64(n)
		if g.out > ratioFloor && float64(g.out) > g.lim.MaxRatio*float64(max(g.in.n, 1)) {
			g.err = refuse("", "archive bomb: %d bytes unpacked from %d compressed (more than %.0f:1)", g.out, g.in.n, g.lim.MaxRatio)
			return 0, g.err
		}
	}
	return n, err
}

// scan follows the tar block structure through b, which starts at offset
// g.out of the stream, and checks every header it completes.
func (g *guardReader) scan(b []byte) error {
	off := g.out
	for len(b) > 0 && !g.ended {
		if off < g.next { // inside a member's data
			skip := min(g.next-off, int64(len(b)))
			b, off = b[skip:], off+skip
			continue
		}
		k := copy(g.hdr[g.hlen:], b)
		g.hlen += k
		b, off = b[k:], off+int64(k)
		if g.hlen < len(g.hdr) {
			return nil
		}
		g.hlen = 0
		size, err := g.header()
		if err != nil {
			return err
		}
		g.next = off + (size+511)/512*512
	}
	return nil
}

// header checks one complete raw header and returns the size of the data
// that follows it.
func (g *guardReader) header() (int64, error) {
	h := g.hdr[:]
	if allZero(h) {
		g.ended = true // archive/tar stops here too; padding follows
		return 0, nil
	}
	if !headerSumOK(h) {
		return 0, refuse("", "not a tar header at byte %d (checksum)", g.next)
	}
	size, ok := octalSize(h[124:136])
	typ := h[156]
	switch typ {
	case tar.TypeXHeader, tar.TypeXGlobalHeader, tar.TypeGNULongName, tar.TypeGNULongLink:
		if !ok || size > maxMetaRecord {
			return 0, refuse(cString(h[:100]), "a %s record of %s bytes, more than the %d a snapshot's names need", metaKind(typ), sizeText(size, ok), maxMetaRecord)
		}
		if g.chain++; g.chain > maxMetaChain {
			return 0, refuse(cString(h[:100]), "more than %d PAX or GNU long-name records in a row", maxMetaChain)
		}
	default:
		g.chain = 0
		name := cString(h[:100])
		if string(h[257:263]) == "ustar\x00" && h[345] != 0 { // POSIX ustar: a prefix
			name = cString(h[345:500]) + "/" + name
		}
		if !ok {
			// A base-256 size (over 8 GiB): archive/tar would wait for it;
			// the member caps would refuse it from its header anyway.
			return 0, refuse(name, "a member of more than 8 GiB")
		}
		if g.members++; g.members > g.lim.MaxMembers {
			return 0, refuse(name, "more than %d members", g.lim.MaxMembers)
		}
		if typ == tar.TypeReg || typ == '\x00' {
			if size > g.lim.MaxMember {
				return 0, refuse(name, "%d bytes, more than the %d a member may hold", size, g.lim.MaxMember)
			}
			if g.total += size; g.total > g.lim.MaxTotal {
				return 0, refuse(name, "the archive holds more than %d bytes", g.lim.MaxTotal)
			}
		}
	}
	return size, nil
}

// headerSumOK checks a header's checksum as archive/tar does: the sum of
// its bytes, the checksum field counted as spaces, unsigned or signed.
func headerSumOK(h []byte) bool {
	want, ok := octalSize(h[148:156])
	if !ok {
		return false
	}
	var unsigned, signed int64
	for i, c := range h {
		if i >= 148 && i < 156 {
			c = ' '
		}
		unsigned += int64(c)
		signed += int64(int8(c))
	}
	return want == unsigned || want == signed
}

func metaKind(typ byte) string {
	switch typ {
	case tar.TypeGNULongName, tar.TypeGNULongLink:
		return "GNU long-name"
	}
	return "PAX header"
}

func sizeText(n int64, ok bool) string {
	if !ok {
		return "more than 8 GiB of"
	}
	return strconv.FormatInt(n, 10)
}

// octalSize parses a tar size field in octal (NUL or space terminated);
// ok is false for a base-256 or malformed field.
func octalSize(f []byte) (int64, bool) {
	s := strings.Trim(string(f), " \x00")
	if s == "" {
		return 0, true
	}
	if f[0]&0x80 != 0 {
		return 0, false
	}
	n, err := strconv.ParseInt(s, 8, 64)
	return n, err == nil && n >= 0
}

func cString(b []byte) string {
	if i := strings.IndexByte(string(b), 0); i >= 0 {
		b = b[:i]
	}
	return string(b)
}

func allZero(b []byte) bool {
	for _, c := range b {
		if c != 0 {
			return false
		}
	}
	return true
}
