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
	"sync/atomic"
	"time"

	"github.com/diskdoctor/diskdoctor/machine"
)

// Recorder is a Tracer that remembers every path the probes read and every
// command they ran, so that a snapshot holds exactly what the doctor uses:
// the list is derived from the probes themselves, never kept by hand. As a
// probes.ContentTracer it also keeps what the probes read (the first
// content of each file, listing of each directory, target of each link),
// so that Collect writes what the checks judged instead of reading it all
// a second time.
type Recorder struct {
	mu       sync.Mutex
	paths    map[string]struct{}
	files    map[string][]byte
	dirs     map[string][]fs.DirEntry
	links    map[string]string
	arena    []byte // the tail of the block the last content was copied into
	frozen   bool   // Collect has begun: the content maps are no longer written
	cmds     map[string]recordedCmd
	order    []string
	inflight int
}

type recordedCmd struct {
	res machine.CmdResult
	err error
}

// NewRecorder returns an empty recorder; pass it to Host.WithTracer.
func NewRecorder() *Recorder {
	return &Recorder{paths: map[string]struct{}{}, files: map[string][]byte{}, dirs: map[string][]fs.DirEntry{},
		links: map[string]string{}, cmds: map[string]recordedCmd{}}
}

// Attach returns a copy of h that reports to r (Host.WithTracer) and whose
// commands r also counts while they run, so that Wait can let a command
// that outlives its probe's deadline (a hung zpool being killed) be
// recorded before the snapshot is written.
func (r *Recorder) Attach(h *machine.Host) *machine.Host {
	return h.WithTracer(r).WrapRunner(func(inner machine.Runner) machine.Runner {
		return trackingRunner{inner: inner, r: r}
	})
}

type trackingRunner struct {
	inner machine.Runner
	r     *Recorder
}

func (t trackingRunner) Run(ctx context.Context, argv []string) (machine.CmdResult, error) {
	t.r.mu.Lock()
	t.r.inflight++
	t.r.mu.Unlock()
	res, err := t.inner.Run(ctx, argv)
	t.r.Command(res, err) // before the count drops; Host.Run's own report is then a duplicate
	t.r.mu.Lock()
	t.r.inflight--
	t.r.mu.Unlock()
	return res, err
}

// Wait waits until no command started through Attach is running, at most
// for max; it reports whether all finished.
func (r *Recorder) Wait(ctx context.Context, max time.Duration) bool {
	deadline := time.Now().Add(max)
	for {
		r.mu.Lock()
		n := r.inflight
		r.mu.Unlock()
		if n == 0 {
			return true
		}
		if time.Now().After(deadline) || ctx.Err() != nil {
			return false
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// Path implements Tracer.
func (r *Recorder) Path(p string) {
	if !path.IsAbs(p) {
		return
	}
	p = path.Clean(p)
	r.mu.Lock()
	r.paths[p] = struct{}{}
	r.mu.Unlock()
}

// arenaBlock is the size of the blocks small contents are copied into: a
// large machine's probes read tens of thousands of sysfs attributes of a
// few bytes each, and one allocation apiece would be as many objects for
// the collector to scan.
const arenaBlock = 64 << 10

// File implements probes.ContentTracer: the first content read of p is
// kept (a copy: the probe owns b).
func (r *Recorder) File(p string, b []byte) {
	if !path.IsAbs(p) {
		return
	}
	p = path.Clean(p)
	r.mu.Lock()
	defer r.mu.Unlock()
	if _, ok := r.files[p]; ok || r.frozen {
		return
	}
	var c []byte
	switch {
	case len(b) > arenaBlock/8:
		c = append([]byte(nil), b...)
	default:
		if len(b) > cap(r.arena)-len(r.arena) {
			r.arena = make([]byte, 0, arenaBlock)
		}
		n := len(r.arena)
		r.arena = append(r.arena, b...)
		c = r.arena[n:len(r.arena):len(r.arena)] // full slice: an append to c cannot reach the next content
	}
	r.files[p] = c
}

// Dir implements probes.ContentTracer: the first listing of p is kept.
func (r *Recorder) Dir(p string, ents []fs.DirEntry) {
	if !path.IsAbs(p) {
		return
	}
	p = path.Clean(p)
	r.mu.Lock()
	defer r.mu.Unlock()
	if _, ok := r.dirs[p]; !ok && !r.frozen {
		r.dirs[p] = slices.Clone(ents) // the probe may reorder its slice
	}
}

// Link implements probes.ContentTracer: the first target read of p is kept.
func (r *Recorder) Link(p, target string) {
	if !path.IsAbs(p) {
		return
	}
	p = path.Clean(p)
	r.mu.Lock()
	defer r.mu.Unlock()
	if _, ok := r.links[p]; !ok && !r.frozen {
		r.links[p] = target
	}
}

// Command implements Tracer. The first result of an argv is kept.
func (r *Recorder) Command(res machine.CmdResult, err error) {
	if len(res.Argv) == 0 {
		return
	}
	k := strings.Join(res.Argv, "\x00")
	r.mu.Lock()
	defer r.mu.Unlock()
	if _, ok := r.cmds[k]; ok {
		return
	}
	res.Argv = append([]string(nil), res.Argv...)
	r.cmds[k] = recordedCmd{res: res, err: err}
	r.order = append(r.order, k)
}

// Paths returns the traced machine paths, sorted.
func (r *Recorder) Paths() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	out := make([]string, 0, len(r.paths))
	for p := range r.paths {
		out = append(out, p)
	}
	slices.Sort(out)
	return out
}

// CollectOptions tune Collect.
type CollectOptions struct {
	// Redact replaces serial numbers, WWNs, MAC addresses and the host
	// name with stable tokens (SERIAL0001, WWN0001, MAC0001, redacted-host)
	// in contents and names.
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
	r.frozen = true // the maps below are read without the lock from now on
	r.mu.Unlock()
	// The sorted paths are captured in contiguous chunks at once (a
	// 1,000-disk machine has 29,000, and each new directory is a listing
	// to wait for), each chunk by a collector of its own sharing only the
	// listings; the collectors are then merged in order, which gives what
	// one collector capturing every path in order gives.
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
		// Sized for what a chunk makes (on the 1,000-disk machine 2.6
		// entries and 1.1 resolutions a path): growing them was a tenth of
		// the capture's maps' cost.
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
			// Sorted here, each collector its own at once, and merged
			// in order: one sort of all 60,000 entries after the
			// collectors was a sixth of Collect's time.
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
	c := merge(cs)
	if err := c.readPending(); err != nil {
		return nil, err
	}
	rec := &Recording{Unreadable: c.unreadable, Entries: c.sorted}
	r.mu.Lock()
	for _, k := range r.order {
		rc := r.cmds[k]
		cmd := RecordedCommand{Argv: rc.res.Argv}
		switch {
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
	r.mu.Unlock()
	if i, ok := slices.BinarySearchFunc(rec.Entries, "proc/sys/kernel/osrelease", func(e *Entry, p string) int { return strings.Compare(e.Path, p) }); ok {
		rec.Kernel = strings.TrimSpace(string(rec.Entries[i].Data))
	}
	if opts.Redact {
		rec.redact()
	}
	return rec, nil
}

func nonNilBytes(b []byte) []byte {
	if b == nil {
		return []byte{}
	}
	return b
}

type pendingRead struct {
	e    *Entry
	path string
	size int64 // as the file system says, before reading
	err  error
	done bool // a later traced path brought what the probes read of it
}

// readWorkers read files at once: a large machine has tens of thousands of
// small sysfs attributes, and a slow one (an attribute that blocks until
// its timeout) should not hold up the others.
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

type collector struct {
	pending    []pendingRead
	ctx        context.Context
	h          *machine.Host
	listings   *listingCache // per directory: traced paths share long prefixes
	lastDir    string
	last       *listing // of lastDir
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

// resolution is where a clean machine path leads: the physical path, with
// hops links followed on the way, and whether it is a directory.
type resolution struct {
	phys string
	hops int
	ok   bool
	dir  bool
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

// listing is a directory's entries, sorted by name, read once.
type listing struct {
	ents  []fs.DirEntry
	err   error
	ready chan struct{} // closed once the fields are set
}

// lookup finds an entry by name. The entries are sorted (as ReadDir
// returns them), and searched rather than indexed: of the 50,000 entries
// the listings of a 1,000-disk machine hold, 32,000 are looked up once.
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
	// The last directory again, most often: the sorted paths are
	// siblings, and a path's kind is asked in walk and then in capture.
	if c.last != nil && c.lastDir == dir {
		return c.last
	}
	l := c.listings.get(dir, func(l *listing) {
		if ents, ok := c.dirs[dir]; ok {
			l.ents = ents // a probe listed it
			return
		}
		l.ents, l.err = c.h.ReadDir(c.ctx, dir)
	})
	c.lastDir, c.last = dir, l
	return l
}

// seedListing takes ents, read by a probe, as the listing of the physical
// directory dir, unless dir has been listed already.
func (c *collector) seedListing(dir string, ents []fs.DirEntry) {
	c.listings.get(dir, func(l *listing) { l.ents = ents })
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

func byName(a, b fs.DirEntry) int { return strings.Compare(a.Name(), b.Name()) }

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
		// snapshot member of this path may hold (a longer content is
		// read again, and refused as before).
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
