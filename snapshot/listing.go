package snapshot

import (
	"io/fs"
	"slices"
	"strings"
	"sync"
)

// listing is a directory's entries, sorted by name, read once.
type listing struct {
	ents  []fs.DirEntry
	err   error
	ready chan struct{} // closed once the fields are set
}

// lookup finds an entry by name. The entries are sorted anyway (get sorts
// a listing that is not, as os.ReadDir's is, and list cuts a long one at
// MaxListing in that order), so a binary search needs no index beside
// them: most names of a listing are looked up once, or never.
func (l *listing) lookup(name string) (fs.DirEntry, bool) {
	i, ok := slices.BinarySearchFunc(l.ents, name, func(de fs.DirEntry, name string) int { return strings.Compare(de.Name(), name) })
	if !ok {
		return nil, false
	}
	return l.ents[i], true
}

// listingCache holds the listings of the collectors of one Collect: each
// directory is listed once, by the first collector to need it, while the
// others needing it wait.
type listingCache struct {
	mu sync.Mutex
	m  map[string]*listing
}

// get returns dir's listing, made by fill if no collector has made it.
func (lc *listingCache) get(dir string, fill func(*listing)) *listing {
	lc.mu.Lock()
	l, ok := lc.m[dir]
	if !ok {
		l = &listing{ready: make(chan struct{})}
		lc.m[dir] = l
	}
	lc.mu.Unlock()
	if ok {
		<-l.ready
		return l
	}
	fill(l)
	if !slices.IsSortedFunc(l.ents, byName) {
		l.ents = slices.SortedFunc(slices.Values(l.ents), byName) // the probe's own order is kept
	}
	close(l.ready)
	return l
}

func (c *collector) listing(dir string) *listing {
	return c.listings.get(dir, func(l *listing) {
		if ents, ok := c.dirs[dir]; ok {
			l.ents = ents // a probe listed it
			return
		}
		l.ents, l.err = c.h.ReadDir(c.ctx, dir)
	})
}

// seedListing takes ents, read by a probe, as the listing of the physical
// directory dir, unless dir has been listed already.
func (c *collector) seedListing(dir string, ents []fs.DirEntry) {
	c.listings.get(dir, func(l *listing) { l.ents = ents })
}

func byName(a, b fs.DirEntry) int { return strings.Compare(a.Name(), b.Name()) }
