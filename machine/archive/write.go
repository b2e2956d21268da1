package archive

import (
	"archive/tar"
	"bufio"
	"fmt"
	"io"
	"time"

	"github.com/klauspost/compress/gzip"
)

// Type is the kind of a member: the three a recorded machine holds.
type Type uint8

const (
	File Type = iota
	Dir
	Symlink
)

// Member is one member of an archive to write.
type Member struct {
	Name string // slash-separated, relative to the archive's root
	Type Type
	Data []byte // a File's content
	Link string // a Symlink's target, as it is (never followed)
}

// Members hands the members to write, in order, to yield, and stops at
// the first error yield returns, returning it.
type Members func(yield func(Member) error) error

// Stats describes a written archive.
type Stats struct {
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

// bufSize is what the tar writer hands the compressor at once: archive/tar
// writes a member as a header block, its data and its padding, three
// small writes that the compressor would otherwise take one by one.
const bufSize = 256 << 10

// Write writes the members as a gzip-compressed tar, one gzip member (RFC
// 1952) holding the whole tar stream. Links are written as links, never
// followed; directories get mode 0755, files 0644, links 0777 (the reader
// applies none of them, and owners are never written).
func Write(w io.Writer, members Members, mtime time.Time) (Stats, error) {
	var st Stats
	cw := &countWriter{w: w}
	// klauspost/compress's deflate at its fastest level: a snapshot is
	// mostly tar headers and padding, which compress well at any level,
	// and the snapshot command must not cost much more than the check it
	// records.
	gz, err := gzip.NewWriterLevel(cw, gzip.BestSpeed)
	if err != nil {
		return st, err
	}
	bw := bufio.NewWriterSize(gz, bufSize)
	// Whole seconds fit the ustar header's mtime field; a fraction would
	// cost every member a PAX record (POSIX pax, "pax Extended Header":
	// mtime with a fraction is only in an extended header).
	mtime = mtime.Truncate(time.Second)
	tw := tar.NewWriter(bw)
	err = members(func(m Member) error {
		// Only what Read accepts: an archive its reader refuses (a name
		// 4,096 directories deep) is no recording.
		if err := Check(m); err != nil {
			return err
		}
		if st.Files+st.Dirs+st.Links >= MaxMembers {
			return refuse(m.Name, "more than %d members, which the reader refuses", MaxMembers)
		}
		if st.Bytes+int64(len(m.Data)) > MaxTotalBytes {
			return refuse(m.Name, "the archive would hold more than %d bytes, which the reader refuses", MaxTotalBytes)
		}
		if err := writeMember(tw, m, mtime); err != nil {
			return fmt.Errorf("%s: %w", m.Name, err)
		}
		switch m.Type {
		case Dir:
			st.Dirs++
		case Symlink:
			st.Links++
		default:
			st.Files++
			st.Bytes += int64(len(m.Data))
		}
		return nil
	})
	if err == nil {
		err = tw.Close() // the two zero blocks that end the archive
	}
	if err == nil {
		err = bw.Flush()
	}
	if cerr := gz.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return st, err
	}
	st.Compressed = cw.n
	return st, nil
}

// Check is nil for a member Read accepts on its own, else the reason it
// would be refused: its name (as written: a directory's with its '/')
// too long or too deep, a link's target empty or too long, a file over
// MaxMemberBytes. The archive-wide caps (members, total size) are Write's.
func Check(m Member) error {
	name := m.Name
	if m.Type == Dir {
		name += "/"
	}
	switch {
	case len(name) > MaxNameBytes:
		return refuse(m.Name, "name of %d bytes, longer than the %d the reader accepts", len(name), MaxNameBytes)
	case Depth(name) > MaxDepth:
		return refuse(m.Name, "%d directories deep, more than the %d the reader accepts", Depth(name), MaxDepth)
	case m.Type == Symlink && (m.Link == "" || len(m.Link) > MaxNameBytes):
		return refuse(m.Name, "link target of %d bytes, which the reader refuses", len(m.Link))
	case int64(len(m.Data)) > MaxMemberBytes:
		return refuse(m.Name, "%d bytes, more than the %d a member may hold", len(m.Data), MaxMemberBytes)
	}
	return nil
}

// writeMember writes one member's header and content. FormatPAX: a name
// or target too long or not ASCII for the ustar fields goes in a PAX
// record, never in a GNU extension (the POSIX format, which every tar
// reads).
func writeMember(tw *tar.Writer, m Member, mtime time.Time) error {
	h := &tar.Header{Name: m.Name, ModTime: mtime, Format: tar.FormatPAX}
	switch m.Type {
	case Dir:
		h.Typeflag, h.Mode, h.Name = tar.TypeDir, 0o755, m.Name+"/"
	case Symlink:
		h.Typeflag, h.Mode, h.Linkname = tar.TypeSymlink, 0o777, m.Link
	case File:
		h.Typeflag, h.Mode, h.Size = tar.TypeReg, 0o644, int64(len(m.Data))
	default:
		return fmt.Errorf("member type %d", m.Type)
	}
	if err := tw.WriteHeader(h); err != nil {
		return err
	}
	_, err := tw.Write(m.Data)
	return err
}
