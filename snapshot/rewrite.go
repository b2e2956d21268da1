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
	kept := make([]*Entry, 0, len(rec.Entries))
	seen := make(map[string]bool, len(rec.Entries))
	for i, e := range rec.Entries {
		if seen[res[i].path] {
			continue
		}
		seen[res[i].path] = true
		e.Path, e.Target, e.Data = res[i].path, res[i].target, res[i].data
		kept = append(kept, e)
	}
	slices.SortFunc(kept, byPath) // renamed entries move
	rec.Entries = kept
	for i := range rec.Commands {
		c := &rec.Commands[i]
		for j := range c.Argv {
			c.Argv[j] = f(c.Argv[j])
		}
		c.Stdout, c.Stderr = fb(c.Stdout), fb(c.Stderr)
	}
}

func byPath(a, b *Entry) int { return strings.Compare(a.Path, b.Path) }
