package machine

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"io/fs"
	"path"
	"slices"
	"strings"
	"sync"
	"time"

	"golang.org/x/sys/unix"
)

// readDir lists a directory, sorted by name, from the entries' own types
// (no lookups by path that could leave the root).
func (r *rootFS) readDir(p string) ([]fs.DirEntry, error) {
	fd, err := r.open(p, unix.O_RDONLY|unix.O_DIRECTORY|unix.O_NONBLOCK, false)
	if err != nil {
		return nil, err
	}
	defer unix.Close(fd)
	return r.readDirFD(fd)
}

// readDirFD lists the open directory fd, sorted by name.
func (r *rootFS) readDirFD(fd int) ([]fs.DirEntry, error) {
	var out []fs.DirEntry
	bp := direntBufs.Get().(*[]byte)
	defer direntBufs.Put(bp)
	buf := *bp
	for {
		n, err := unix.Getdents(fd, buf)
		if errors.Is(err, unix.EINTR) {
			continue
		}
		if err != nil {
			return nil, err
		}
		if n <= 0 {
			break
		}
		out = appendDirents(out, buf[:n], r, fd)
		if len(out) > maxDirEntries {
			return nil, fmt.Errorf("%w: more than %d entries", ErrRefused, maxDirEntries)
		}
	}
	sortDirEntries(out)
	return out, nil
}

// DirLink is a link listed in a directory and its target as written.
type DirLink struct{ Name, Target string }

// linksIn lists dir and reads the target of each link in it whose name
// want accepts, each relative to the listed directory's descriptor: the
// name is one component from the listing and readlinkat never follows
// it, so nothing is resolved but the directory itself (inside the root,
// as every open), and a link costs one system call instead of an open,
// a read and a close of its own.
func (r *rootFS) linksIn(dir string, want func(name string) bool) (ents []fs.DirEntry, links []DirLink, err error) {
	fd, err := r.open(dir, unix.O_RDONLY|unix.O_DIRECTORY|unix.O_NONBLOCK, false)
	if err != nil {
		return nil, nil, err
	}
	defer unix.Close(fd)
	if ents, err = r.readDirFD(fd); err != nil {
		return nil, nil, err
	}
	buf := make([]byte, unix.PathMax)
	for _, e := range ents {
		if e.Type() != fs.ModeSymlink || !want(e.Name()) {
			continue
		}
		n, err := unix.Readlinkat(fd, e.Name(), buf)
		for errors.Is(err, unix.EINTR) {
			n, err = unix.Readlinkat(fd, e.Name(), buf)
		}
		if err == nil {
			links = append(links, DirLink{Name: e.Name(), Target: string(buf[:n])})
		}
	}
	return ents, links, nil
}

// direntBufs recycles getdents buffers: an inventory lists thousands of
// small directories.
var direntBufs = sync.Pool{New: func() any { b := make([]byte, 16<<10); return &b }}

// maxDirEntries bounds one listing: /proc of a large host has some 10^5
// entries; a recorded directory with millions is an attack.
const maxDirEntries = 1 << 20

// appendDirents parses linux_dirent64 records: d_ino u64, d_off s64,
// d_reclen u16, d_type u8, d_name (NUL-terminated).
func appendDirents(out []fs.DirEntry, b []byte, r *rootFS, dirfd int) []fs.DirEntry {
	for len(b) >= 19 {
		// struct linux_dirent64 (include/linux/dirent.h): d_ino and d_off
		// (8 bytes each), d_reclen (2), d_type (1), d_name; in the
		// machine's byte order.
		reclen := int(binary.NativeEndian.Uint16(b[16:18]))
		if reclen < 19 || reclen > len(b) {
			break
		}
		typ := b[18]
		name := b[19:reclen]
		if i := bytes.IndexByte(name, 0); i >= 0 {
			name = name[:i]
		}
		b = b[reclen:]
		s := string(name)
		if s == "." || s == ".." || s == "" {
			continue
		}
		var mode fs.FileMode
		switch typ {
		case unix.DT_DIR:
			mode = fs.ModeDir
		case unix.DT_LNK:
			mode = fs.ModeSymlink
		case unix.DT_FIFO:
			mode = fs.ModeNamedPipe
		case unix.DT_SOCK:
			mode = fs.ModeSocket
		case unix.DT_CHR:
			mode = fs.ModeDevice | fs.ModeCharDevice
		case unix.DT_BLK:
			mode = fs.ModeDevice
		case unix.DT_REG:
		default:
			// DT_UNKNOWN: look the name up in this directory only.
			var st unix.Stat_t
			if unix.Fstatat(dirfd, s, &st, unix.AT_SYMLINK_NOFOLLOW) == nil {
				mode = modeOf(st)
			}
		}
		out = append(out, dirEntry{name: s, mode: mode})
	}
	return out
}

func modeOf(st unix.Stat_t) fs.FileMode {
	m := fs.FileMode(st.Mode & 0o777)
	switch st.Mode & unix.S_IFMT {
	case unix.S_IFDIR:
		m |= fs.ModeDir
	case unix.S_IFLNK:
		m |= fs.ModeSymlink
	case unix.S_IFIFO:
		m |= fs.ModeNamedPipe
	case unix.S_IFSOCK:
		m |= fs.ModeSocket
	case unix.S_IFCHR:
		m |= fs.ModeDevice | fs.ModeCharDevice
	case unix.S_IFBLK:
		m |= fs.ModeDevice
	}
	return m
}

// dirEntry is a listed name and its type; Info carries only the type.
type dirEntry struct {
	name string
	mode fs.FileMode
}

func (d dirEntry) Name() string               { return d.name }
func (d dirEntry) IsDir() bool                { return d.mode.IsDir() }
func (d dirEntry) Type() fs.FileMode          { return d.mode.Type() }
func (d dirEntry) Info() (fs.FileInfo, error) { return dirInfo(d), nil }
func (d dirEntry) String() string             { return fs.FormatDirEntry(d) }

type dirInfo dirEntry

func (i dirInfo) Name() string       { return i.name }
func (i dirInfo) Size() int64        { return 0 }
func (i dirInfo) Mode() fs.FileMode  { return i.mode }
func (i dirInfo) ModTime() time.Time { return time.Time{} }
func (i dirInfo) IsDir() bool        { return i.mode.IsDir() }
func (i dirInfo) Sys() any           { return nil }

func sortDirEntries(es []fs.DirEntry) {
	slices.SortFunc(es, func(a, b fs.DirEntry) int { return strings.Compare(a.Name(), b.Name()) })
}

// glob matches a pattern of machine paths (path.Match syntax per
// component), listing directories through readDir so that matching, like
// reading, stays inside the root. A literal last component matches when it
// exists, even as a dangling link (as filepath.Glob).
func (r *rootFS) glob(pattern string) []string {
	if _, err := path.Match(pattern, ""); err != nil {
		return nil
	}
	comps := strings.Split(rootRel(pattern), "/")
	cur := []string{"/"}
	for i, c := range comps {
		last := i == len(comps)-1
		var next []string
		for _, dir := range cur {
			if !hasMeta(c) {
				p := path.Join(dir, c)
				if last {
					if _, err := r.stat(p, true); err != nil {
						continue
					}
				}
				next = append(next, p)
				continue
			}
			ents, err := r.readDir(dir)
			if err != nil {
				continue
			}
			for _, e := range ents {
				if ok, _ := path.Match(c, e.Name()); ok {
					next = append(next, path.Join(dir, e.Name()))
				}
			}
		}
		cur = next
		if len(cur) == 0 {
			return nil
		}
	}
	return cur
}

func hasMeta(s string) bool { return strings.ContainsAny(s, `*?[\`) }
