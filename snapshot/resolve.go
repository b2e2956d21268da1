package snapshot

import (
	"io/fs"
	"path"
	"strings"

	"github.com/diskdoctor/diskdoctor/internal/inroot"
)

// resolution is where a clean machine path leads: the physical path, with
// hops links followed on the way, and whether it is a directory.
type resolution struct {
	phys string
	hops int
	ok   bool
	dir  bool
}

// resolve walks the clean machine path p component by component as the
// kernel does (inroot.Walk), recording every directory and link on the
// way; it returns the physical machine path it ends at, and false when a
// component is missing. Each path's parent is resolved once: traced paths
// are mostly siblings deep in /sys/devices, behind the same links.
func (c *collector) resolve(p string) (string, bool) {
	r := c.resolveMemo(p)
	return r.phys, r.ok
}

func (c *collector) resolveMemo(p string) resolution {
	if p == "/" || p == "" {
		return resolution{phys: "/", ok: true, dir: true}
	}
	if r, ok := c.resolved[p]; ok {
		return r
	}
	r := c.resolveMemo(path.Dir(p))
	switch {
	case r.ok && r.dir:
		w, err := inroot.Walk(walkFS{c}, r.phys, path.Base(p), r.hops, false)
		r = resolution{phys: w.Path, hops: w.Hops, ok: err == nil, dir: err == nil && w.Dir}
	case r.ok:
		r = resolution{phys: path.Join(r.phys, path.Base(p))} // not a directory
	}
	c.resolved[p] = r
	if ents, ok := c.dirs[p]; ok && r.ok {
		// The listing the probes read at p is the one of where it leads.
		c.seedListing(r.phys, ents)
	}
	return r
}

// walkFS is the machine as the collector sees it, for inroot.Walk: every
// directory and link the walk passes is recorded.
type walkFS struct{ c *collector }

func (w walkFS) Lstat(p string) (fs.FileMode, error) {
	mode, ok := w.c.kind(p)
	if !ok {
		return 0, fs.ErrNotExist
	}
	if mode.IsDir() {
		w.c.add(p, EntryDir)
	}
	return mode, nil
}

func (w walkFS) Readlink(p string) (string, error) {
	t, err := w.c.readlink(p)
	if err == nil {
		w.c.addLink(p, t)
	}
	return t, err
}

type linkResult struct {
	target string
	err    error
}

// kind is the type of the machine path p, whose directory holds no link:
// read from that directory's listing, once per directory, rather than one
// Lstat per component of every traced path (traced paths share their long
// /sys/devices prefixes).
// A directory that cannot be listed, and /proc (whose listing leaves out
// thread ids that can be opened), fall back to the Host's Lstat.
func (c *collector) kind(p string) (fs.FileMode, bool) {
	dir := path.Dir(p)
	if l := c.listing(dir); l.err == nil {
		if de, ok := l.lookup(path.Base(p)); ok {
			return de.Type(), true
		} else if !strings.HasPrefix(dir, "/proc") {
			return 0, false
		}
	}
	st, err := c.h.Lstat(p)
	if err != nil {
		return 0, false
	}
	return st.Mode().Type(), true
}

func (c *collector) readlink(p string) (string, error) {
	if r, ok := c.links[p]; ok {
		return r.target, r.err
	}
	if t, ok := c.tlinks[p]; ok {
		c.links[p] = linkResult{t, nil}
		return t, nil
	}
	t, err := c.h.Readlink(p)
	c.links[p] = linkResult{t, err}
	return t, err
}

// join is path.Join of a clean directory and a name that is neither "",
// "." nor ".." and holds no '/' (a listed name, a component of a split
// path): nothing to clean, which is most of path.Join's cost.
func join(dir, name string) string {
	if dir == "/" {
		return "/" + name
	}
	return dir + "/" + name
}
