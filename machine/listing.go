package machine

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path"
	"slices"
	"strings"
	"time"

	"golang.org/x/sys/unix"
)

// readDir lists a directory, sorted by name.
func (r *rootFS) readDir(p string) ([]fs.DirEntry, error) {
	f, err := r.openFile(p, unix.O_RDONLY|unix.O_DIRECTORY)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return listDir(f)
}

// listDir lists the open directory f, sorted by name. os.File.ReadDir
// takes each entry's type from getdents(2); an entry of unknown type
// (DT_UNKNOWN) it looks up relative to the directory's descriptor
// (fstatat, os/file_unix.go newUnixDirent). The entries keep only their
// name and type: an os.DirEntry's Info would lstat the host path, which
// is not resolved inside the root.
func listDir(f *os.File) ([]fs.DirEntry, error) {
	var out []fs.DirEntry
	for {
		ents, err := f.ReadDir(1024)
		for _, e := range ents {
			out = append(out, dirEntry{name: e.Name(), mode: e.Type()})
		}
		if len(out) > maxDirEntries {
			return nil, fmt.Errorf("%w: more than %d entries", ErrRefused, maxDirEntries)
		}
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return nil, unwrapPath(err)
		}
	}
	sortDirEntries(out)
	return out, nil
}

// unwrapPath is the error of a system call on an os.File without the
// host path os adds: the caller names the machine path (FileErr).
func unwrapPath(err error) error {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	return err
}

// DirLink is a link listed in a directory and its target as written.
type DirLink struct{ Name, Target string }

// linksIn lists dir and reads the target of each link in it whose name
// want accepts, each relative to the listed directory's descriptor: the
// name is one component from the listing and readlinkat never follows
// it, so nothing is resolved but the directory itself (inside the root,
// as every open).
func (r *rootFS) linksIn(dir string, want func(name string) bool) (ents []fs.DirEntry, links []DirLink, err error) {
	f, err := r.openFile(dir, unix.O_RDONLY|unix.O_DIRECTORY)
	if err != nil {
		return nil, nil, err
	}
	defer f.Close()
	if ents, err = listDir(f); err != nil {
		return nil, nil, err
	}
	buf := make([]byte, unix.PathMax)
	for _, e := range ents {
		if e.Type() != fs.ModeSymlink || !want(e.Name()) {
			continue
		}
		n, err := unix.Readlinkat(int(f.Fd()), e.Name(), buf)
		for errors.Is(err, unix.EINTR) {
			n, err = unix.Readlinkat(int(f.Fd()), e.Name(), buf)
		}
		if err == nil {
			links = append(links, DirLink{Name: e.Name(), Target: string(buf[:n])})
		}
	}
	return ents, links, nil
}

// maxDirEntries bounds one listing: /proc of a large host has some 10^5
// entries; a recorded directory with millions is an attack.
const maxDirEntries = 1 << 20

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
