package archive

import (
	"archive/tar"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"strings"
	"syscall"

	"golang.org/x/sys/unix"

	"github.com/diskdoctor/diskdoctor/internal/inroot"
)

// Open unpacks a snapshot archive into a private temporary directory (mode
// 0700) and returns it with the function that removes it. Nothing is
// written outside that directory; a refused archive leaves nothing behind.
// Only a regular file is read: a fifo or a device would block the open or
// the read forever.
func Open(ctx context.Context, file string) (dir string, cleanup func(), err error) {
	st, err := os.Stat(file)
	if err != nil {
		return "", nil, fmt.Errorf("snapshot %s: %w", file, err)
	}
	switch {
	case st.IsDir():
		return "", nil, fmt.Errorf("snapshot %s: a directory (use --root for an unpacked snapshot)", file)
	case !st.Mode().IsRegular():
		return "", nil, fmt.Errorf("snapshot %s: not a regular file (%s)", file, st.Mode().Type())
	}
	// O_NONBLOCK: should the file be swapped for a fifo after the Stat,
	// the open does not wait for a writer, and the Fstat below refuses it.
	f, err := os.OpenFile(file, os.O_RDONLY|syscall.O_NONBLOCK, 0)
	if err != nil {
		return "", nil, fmt.Errorf("snapshot %s: %w", file, err)
	}
	defer f.Close()
	if st, err := f.Stat(); err != nil || !st.Mode().IsRegular() {
		return "", nil, fmt.Errorf("snapshot %s: not a regular file", file)
	}
	// First the whole stream, checksums included, without writing
	// anything: a corrupt archive costs one decompression, not an
	// unpacked tree to remove.
	if err := Verify(ctx, f, Limits{}); err != nil {
		return "", nil, fmt.Errorf("%s: %w", file, err)
	}
	if _, err := f.Seek(0, io.SeekStart); err != nil {
		return "", nil, fmt.Errorf("snapshot %s: %w", file, err)
	}
	dir, err = makeUnpackDir()
	if err != nil {
		return "", nil, err
	}
	cleanup = func() { _ = os.RemoveAll(dir) }
	if err := Read(ctx, f, dir, Limits{}); err != nil {
		cleanup()
		return "", nil, fmt.Errorf("%s: %w", file, err)
	}
	return dir, cleanup, nil
}

// Verify reads a whole archive as Read does, writing nothing: the
// gzip stream to its end (CRC-32 and length), the raw tar headers (their
// checksums, the bounds of PAX and GNU long-name records, the member caps
// from the sizes they announce), the bomb ratio.
func Verify(ctx context.Context, r io.Reader, lim Limits) error {
	_, finish, err := openStream(ctx, r, lim.withDefaults())
	if err != nil {
		return err
	}
	return finish() // the whole stream, through the guard
}

// Read unpacks a snapshot (a tar, gzip-compressed or not) into dir,
// an existing directory that the caller owns and removes when this fails.
// It refuses, naming the member: absolute names and names with "..",
// members beneath a link, duplicates, hard links, device nodes, fifos and
// other special members, links whose target is absolute or resolves outside
// dir, members over the size caps, too many members, long PAX or GNU name
// records and chains of them, an input that expands like an archive bomb,
// and a gzip stream that is not intact to its end (CRC-32 and length): a
// flipped bit anywhere fails the whole archive, so no member of a corrupt
// archive is ever used. A cancelled ctx stops it between two reads.
func Read(ctx context.Context, r io.Reader, dir string, lim Limits) error {
	lim = lim.withDefaults()
	src, finish, err := openStream(ctx, r, lim)
	if err != nil {
		return err
	}
	root, err := os.OpenRoot(dir)
	if err != nil {
		return err
	}
	defer root.Close()
	u := &unpacker{root: root, lim: lim, dirs: map[string]bool{}}
	tr := tar.NewReader(src)
	for {
		if err := ctx.Err(); err != nil {
			return err
		}
		h, err := tr.Next()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return u.streamError(ctx, err)
		}
		if err := u.member(h, tr); err != nil {
			return err
		}
	}
	if u.members == 0 {
		return refuse("", "empty archive")
	}
	if err := finish(); err != nil {
		return err
	}
	// Every link must resolve inside dir as the kernel would resolve it,
	// following the archive's other links: checked once all exist, since a
	// later member can change where an earlier link leads.
	for _, l := range u.links {
		if err := linkStaysInside(dir, l); err != nil {
			return err
		}
	}
	return nil
}

// unpacker writes the members of one archive under root.
type unpacker struct {
	root    *os.Root
	lim     Limits
	members int
	total   int64
	links   []string
	dirs    map[string]bool // directories created and checked here
}

// streamError describes a failed tar.Next: the guard's own refusal or a
// cancellation as they are, anything else as a corrupt archive.
func (u *unpacker) streamError(ctx context.Context, err error) error {
	var ae *Error
	switch {
	case errors.As(err, &ae):
		return err
	case ctx.Err() != nil:
		return ctx.Err()
	case u.members == 0:
		return refuse("", "not a tar archive: %v", err)
	}
	return refuse("", "corrupt after %d members: %v", u.members, err)
}

// member checks and writes one member.
func (u *unpacker) member(h *tar.Header, tr io.Reader) error {
	u.members++
	if u.members > u.lim.MaxMembers {
		return refuse(h.Name, "more than %d members", u.lim.MaxMembers)
	}
	name, err := memberName(h.Name)
	if err != nil {
		return err
	}
	if name == "." {
		if h.Typeflag == tar.TypeDir {
			return nil
		}
		return refuse(h.Name, "the archive root must be a directory")
	}
	if sparse(h) {
		// A sparse member's header announces its expanded size, which the
		// guard's ratio (tar bytes against compressed bytes) never sees: 22
		// KB of sparse maps would unpack to gigabytes of zeros. The writer
		// never makes one (Write: directories, regular files, links).
		return refuse(h.Name, "sparse member refused (a snapshot has none)")
	}
	if err := parentsPlain(u.root, name, h.Name, u.dirs); err != nil {
		return err
	}
	switch h.Typeflag {
	case tar.TypeDir:
		return u.dir(name, h)
	case tar.TypeReg, '\x00':
		return u.file(name, h, tr)
	case tar.TypeSymlink:
		return u.symlink(name, h)
	case tar.TypeLink:
		return refuse(h.Name, "hard link (to %q) refused", short(h.Linkname))
	case tar.TypeChar, tar.TypeBlock:
		return refuse(h.Name, "device node refused")
	case tar.TypeFifo:
		return refuse(h.Name, "fifo refused")
	}
	return refuse(h.Name, "member type %q refused", string(h.Typeflag))
}

// sparse reports a GNU sparse member: the old GNU type 'S', or a PAX one
// (GNU.sparse.* records, formats 0.0 to 1.0, GNU tar manual "Storing
// Sparse Files"), which archive/tar returns as a regular file.
func sparse(h *tar.Header) bool {
	if h.Typeflag == tar.TypeGNUSparse {
		return true
	}
	for k := range h.PAXRecords {
		if strings.HasPrefix(k, "GNU.sparse.") {
			return true
		}
	}
	return false
}

func (u *unpacker) dir(name string, h *tar.Header) error {
	if u.dirs[name] {
		return nil
	}
	if err := u.root.Mkdir(name, 0o755); err != nil {
		if st, serr := u.root.Lstat(name); serr != nil || !st.IsDir() {
			return refuse(h.Name, "cannot create directory: %v", err)
		}
	}
	u.dirs[name] = true
	return nil
}

// file writes a regular member, its size checked from the header before
// anything is written.
func (u *unpacker) file(name string, h *tar.Header, tr io.Reader) error {
	if h.Size < 0 || h.Size > u.lim.MaxMember {
		return refuse(h.Name, "%d bytes, more than the %d a member may hold", h.Size, u.lim.MaxMember)
	}
	if u.total+h.Size > u.lim.MaxTotal {
		return refuse(h.Name, "the archive holds more than %d bytes", u.lim.MaxTotal)
	}
	u.total += h.Size
	f, err := u.root.OpenFile(name, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
	if err != nil {
		if errors.Is(err, os.ErrExist) {
			return refuse(h.Name, "duplicate member")
		}
		return refuse(h.Name, "cannot create: %v", err)
	}
	n, err := io.Copy(f, io.LimitReader(tr, u.lim.MaxMember+1))
	cerr := f.Close()
	var ae *Error
	switch {
	case errors.Is(err, context.Canceled), errors.Is(err, context.DeadlineExceeded):
		return err
	case errors.As(err, &ae):
		return refuse(h.Name, "%s", ae.Reason)
	case err != nil:
		return refuse(h.Name, "%v", err)
	case n > u.lim.MaxMember:
		return refuse(h.Name, "more than %d bytes", u.lim.MaxMember)
	}
	return cerr
}

// symlink writes a link whose target is relative and stays inside, as far
// as can be told before the other members exist.
func (u *unpacker) symlink(name string, h *tar.Header) error {
	t := h.Linkname
	switch {
	case t == "" || strings.IndexByte(t, 0) >= 0 || len(t) > MaxNameBytes:
		return refuse(h.Name, "link with an invalid target")
	case path.IsAbs(t):
		return refuse(h.Name, "link to an absolute path %q (a snapshot's links are relative)", short(t))
	case escapesLexically(name, t):
		return refuse(h.Name, "link %q points outside the snapshot", short(t))
	}
	if err := symlinkIn(u.root, t, name); err != nil {
		if errors.Is(err, os.ErrExist) {
			return refuse(h.Name, "duplicate member")
		}
		return refuse(h.Name, "cannot create link: %v", err)
	}
	u.links = append(u.links, name)
	return nil
}

// symlinkIn makes the link name -> target inside root: symlinkat(2) in the
// link's parent directory opened through root, which resolves it without
// leaving root (parentsPlain has made it a plain directory). os.Root.Symlink
// does the same from Go 1.25 on (os package docs); go.mod says 1.24, the Go
// of Debian 13.
func symlinkIn(root *os.Root, target, name string) error {
	dir, base := ".", name
	if i := strings.LastIndexByte(name, '/'); i >= 0 {
		dir, base = name[:i], name[i+1:]
	}
	d, err := root.Open(dir)
	if err != nil {
		return err
	}
	defer d.Close()
	return unix.Symlinkat(target, int(d.Fd()), base)
}

// Depth is the number of components of a member's name ("a/b/" is 2).
func Depth(name string) int {
	n := 0
	for _, c := range strings.Split(name, "/") {
		if c != "" && c != "." {
			n++
		}
	}
	return n
}

// memberName validates and cleans a member name.
func memberName(raw string) (string, error) {
	switch {
	case raw == "":
		return "", refuse(raw, "empty name")
	case strings.IndexByte(raw, 0) >= 0:
		return "", refuse(raw, "NUL in name")
	case len(raw) > MaxNameBytes:
		return "", refuse(raw, "name longer than %d bytes", MaxNameBytes)
	case strings.Count(raw, "/") >= MaxDepth && Depth(raw) > MaxDepth:
		return "", refuse(raw, "more than %d directories deep", MaxDepth)
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
// component as the kernel would (inroot.Walk, beneath dir), following the
// archive's other links, and fails when a ".." would leave dir or a link
// leads to an absolute path. Resolution stops harmlessly at a missing
// component (a dangling link), at a file, or after too many hops (the
// kernel would answer ELOOP).
func linkStaysInside(dir, name string) error {
	t, err := os.Readlink(filepath.Join(dir, name))
	if err != nil {
		return refuse(name, "%v", err)
	}
	res, err := inroot.Walk(unpacked(dir), path.Dir("/"+name), t, 0, true)
	switch {
	case errors.Is(err, inroot.ErrAbove):
		return refuse(name, "link %q resolves outside the snapshot", short(t))
	case errors.Is(err, inroot.ErrAbsoluteLink), errors.As(err, new(unreadableLink)):
		return refuse(name, "link %q leads through %s to an absolute path", short(t), short(strings.TrimPrefix(res.Path, "/")))
	}
	return nil
}

// unpacked is the directory an archive is unpacked in, as inroot.Walk
// reads it: paths are relative to it.
type unpacked string

func (d unpacked) Lstat(p string) (fs.FileMode, error) {
	st, err := os.Lstat(filepath.Join(string(d), p))
	if err != nil {
		return 0, err
	}
	return st.Mode().Type(), nil
}

func (d unpacked) Readlink(p string) (string, error) {
	t, err := os.Readlink(filepath.Join(string(d), p))
	if err != nil {
		return "", unreadableLink{err}
	}
	return t, nil
}

// unreadableLink: a link Lstat found could not be read; refused as one
// that may lead anywhere.
type unreadableLink struct{ error }
