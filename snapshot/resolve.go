package snapshot

import (
	"io/fs"
	"path"
	"strings"
)

// resolution is where a clean machine path leads: the physical path, with
// hops links followed on the way, and whether it is a directory.
type resolution struct {
	phys string
	hops int
	ok   bool
	dir  bool
}

const maxLinkHops = 40

// resolve walks the clean machine path p component by component as the
// kernel does, recording every directory and link on the way; it returns
// the physical machine path it ends at, and false when a component is
// missing. Each path's parent is resolved once (on a 1,000-disk machine
// some 30,000 traced paths share a few thousand directories, each 10-15
// components and two links deep).
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
		r.phys, r.hops, r.dir, r.ok = c.walk(r.phys, []string{path.Base(p)}, r.hops)
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

// walk resolves the components of stack from the physical directory cur,
// with hops links already followed; it reports whether it ends at a
// directory.
func (c *collector) walk(cur string, stack []string, hops int) (string, int, bool, bool) {
	isDir := true
	for len(stack) > 0 {
		comp := stack[0]
		stack = stack[1:]
		switch comp {
		case ".":
			continue
		case "..":
			cur, isDir = path.Dir(cur), true
			continue
		}
		next := join(cur, comp)
		mode, ok := c.kind(next)
		if !ok {
			return next, hops, false, false
		}
		switch {
		case mode&fs.ModeSymlink != 0:
			hops++
			if hops > maxLinkHops {
				return next, hops, false, false
			}
			t, err := c.readlink(next)
			if err != nil {
				return next, hops, false, false
			}
			c.addLink(next, t)
			if path.IsAbs(t) {
				cur, isDir = "/", true
			}
			stack = append(splitPath(t), stack...)
			continue
		case mode.IsDir():
			c.add(next, EntryDir)
		case len(stack) > 0:
			return next, hops, false, false // not a directory
		}
		cur, isDir = next, mode.IsDir()
	}
	return cur, hops, isDir, true
}

type linkResult struct {
	target string
	err    error
}

// kind is the type of the machine path p, whose directory holds no link:
// read from that directory's listing, once per directory, rather than one
// Lstat per component of every traced path (on a 1,000-disk machine the
// same /sys/devices prefixes would be asked for a hundred thousand times).
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
// path): nothing to clean, which was most of path.Join's cost.
func join(dir, name string) string {
	if dir == "/" {
		return "/" + name
	}
	return dir + "/" + name
}

func splitPath(p string) []string {
	var out []string
	for _, s := range strings.Split(p, "/") {
		if s != "" {
			out = append(out, s)
		}
	}
	return out
}
