package snapshot

import (
	"bytes"
	"context"
	"io/fs"
	"path"
	"slices"
	"strings"
	"sync"
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
	frozen   bool // Collect has begun: the content maps are no longer written
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
	r.files[p] = bytes.Clone(b)
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
