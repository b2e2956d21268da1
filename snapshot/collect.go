package snapshot

import (
	"context"
	"errors"
	"fmt"
	"runtime"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/diskdoctor/diskdoctor/machine"
)

// CollectOptions tune Collect.
type CollectOptions struct {
	// Redact replaces serial numbers, WWNs, MAC addresses, the kernel
	// log's IP addresses and the host name with stable tokens (SERIAL0001,
	// WWN0001, MAC0001, IP0001, redacted-host) in contents and names.
	Redact bool
	// ReadTimeout bounds one file read (a sysfs attribute can block).
	ReadTimeout time.Duration
	// MaxFile caps one file's content; longer files are truncated and noted.
	MaxFile int64
	// MaxListing caps the entries recorded of one directory listing.
	MaxListing int
	// Progress, when set, is called as paths are recorded.
	Progress func(done, total int)
	// collectors capturing at once; 0: one per CPU, for 512 paths at
	// least each (tests set more, to compare with one).
	collectors int
}

// Collect reads every traced path of h (the host the probes ran on, without
// its tracer) and every traced command into a Recording. Links are kept as
// links (absolute targets rewritten relative to the recording's root), the
// links met on the way to each path are recorded with the directories they
// lead to, and a traced directory keeps its listing as placeholders (empty
// files, empty directories, links) so that a probe listing it sees the same
// names. Links are followed only along a traced path, never recursively.
//
// What the probes read through r (file contents, listings, link targets)
// is written as they read it, not read again; Collect reads through h only
// what they did not (paths a library read under Root, paths only tested
// for existence, reads that failed) and the directories on the way to each
// path. Content the probes report once Collect has begun is not used.
func (r *Recorder) Collect(ctx context.Context, h *machine.Host, opts CollectOptions) (*Recording, error) {
	if opts.ReadTimeout <= 0 {
		opts.ReadTimeout = 5 * time.Second
	}
	if opts.MaxFile <= 0 {
		opts.MaxFile = MaxMemberBytes
	}
	if opts.MaxListing <= 0 {
		opts.MaxListing = 20000
	}
	r.mu.Lock()
	r.frozen = true // the content maps are read without the lock from now on
	r.mu.Unlock()
	c, err := r.captureAll(ctx, h, opts)
	if err != nil {
		return nil, err
	}
	if err := c.readPending(); err != nil {
		return nil, err
	}
	rec := &Recording{Unreadable: c.unreadable, Entries: c.sorted}
	r.commands(rec)
	if i, ok := slices.BinarySearchFunc(rec.Entries, "proc/sys/kernel/osrelease", func(e *Entry, p string) int { return strings.Compare(e.Path, p) }); ok {
		rec.Kernel = strings.TrimSpace(string(rec.Entries[i].Data))
	}
	if opts.Redact {
		rec.redact()
	}
	rec.dropUnreadable() // after redaction, which may change names
	return rec, nil
}

// captureAll captures every traced path, and returns the one collector that
// holds them all, its reads still to do.
//
// The sorted paths are captured in contiguous chunks at once, each chunk
// by a collector of its own sharing only the listings: each new directory
// is a listing to wait for, and one collector misses the snapshot's budget
// (twice the check's wall time, issue #22) on a large machine. The
// collectors are then merged in order, which gives what one collector
// capturing every path in order gives (TestCollectInChunksIsCollectInOrder).
func (r *Recorder) captureAll(ctx context.Context, h *machine.Host, opts CollectOptions) (*collector, error) {
	paths := r.Paths()
	shared := &listingCache{m: map[string]*listing{}}
	chunks := chunksOf(len(paths))
	if opts.collectors > 0 {
		chunks = chunksN(len(paths), opts.collectors)
	}
	cs := make([]*collector, len(chunks))
	var done atomic.Int64
	var wg sync.WaitGroup
	for k, ch := range chunks {
		// Sized from the chunk's paths (each makes a few entries, and
		// about one resolution): not grown while capturing.
		n := ch[1] - ch[0]
		c := &collector{ctx: ctx, h: h, opts: opts, entries: make(map[string]*Entry, n*5/2), listings: shared, links: map[string]linkResult{},
			resolved: make(map[string]resolution, n), files: r.files, dirs: r.dirs, tlinks: r.links}
		cs[k] = c
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := ch[0]; i < ch[1] && ctx.Err() == nil; i++ {
				c.capture(paths[i])
				n := done.Add(1)
				// Told from the first collector only: Progress need not
				// be safe for concurrent use.
				if k == 0 && opts.Progress != nil && i%64 == 0 {
					opts.Progress(int(n), len(paths))
				}
			}
			// Sorted here, each collector its own at once, for merge:
			// one sort of all entries after the collectors would be
			// single-threaded.
			c.sorted = make([]*Entry, 0, len(c.entries))
			for _, e := range c.entries {
				c.sorted = append(c.sorted, e)
			}
			slices.SortFunc(c.sorted, byPath)
		}()
	}
	wg.Wait()
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	if opts.Progress != nil && len(paths) > 0 {
		opts.Progress(len(paths), len(paths))
	}
	return merge(cs), nil
}

// commands adds the traced commands to rec, in the order they were first
// run; a command that failed to start for another reason than a missing
// tool or a timeout is recorded as missing, and the reason listed. A
// command the recording being snapshotted does not hold is left out, so
// that the new archive too says "not recorded", not "not installed".
func (r *Recorder) commands(rec *Recording) {
	r.mu.Lock()
	defer r.mu.Unlock()
	for _, k := range r.order {
		rc := r.cmds[k]
		cmd := RecordedCommand{Argv: rc.res.Argv}
		var te *machine.ToolError
		switch {
		case errors.As(rc.err, &te) && te.NotRecorded:
			continue
		case rc.err == nil:
			cmd.Stdout, cmd.Stderr, cmd.Exit = nonNilBytes(rc.res.Stdout), rc.res.Stderr, rc.res.Exit
		case errors.Is(rc.err, machine.ErrToolMissing):
			cmd.Missing = true
		case errors.Is(rc.err, machine.ErrTimeout), errors.Is(rc.err, context.DeadlineExceeded):
			cmd.Timeout = true
		default:
			cmd.Missing = true
			rec.Unreadable = append(rec.Unreadable, fmt.Sprintf("command %s: %v (recorded as missing)", rc.res, rc.err))
		}
		rec.Commands = append(rec.Commands, cmd)
	}
}

func nonNilBytes(b []byte) []byte {
	if b == nil {
		return []byte{}
	}
	return b
}

// merge gathers the collectors of consecutive chunks of the sorted traced
// paths into the first, as if it had captured them all in order: the first
// entry made of a path is kept, except that a file another collector read
// (or queued to read) wins over a placeholder, and what the probes read
// over a read Collect queued; unreadable paths and queued reads follow in
// the chunks' order. Each collector's entries are sorted (sorted); the
// merged ones are too.
func merge(cs []*collector) *collector {
	m := cs[0]
	if len(cs) == 1 {
		return m
	}
	rank := func(e *Entry) int {
		switch {
		case e.queued > 0:
			return 1
		case e.read:
			return 2
		}
		return 0
	}
	n := 0
	for _, o := range cs {
		n += len(o.sorted)
	}
	out := make([]*Entry, 0, n)
	next := make([][]*Entry, len(cs))
	for k, o := range cs {
		next[k] = o.sorted
	}
	for {
		// The least path at the head of a collector's entries, and the
		// entry kept of it, in the collectors' order.
		var cur *Entry
		for _, es := range next {
			if len(es) > 0 && (cur == nil || es[0].Path < cur.Path) {
				cur = es[0]
			}
		}
		if cur == nil {
			break
		}
		p := cur.Path
		cur = nil
		for k, es := range next {
			if len(es) == 0 || es[0].Path != p {
				continue
			}
			e := es[0]
			next[k] = es[1:]
			switch {
			case cur == nil:
				cur = e
			case cur.Type == EntryFile && e.Type == EntryFile && rank(e) > rank(cur):
				cur.dropped, cur = true, e
			default:
				e.dropped = true
			}
		}
		out = append(out, cur)
	}
	m.sorted = out
	for _, o := range cs[1:] {
		m.unreadable = append(m.unreadable, o.unreadable...)
		m.pending = append(m.pending, o.pending...)
	}
	// The reads of the entries kept that still wait for one (an entry is
	// queued by one collector, once).
	pending := m.pending[:0]
	for _, j := range m.pending {
		if !j.done && !j.e.dropped {
			pending = append(pending, j)
		}
	}
	m.pending = pending
	return m
}

// chunksOf splits n items into contiguous [lo, hi) ranges, one per CPU the
// process may use (at most 8), none of fewer than 512 items.
func chunksOf(n int) [][2]int {
	return chunksN(n, min(runtime.GOMAXPROCS(0), 8, max(1, n/512)))
}

// chunksN splits n items into k contiguous [lo, hi) ranges (fewer when n
// is less than k, and one when n is 0).
func chunksN(n, k int) [][2]int {
	k = max(1, min(k, n))
	out := make([][2]int, 0, k)
	for i := range k {
		out = append(out, [2]int{i * n / k, (i + 1) * n / k})
	}
	return out
}
