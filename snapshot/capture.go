package snapshot

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"path"
	"slices"
	"strings"
	"sync"

	"github.com/diskdoctor/diskdoctor/machine"
)

type collector struct {
	pending    []pendingRead
	ctx        context.Context
	h          *machine.Host
	listings   *listingCache // per directory: traced paths share long prefixes
	links      map[string]linkResult
	resolved   map[string]resolution // per traced path and each of its parents
	opts       CollectOptions
	entries    map[string]*Entry
	sorted     []*Entry // entries by path, once the collector is done
	unreadable []string
	// What the probes read, by the machine path they read it at
	// (Recorder.File, Dir, Link); read-only here.
	files  map[string][]byte
	dirs   map[string][]fs.DirEntry
	tlinks map[string]string
}

type pendingRead struct {
	e    *Entry
	path string
	size int64 // as the file system says, before reading
	err  error
	done bool // a later traced path brought what the probes read of it
}

// readWorkers read files at once: a slow sysfs attribute (one that blocks
// until its timeout, as a driver's show() may) should not hold up the
// others.
const readWorkers = 8

// readPending reads every queued file with readWorkers goroutines; a file
// that cannot be read is left out and listed as unreadable.
func (c *collector) readPending() error {
	jobs := make(chan *pendingRead)
	var wg sync.WaitGroup
	for range readWorkers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for j := range jobs {
				var b []byte
				if b, j.err = c.readFile(j.path, j.size); j.err == nil {
					j.e.Data = b
				}
			}
		}()
	}
	var err error
	for i := range c.pending {
		if err = c.ctx.Err(); err != nil {
			break
		}
		if !c.pending[i].done {
			jobs <- &c.pending[i]
		}
	}
	close(jobs)
	wg.Wait()
	if err != nil {
		return err
	}
	failed := false
	for _, j := range c.pending {
		if j.err != nil && !j.done {
			c.unreadable = append(c.unreadable, fmt.Sprintf("%s: %v", j.path, j.err))
			j.e.dropped = true
			failed = true
		}
	}
	if failed {
		c.sorted = slices.DeleteFunc(c.sorted, func(e *Entry) bool { return e.dropped })
	}
	c.pending = nil
	return nil
}

func rel(p string) string { return strings.TrimPrefix(p, "/") }

func (c *collector) add(p string, t EntryType) *Entry {
	k := rel(p)
	if k == "" {
		return nil
	}
	if e, ok := c.entries[k]; ok {
		return e
	}
	e := &Entry{Path: k, Type: t}
	c.entries[k] = e
	return e
}

// addLink records a link; an absolute target is rewritten relative to the
// link's directory so that it resolves inside the recording.
func (c *collector) addLink(p, target string) {
	switch j := path.Join(rel(path.Dir(p)), target); {
	case path.IsAbs(target):
		target = relTarget(path.Dir(p), target)
	case j == ".." || strings.HasPrefix(j, "../"):
		// More ".." than the link is deep: the kernel stops at "/", a
		// snapshot's reader would refuse it; write where it leads.
		target = relTarget(path.Dir(p), path.Join(path.Dir(p), target))
	}
	if e := c.add(p, EntryLink); e != nil {
		e.Target = target
	}
}

// relTarget is the relative path from directory dir to the absolute
// machine path target.
func relTarget(dir, target string) string {
	from := strings.Split(rel(path.Clean(dir)), "/")
	if from[0] == "" {
		from = nil
	}
	to := rel(path.Clean(target))
	parts := make([]string, 0, len(from)+1)
	for range from {
		parts = append(parts, "..")
	}
	if to != "" {
		parts = append(parts, to)
	}
	if len(parts) == 0 {
		return "."
	}
	return strings.Join(parts, "/")
}

// size is what the file system says of a regular file's size: enough to
// refuse a huge file before reading it. Live sysfs and procfs sizes mean
// nothing (4096 and 0, whatever a file holds) and the kernel bounds their
// files; a recorded root's sys/ is ordinary files, and hostile ones can be
// gigabytes.
func (c *collector) size(p string) int64 {
	if c.h.IsLive() && (strings.HasPrefix(p, "/sys/") || strings.HasPrefix(p, "/proc/")) {
		return 0
	}
	if de, ok := c.listing(path.Dir(p)).lookup(path.Base(p)); ok {
		if info, err := de.Info(); err == nil {
			return info.Size()
		}
	}
	if st, err := c.h.Lstat(p); err == nil {
		return st.Size()
	}
	return 0
}

// capture records one traced path: the way to it, and what it ends at.
func (c *collector) capture(p string) {
	phys, ok := c.resolve(p)
	if !ok || phys == "/" {
		return
	}
	mode, ok := c.kind(phys) // resolve ends at what is not a link
	if !ok {
		return
	}
	switch {
	case mode.IsDir():
		c.list(phys)
	case mode.IsRegular():
		e := c.add(phys, EntryFile)
		if e == nil {
			return
		}
		// What the probes read, when they read all of it within what a
		// snapshot member of this path may hold; a longer content is
		// queued like an unread one, so readFile refuses it with the
		// reason it gives any file over the cap.
		b, ok := c.files[p]
		ok = ok && int64(len(b)) <= min(c.opts.MaxFile, machine.ReadLimit(phys))
		if e.queued > 0 && ok {
			// Another traced path (one tested for existence, say) led
			// here first.
			c.pending[e.queued-1].done = true
			e.queued = 0
			e.Data = nonNilBytes(b)
			return
		}
		if e.read {
			return
		}
		e.read = true
		if ok {
			e.Data = nonNilBytes(b)
			return
		}
		// Queued: read once, after every path is resolved.
		e.queued = len(c.pending) + 1
		c.pending = append(c.pending, pendingRead{e: e, path: phys, size: c.size(phys)})
	default:
		// A device node, fifo or socket: an empty placeholder file, as
		// fixtures have for /dev/sda.
		if e := c.add(phys, EntryFile); e != nil && e.Data == nil {
			e.Type = EntryFile
		}
	}
}

// list records a directory's entries as placeholders.
func (c *collector) list(dir string) {
	l := c.listing(dir)
	if l.err != nil {
		c.unreadable = append(c.unreadable, fmt.Sprintf("%s: %v", dir, reason(dir, l.err)))
		return
	}
	ents := l.ents
	if len(ents) > c.opts.MaxListing {
		c.unreadable = append(c.unreadable, fmt.Sprintf("%s: %d entries, only the first %d recorded", dir, len(ents), c.opts.MaxListing))
		ents = ents[:c.opts.MaxListing]
	}
	for _, de := range ents {
		p := join(dir, de.Name())
		if _, ok := c.entries[rel(p)]; ok {
			continue
		}
		switch {
		case de.Type()&fs.ModeSymlink != 0:
			if t, err := c.readlink(p); err == nil {
				c.addLink(p, t)
			}
		case de.IsDir():
			c.add(p, EntryDir)
		default:
			c.add(p, EntryFile)
		}
	}
}

// readFile reads a file's content through the Host, not trusting its size
// (sysfs says 4096, procfs 0) but refusing one whose size alone is over the
// cap, under a deadline (some attributes block) and the size cap.
func (c *collector) readFile(p string, size int64) ([]byte, error) {
	if size > c.opts.MaxFile {
		return nil, fmt.Errorf("%d bytes, more than the %d a snapshot member may hold", size, c.opts.MaxFile)
	}
	type result struct {
		b   []byte
		err error
	}
	ctx, cancel := context.WithTimeout(c.ctx, c.opts.ReadTimeout)
	defer cancel()
	ch := make(chan result, 1)
	go func() {
		b, err := c.h.ReadFileLimit(ctx, p, min(c.opts.MaxFile, machine.ReadLimit(p)))
		ch <- result{b, err}
	}()
	select {
	case r := <-ch:
		if r.err != nil {
			return nil, reason(p, r.err)
		}
		return nonNilBytes(r.b), nil
	case <-ctx.Done():
		return nil, fmt.Errorf("read %w after %s", machine.ErrTimeout, c.opts.ReadTimeout)
	}
}

// reason is err without the path the Host's errors start with: the caller
// names the path once.
func reason(p string, err error) error {
	if msg, ok := strings.CutPrefix(err.Error(), p+": "); ok {
		return errors.New(msg)
	}
	return err
}
