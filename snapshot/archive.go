package snapshot

import (
	"archive/tar"
	"bufio"
	"compress/gzip"
	"errors"
	"fmt"
	"io"
	"os"
	"path"
	"path/filepath"
	"strings"
	"time"
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
	gz, err := gzip.NewWriterLevel(cw, gzip.DefaultCompression)
	if err != nil {
		return st, err
	}
	tw := tar.NewWriter(gz)
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
	if err != nil {
		return st, err
	}
	if err := tw.Close(); err != nil {
		return st, err
	}
	if err := gz.Close(); err != nil {
		return st, err
	}
	st.Compressed = cw.n
	return st, nil
}

// ArchiveError is a refused archive member.
type ArchiveError struct {
	Member string
	Reason string
}

func (e *ArchiveError) Error() string {
	if e.Member == "" {
		return "snapshot archive: " + e.Reason
	}
	return fmt.Sprintf("snapshot archive: member %q: %s", e.Member, e.Reason)
}

func refuse(member, format string, args ...any) error {
	return &ArchiveError{Member: member, Reason: fmt.Sprintf(format, args...)}
}

// Open unpacks a snapshot archive into a private temporary
// directory (mode 0700) and returns it with the function that removes it.
// Nothing is written outside that directory; a refused archive leaves
// nothing behind.
func Open(file string) (string, func(), error) {
	f, err := os.Open(file)
	if err != nil {
		return "", nil, fmt.Errorf("snapshot %s: %w", file, err)
	}
	defer f.Close()
	if st, err := f.Stat(); err == nil && st.IsDir() {
		return "", nil, fmt.Errorf("snapshot %s: a directory (use --root for an unpacked snapshot)", file)
	}
	dir, err := os.MkdirTemp("", "diskdoctor-snapshot-")
	if err != nil {
		return "", nil, err
	}
	cleanup := func() { _ = os.RemoveAll(dir) }
	if err := ReadArchive(f, dir, ArchiveLimits{}); err != nil {
		cleanup()
		return "", nil, fmt.Errorf("%s: %w", file, err)
	}
	return dir, cleanup, nil
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

// ReadArchive unpacks a snapshot (a tar, gzip-compressed or not) into dir,
// an existing directory that the caller owns. It refuses, naming the member:
// absolute names and names with "..", members beneath a link, duplicates,
// hard links, device nodes, fifos and other special members, links whose
// target is absolute or resolves outside dir, members over the size caps,
// too many members, and an input that expands like an archive bomb.
func ReadArchive(r io.Reader, dir string, lim ArchiveLimits) error {
	lim = lim.withDefaults()
	in := &countReader{r: r}
	br := bufio.NewReader(in)
	var src io.Reader = br
	if magic, err := br.Peek(2); err == nil && magic[0] == 0x1f && magic[1] == 0x8b {
		gz, err := gzip.NewReader(br)
		if err != nil {
			return refuse("", "not a gzip stream: %v", err)
		}
		defer gz.Close()
		src = gz
	}
	out := &countReader{r: src}
	tr := tar.NewReader(out)
	root, err := os.OpenRoot(dir)
	if err != nil {
		return err
	}
	defer root.Close()
	var (
		members int
		total   int64
		links   []string
		dirs    = map[string]bool{} // directories created and checked here
	)
	for {
		h, err := tr.Next()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			if members == 0 {
				return refuse("", "not a tar archive: %v", err)
			}
			return refuse("", "corrupt after %d members: %v", members, err)
		}
		members++
		if members > lim.MaxMembers {
			return refuse(h.Name, "more than %d members", lim.MaxMembers)
		}
		if out.n > ratioFloor && float64(out.n) > lim.MaxRatio*float64(max(in.n, 1)) {
			return refuse(h.Name, "archive bomb: %d bytes unpacked from %d compressed (more than %.0f:1)", out.n, in.n, lim.MaxRatio)
		}
		name, err := memberName(h.Name)
		if err != nil {
			return err
		}
		if name == "." {
			if h.Typeflag == tar.TypeDir {
				continue
			}
			return refuse(h.Name, "the archive root must be a directory")
		}
		if err := parentsPlain(root, name, h.Name, dirs); err != nil {
			return err
		}
		switch h.Typeflag {
		case tar.TypeDir:
			if dirs[name] {
				continue
			}
			if err := root.Mkdir(name, 0o755); err != nil {
				if st, serr := root.Lstat(name); serr != nil || !st.IsDir() {
					return refuse(h.Name, "cannot create directory: %v", err)
				}
			}
			dirs[name] = true
		case tar.TypeReg, '\x00':
			if h.Size < 0 || h.Size > lim.MaxMember {
				return refuse(h.Name, "%d bytes, more than the %d a member may hold", h.Size, lim.MaxMember)
			}
			if total+h.Size > lim.MaxTotal {
				return refuse(h.Name, "the archive holds more than %d bytes", lim.MaxTotal)
			}
			total += h.Size
			f, err := root.OpenFile(name, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
			if err != nil {
				if errors.Is(err, os.ErrExist) {
					return refuse(h.Name, "duplicate member")
				}
				return refuse(h.Name, "cannot create: %v", err)
			}
			n, err := io.Copy(f, io.LimitReader(tr, lim.MaxMember+1))
			cerr := f.Close()
			switch {
			case err != nil:
				return refuse(h.Name, "%v", err)
			case n > lim.MaxMember:
				return refuse(h.Name, "more than %d bytes", lim.MaxMember)
			case cerr != nil:
				return cerr
			}
			if out.n > ratioFloor && float64(out.n) > lim.MaxRatio*float64(max(in.n, 1)) {
				return refuse(h.Name, "archive bomb: %d bytes unpacked from %d compressed (more than %.0f:1)", out.n, in.n, lim.MaxRatio)
			}
		case tar.TypeSymlink:
			t := h.Linkname
			switch {
			case t == "" || strings.IndexByte(t, 0) >= 0 || len(t) > 4096:
				return refuse(h.Name, "link with an invalid target")
			case path.IsAbs(t):
				return refuse(h.Name, "link to an absolute path %q (a snapshot's links are relative)", t)
			case escapesLexically(name, t):
				return refuse(h.Name, "link %q points outside the snapshot", t)
			}
			if err := root.Symlink(t, name); err != nil {
				if errors.Is(err, os.ErrExist) {
					return refuse(h.Name, "duplicate member")
				}
				return refuse(h.Name, "cannot create link: %v", err)
			}
			links = append(links, name)
		case tar.TypeLink:
			return refuse(h.Name, "hard link (to %q) refused", h.Linkname)
		case tar.TypeChar, tar.TypeBlock:
			return refuse(h.Name, "device node refused")
		case tar.TypeFifo:
			return refuse(h.Name, "fifo refused")
		default:
			return refuse(h.Name, "member type %q refused", string(h.Typeflag))
		}
	}
	if members == 0 {
		return refuse("", "empty archive")
	}
	// Every link must resolve inside dir as the kernel would resolve it,
	// following the archive's other links: checked once all exist, since a
	// later member can change where an earlier link leads.
	for _, l := range links {
		if err := linkStaysInside(dir, l); err != nil {
			return err
		}
	}
	return nil
}

// memberName validates and cleans a member name.
func memberName(raw string) (string, error) {
	switch {
	case raw == "":
		return "", refuse(raw, "empty name")
	case strings.IndexByte(raw, 0) >= 0:
		return "", refuse(raw, "NUL in name")
	case len(raw) > 4096:
		return "", refuse(raw[:64]+"…", "name longer than 4096 bytes")
	case strings.HasPrefix(raw, "/"):
		return "", refuse(raw, "absolute path")
	}
	for _, c := range strings.Split(raw, "/") {
		if c == ".." {
			return "", refuse(raw, "path with \"..\"")
		}
	}
	return path.Clean(raw), nil
}

// parentsPlain creates the member's missing parent directories and refuses
// a parent that is a link or not a directory. Directories already checked
// (dirs) stay directories: a later member of the same name is refused as a
// duplicate, so they are not checked again.
func parentsPlain(root *os.Root, name, raw string, dirs map[string]bool) error {
	if i := strings.LastIndexByte(name, '/'); i < 0 || dirs[name[:i]] {
		return nil
	}
	comps := strings.Split(name, "/")
	for i := 1; i < len(comps); i++ {
		p := strings.Join(comps[:i], "/")
		if dirs[p] {
			continue
		}
		st, err := root.Lstat(p)
		switch {
		case errors.Is(err, os.ErrNotExist):
			if err := root.Mkdir(p, 0o755); err != nil {
				return refuse(raw, "cannot create %s: %v", p, err)
			}
		case err != nil:
			return refuse(raw, "%v", err)
		case st.Mode()&os.ModeSymlink != 0:
			return refuse(raw, "beneath the link %s", p)
		case !st.IsDir():
			return refuse(raw, "beneath the file %s", p)
		}
		dirs[p] = true
	}
	return nil
}

func escapesLexically(name, target string) bool {
	j := path.Join(path.Dir(name), target)
	return j == ".." || strings.HasPrefix(j, "../")
}

// linkStaysInside resolves the link at name (relative to dir) component by
// component, following links, and fails when a ".." would leave dir.
// Resolution stops harmlessly at a missing component (a dangling link) or
// after too many hops (the kernel would answer ELOOP).
func linkStaysInside(dir, name string) error {
	t, err := os.Readlink(filepath.Join(dir, name))
	if err != nil {
		return refuse(name, "%v", err)
	}
	cur := path.Dir(name)
	if cur == "." {
		cur = ""
	}
	stack := splitPath(t)
	hops := 0
	for len(stack) > 0 {
		comp := stack[0]
		stack = stack[1:]
		switch comp {
		case ".":
			continue
		case "..":
			if cur == "" {
				return refuse(name, "link %q resolves outside the snapshot", t)
			}
			cur = path.Dir(cur)
			if cur == "." {
				cur = ""
			}
			continue
		}
		next := path.Join(cur, comp)
		st, err := os.Lstat(filepath.Join(dir, next))
		if err != nil {
			return nil
		}
		if st.Mode()&os.ModeSymlink != 0 {
			if hops++; hops > maxLinkHops {
				return nil
			}
			lt, err := os.Readlink(filepath.Join(dir, next))
			if err != nil || path.IsAbs(lt) {
				return refuse(name, "link %q leads through %s to an absolute path", t, next)
			}
			stack = append(splitPath(lt), stack...)
			continue
		}
		if !st.IsDir() {
			return nil
		}
		cur = next
	}
	return nil
}
