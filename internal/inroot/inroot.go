// Package inroot resolves a path inside a tree the way the kernel resolves
// one inside a chroot (path_resolution(7)): component by component, a link's
// target spliced into what is left, an absolute target starting again at the
// root, ".." never climbing above it, at most MaxHops links. It is pure: the
// tree is whatever the caller's FS answers (a listing, an unpacked archive),
// so the snapshot's collector and the archive reader's link check walk the
// same way.
package inroot

import (
	"errors"
	"io/fs"
	"path"
	"strings"
	"syscall"
)

// MaxHops is the kernel's limit of links followed in one resolution
// (MAXSYMLINKS, path_resolution(7)); past it open(2) fails with ELOOP.
const MaxHops = 40

// FS is the tree a walk resolves in. Paths are clean, absolute and hold no
// link but possibly their last component.
type FS interface {
	// Lstat is the type of p, not following a link (fs.FileMode.Type
	// bits); an error when p does not exist.
	Lstat(p string) (fs.FileMode, error)
	// Readlink is the target of the link p, as written.
	Readlink(p string) (string, error)
}

var (
	// ErrAbove: a ".." at the root (Beneath only).
	ErrAbove = errors.New("resolves above the root")
	// ErrAbsoluteLink: a link with an absolute target (Beneath only).
	ErrAbsoluteLink = errors.New("link to an absolute path")
)

// Result is where a walk ended.
type Result struct {
	// Path is the path resolved, with no link in it; when the walk failed,
	// the path of the component it failed at.
	Path string
	// Hops is the number of links followed, with those of the walk's
	// start.
	Hops int
	// Dir: Path is a directory (the start of a walk is one).
	Dir bool
}

// Walk resolves rest from the directory dir (clean, absolute, holding no
// link) in fsys, hops links having been followed on the way to dir. An
// absolute rest starts at the root. With beneath, a ".." at the root or a
// link to an absolute path fails (ErrAbove, ErrAbsoluteLink), as
// openat2(RESOLVE_BENEATH) refuses them, instead of being resolved at the
// root. It fails with what fsys.Lstat or fsys.Readlink returned, with
// syscall.ELOOP past MaxHops links, and with syscall.ENOTDIR when a
// component before the last is neither a directory nor a link.
func Walk(fsys FS, dir, rest string, hops int, beneath bool) (Result, error) {
	cur, isDir := dir, true
	if path.IsAbs(rest) {
		cur = "/"
	}
	stack := components(rest)
	for len(stack) > 0 {
		comp := stack[0]
		stack = stack[1:]
		switch comp {
		case ".":
			continue
		case "..":
			if cur == "/" && beneath {
				return Result{Path: cur, Hops: hops, Dir: true}, ErrAbove
			}
			cur, isDir = path.Dir(cur), true
			continue
		}
		next := join(cur, comp)
		mode, err := fsys.Lstat(next)
		if err != nil {
			return Result{Path: next, Hops: hops}, err
		}
		switch {
		case mode&fs.ModeSymlink != 0:
			if hops++; hops > MaxHops {
				return Result{Path: next, Hops: hops}, syscall.ELOOP
			}
			t, err := fsys.Readlink(next)
			if err != nil {
				return Result{Path: next, Hops: hops}, err
			}
			if path.IsAbs(t) {
				if beneath {
					return Result{Path: next, Hops: hops}, ErrAbsoluteLink
				}
				cur, isDir = "/", true
			}
			stack = append(components(t), stack...)
			continue
		case !mode.IsDir() && len(stack) > 0:
			return Result{Path: next, Hops: hops}, syscall.ENOTDIR
		}
		cur, isDir = next, mode.IsDir()
	}
	return Result{Path: cur, Hops: hops, Dir: isDir}, nil
}

// join is path.Join of a clean directory and a component (neither "", "."
// nor ".." and without '/'): nothing to clean, which is most of
// path.Join's cost.
func join(dir, name string) string {
	if dir == "/" {
		return "/" + name
	}
	return dir + "/" + name
}

// components are the non-empty components of p.
func components(p string) []string {
	var out []string
	for _, s := range strings.Split(p, "/") {
		if s != "" {
			out = append(out, s)
		}
	}
	return out
}
