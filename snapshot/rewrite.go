package snapshot

import (
	"slices"
	"strings"
	"sync"
)

// rewrite applies f (which must be safe for concurrent use) to every
// path, link target, content, argv and output, the entries in chunks at
// once. Two paths that become one (cannot happen with distinct tokens, but
// a hostile recording could try) keep the first.
func (rec *Recording) rewrite(f func(string) string) {
	fb := func(b []byte) []byte {
		if len(b) == 0 {
			return b
		}
		s := string(b)
		if r := f(s); r != s {
			return []byte(r)
		}
		return b // most contents hold nothing to replace: no second copy
	}
	type rewritten struct {
		path, target string
		data         []byte
	}
	res := make([]rewritten, len(rec.Entries))
	var wg sync.WaitGroup
	for _, ch := range chunksOf(len(rec.Entries)) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := ch[0]; i < ch[1]; i++ {
				e := rec.Entries[i]
				res[i] = rewritten{f(e.Path), f(e.Target), fb(e.Data)}
			}
		}()
	}
	wg.Wait()
	drop := collisions(rec.Entries, func(i int) string { return res[i].path })
	kept := make([]*Entry, 0, len(rec.Entries))
	var moved []*Entry // renamed: few (by-id links, names with a MAC)
	for i, e := range rec.Entries {
		renamed := res[i].path != e.Path
		e.Path = res[i].path
		if drop[i] {
			continue
		}
		e.Target, e.Data = res[i].target, res[i].data
		if renamed {
			moved = append(moved, e)
		} else {
			kept = append(kept, e)
		}
	}
	rec.Entries = mergeByPath(kept, moved)
	for i := range rec.Commands {
		c := &rec.Commands[i]
		for j := range c.Argv {
			c.Argv[j] = f(c.Argv[j])
		}
		c.Stdout, c.Stderr = fb(c.Stdout), fb(c.Stderr)
	}
}

func byPath(a, b *Entry) int { return strings.Compare(a.Path, b.Path) }

// collisions marks the entries whose new path (to(i)) an earlier entry
// takes too. Entries that keep their path are distinct, so a collision
// involves an entry renamed: each of those few is looked up among the
// others (by binary search when the entries are sorted, as a Recording's
// are) instead of every path going into a set (60,000 on a 1,000-disk
// machine, a single core's work after the parallel rewrite).
func collisions(es []*Entry, to func(i int) string) map[int]bool {
	drop := map[int]bool{}
	first := map[string]int{} // renamed entries' new paths: the first to take each
	var renamed []int
	for i, e := range es {
		if p := to(i); p != e.Path {
			renamed = append(renamed, i)
			if _, ok := first[p]; !ok {
				first[p] = i
			}
		}
	}
	if len(renamed) == 0 {
		return drop
	}
	if !slices.IsSortedFunc(es, byPath) {
		// Built by hand: every path into a set, in order.
		seen := make(map[string]bool, len(es))
		for i := range es {
			p := to(i)
			drop[i] = seen[p]
			seen[p] = true
		}
		return drop
	}
	for _, i := range renamed {
		p := to(i)
		if first[p] != i {
			drop[i] = true // another renamed entry before it took p
			continue
		}
		// An entry that keeps p as its path.
		j, ok := slices.BinarySearchFunc(es, p, func(e *Entry, p string) int { return strings.Compare(e.Path, p) })
		if !ok || to(j) != p {
			continue
		}
		if j < i {
			drop[i] = true
		} else {
			drop[j] = true
		}
	}
	return drop
}

// mergeByPath sorts the entries of kept (sorted already, as a Recording's
// are, unless built by hand) and moved by path.
func mergeByPath(kept, moved []*Entry) []*Entry {
	if !slices.IsSortedFunc(kept, byPath) {
		out := append(kept, moved...)
		slices.SortFunc(out, byPath)
		return out
	}
	slices.SortFunc(moved, byPath)
	out := make([]*Entry, 0, len(kept)+len(moved))
	for len(kept) > 0 && len(moved) > 0 {
		if byPath(kept[0], moved[0]) <= 0 {
			out, kept = append(out, kept[0]), kept[1:]
		} else {
			out, moved = append(out, moved[0]), moved[1:]
		}
	}
	return append(append(out, kept...), moved...)
}
