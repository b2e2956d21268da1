package snapshot

import (
	"archive/tar"
	"bufio"
	"fmt"
	"io"
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
	cw := &countWriter{w: w}
	// klauspost/compress's deflate at its default level: on the
	// 1,000-disk machine's 33 MB of tar (mostly headers and padding) 50 ms
	// for 0.82 MB, where compress/flate takes 115 ms for 0.74 MB.
	gz, err := gzip.NewWriterLevel(cw, gzip.DefaultCompression)
	if err != nil {
		return st, err
	}
	// The tar stream is deflated on another goroutine as it is written:
	// formatting 40,000 headers and deflating them take about as long.
	pr, pw := io.Pipe()
	deflated := make(chan error, 1)
	go func() {
		_, err := io.CopyBuffer(gz, pr, make([]byte, pipeBlock))
		if err == nil {
			err = gz.Close()
		}
		pr.CloseWithError(err) // a failed write stops the writer too
		deflated <- err
	}()
	bw := bufio.NewWriterSize(pw, pipeBlock)
	tw := tar.NewWriter(bw)
	// Whole seconds fit the ustar header; a fraction would cost every
	// member a PAX record (twice the blocks, a third of the writing time).
	mtime = mtime.Truncate(time.Second)
	err = rec.walk(meta, func(e *Entry) error {
		h := &tar.Header{Name: e.Path, ModTime: mtime, Format: tar.FormatPAX}
		switch e.Type {
		case EntryDir:
			h.Typeflag, h.Mode, h.Name = tar.TypeDir, 0o755, e.Path+"/"
			st.Dirs++
		case EntryLink:
			h.Typeflag, h.Mode, h.Linkname = tar.TypeSymlink, 0o777, e.Target
			st.Links++
		default:
			h.Typeflag, h.Mode, h.Size = tar.TypeReg, 0o644, int64(len(e.Data))
			st.Files++
			st.Bytes += h.Size
		}
		if err := tw.WriteHeader(h); err != nil {
			return fmt.Errorf("%s: %w", e.Path, err)
		}
		if e.Type == EntryFile {
			if _, err := tw.Write(e.Data); err != nil {
				return fmt.Errorf("%s: %w", e.Path, err)
			}
		}
		return nil
	})
	if err == nil {
		err = tw.Close()
	}
	if err == nil {
		err = bw.Flush()
	}
	pw.CloseWithError(err) // nil: the end of the stream
	if derr := <-deflated; err == nil {
		err = derr
	}
	if err != nil {
		return st, err
	}
	st.Compressed = cw.n
	return st, nil
}

// pipeBlock is what the tar writer hands the deflating goroutine at once.
const pipeBlock = 256 << 10
