// Package machine is the one boundary to the machine: every file read and
// every command run goes through one Host, which is either the live machine
// or a recorded one (a fixture directory or an unpacked snapshot), resolved
// inside its root. The parsers of probes/ read through it; they never judge.
package machine

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/diskdoctor/diskdoctor/machine/manifest"
	"golang.org/x/sys/unix"
)

// ErrRecordingIsAFile: a recorded machine given as a file (a snapshot
// archive is opened with archive.Open, not read as a root).
var ErrRecordingIsAFile = errors.New("not a directory")

// Sentinel errors every probe maps its failures to, so that a check can turn
// them into a skipped entry with the right hint.
var (
	// ErrNotAvailable: the file or directory does not exist on this machine.
	ErrNotAvailable = errors.New("not available")
	// ErrPermission: reading needs privileges the doctor does not have.
	ErrPermission = errors.New("permission denied")
	// ErrToolMissing: the external program is not installed.
	ErrToolMissing = errors.New("tool not installed")
	// ErrTimeout: the probe ran past its deadline.
	ErrTimeout = errors.New("timed out")
	// ErrParse: the data was there but not in a form the parser understands
	// (one error with the manifest's, which a recorded runner passes on).
	ErrParse = manifest.ErrParse
)

// Host is the machine the doctor examines. Every file read and every command
// goes through it; a recorded machine differs from the live one only in its
// root directory and its command runner.
type Host struct {
	root   string
	fs     *rootFS
	memo   *hostMemo
	live   bool
	runner Runner
	tracer Tracer
	// content is tracer when it is a ContentTracer (set by WithTracer
	// only: a Host built on another root, a window's second reading, must
	// not report its contents as this machine's).
	content ContentTracer
}

// Tracer is told of every path a probe reads and every command it runs, so
// that a snapshot records exactly what the probes use, derived from the
// probes themselves. Paths are machine paths ("/sys/block/sda/dev").
type Tracer interface {
	// Path: a file, directory or link the probe read (or a library under
	// Root will read; see Uses).
	Path(p string)
	// Command: a command that ran, with its result or error.
	Command(res CmdResult, err error)
}

// ContentTracer is a Tracer that is also given what each successful read
// returned, so that a snapshot holds what the probes judged without
// reading it a second time. A failed read is reported to Path only. The
// slices are the probe's own: a ContentTracer copies what it keeps.
type ContentTracer interface {
	Tracer
	// File: the whole content of a regular file (ReadFile, ReadFileLimit,
	// ReadString). b is the reader's: a tracer that keeps it keeps a copy.
	File(p string, b []byte)
	// Dir: a directory's listing (ReadDir), sorted by name.
	Dir(p string, ents []fs.DirEntry)
	// Link: a link's target as written (Readlink).
	Link(p, target string)
}

// WithTracer returns a copy of h that reports every read to t (and what it
// read, when t is a ContentTracer).
func (h *Host) WithTracer(t Tracer) *Host {
	c := *h
	c.tracer = t
	c.content, _ = t.(ContentTracer)
	return &c
}

func (h *Host) trace(p string) {
	if h.tracer != nil {
		h.tracer.Path(p)
	}
}

// Uses declares machine paths (glob patterns allowed) that a library given
// Root() reads on the probe's behalf (ghw, procfs): the tracer sees them as
// if the probe had read them. A library opens paths the ordinary way, so in
// a recorded machine or a host root (HostRoot) each one must resolve beneath the root without an
// absolute link or a ".." that climbs out, and be a directory or a regular
// file of a size such a file has; otherwise Uses refuses and the probe must
// not call the library.
func (h *Host) Uses(patterns ...string) error {
	if h.live && !h.HostMounted() && h.tracer == nil {
		return nil
	}
	for _, pat := range patterns {
		for _, p := range h.fs.glob(pat) {
			if h.tracer != nil {
				h.tracer.Path(p)
			}
			if h.fs.fd >= 0 {
				if err := h.fs.beneath(p, libraryFileLimit); err != nil {
					return FileErr(p, err)
				}
			}
		}
	}
	return nil
}

// libraryFileLimit is the largest file handed to a library (procfs itself
// reads at most 1 MiB of most files).
const libraryFileLimit = 8 << 20

// Live returns the machine the doctor runs on.
func Live() *Host {
	fs, _ := newRootFS("/")
	return &Host{root: "/", fs: fs, memo: &hostMemo{}, live: true, runner: execRunner{running: &sync.WaitGroup{}}}
}

// Recorded returns a recorded machine rooted at dir, with the commands of
// dir/commands/manifest.yaml.
func Recorded(dir string) (*Host, error) {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return nil, err
	}
	st, err := os.Stat(abs)
	if err != nil {
		return nil, fmt.Errorf("recorded machine %s: %w", dir, err)
	}
	if !st.IsDir() {
		return nil, fmt.Errorf("recorded machine %s: %w", dir, ErrRecordingIsAFile)
	}
	fs, err := newRootFS(abs)
	if err != nil {
		return nil, fmt.Errorf("recorded machine %s: %w", dir, err)
	}
	if st, err := fs.stat("/sys", false); err != nil || st.Mode&unix.S_IFMT != unix.S_IFDIR {
		return nil, fmt.Errorf("recorded machine %s: no sys/ directory, not a diskdoctor recording", dir)
	}
	r, err := newRecordedRunner(fs)
	if err != nil {
		return nil, err
	}
	return &Host{root: abs, fs: fs, memo: &hostMemo{}, runner: r}, nil
}

// Root is the directory that stands for "/" (what ghw and procfs are given).
func (h *Host) Root() string { return h.root }

// IsLive reports whether this is the running machine, where raw device
// access (SMART ioctls) is possible.
func (h *Host) IsLive() bool { return h.live }

// Path maps an absolute machine path ("/sys/block") to the path to open.
func (h *Host) Path(p string) string {
	if h.root == "/" {
		return p
	}
	return filepath.Join(h.root, p)
}

// Strip maps a path under Root back to the machine path, for evidence.
func (h *Host) Strip(p string) string {
	if h.root == "/" {
		return p
	}
	rel, err := filepath.Rel(h.root, p)
	if err != nil || strings.HasPrefix(rel, "..") {
		return p
	}
	return "/" + rel
}

// ReadFile reads a machine file of at most the size such a file has
// (ReadLimit). Errors wrap ErrNotAvailable, ErrPermission or ErrRefused (a
// FIFO, device or socket, or a file too large).
func (h *Host) ReadFile(ctx context.Context, p string) ([]byte, error) {
	return h.ReadFileLimit(ctx, p, ReadLimit(p))
}

// ReadFileLimit is ReadFile with an explicit size limit in bytes.
func (h *Host) ReadFileLimit(ctx context.Context, p string, limit int64) ([]byte, error) {
	if err := ctx.Err(); err != nil {
		return nil, CtxErr(err)
	}
	h.trace(p)
	b, err := h.fs.readFile(p, limit)
	if err != nil {
		return nil, FileErr(p, err)
	}
	if h.content != nil {
		h.content.File(p, b)
	}
	return b, nil
}

// hostMemo holds what one run reads more than once and what does not
// change during it: links (every disk below one controller asks for the
// same driver links) and resolved device paths. Copies of a Host share it.
type hostMemo struct {
	links, resolved sync.Map
	// pciIDs holds vendor:device per PCI function directory: a controller
	// is above every disk on it, and each disk would read it again.
	pciIDs sync.Map
}

// ReadLimit is the most a machine file of this kind holds: a sysfs
// attribute is at most a page (64 KiB on the largest-page kernels); procfs
// tables (mountinfo, mdstat, a process's files) some MB on a big host; udev
// records and configuration files much less.
func ReadLimit(p string) int64 {
	switch {
	case strings.HasPrefix(p, "/sys/"):
		return 64 << 10
	case strings.HasPrefix(p, "/proc/"):
		return 8 << 20
	case strings.HasPrefix(p, "/run/udev/data/"):
		return 256 << 10
	}
	return 1 << 20
}

// ReadString reads a one-value sysfs or procfs file and trims it.
func (h *Host) ReadString(ctx context.Context, p string) (string, error) {
	b, err := h.ReadFile(ctx, p)
	return string(bytes.TrimSpace(b)), err
}

// ReadDir lists a machine directory, sorted by name.
func (h *Host) ReadDir(ctx context.Context, p string) ([]fs.DirEntry, error) {
	if err := ctx.Err(); err != nil {
		return nil, CtxErr(err)
	}
	h.trace(p)
	ents, err := h.fs.readDir(p)
	if err != nil {
		return nil, FileErr(p, err)
	}
	if !h.live {
		ents = withoutPlaceholder(ents)
	}
	if h.content != nil {
		h.content.Dir(p, ents)
	}
	return ents, nil
}

// fixturePlaceholder is the empty file a recorded machine kept in git
// holds in a directory that was empty (git tracks no empty directory):
// not part of the machine, so a listing leaves it out (docs/fixtures.md).
const fixturePlaceholder = ".keep"

func withoutPlaceholder(ents []fs.DirEntry) []fs.DirEntry {
	i := slices.IndexFunc(ents, func(e fs.DirEntry) bool { return e.Name() == fixturePlaceholder && e.Type().IsRegular() })
	if i < 0 {
		return ents
	}
	return slices.Delete(slices.Clone(ents), i, i+1)
}

// Readlink returns a link's target as written.
func (h *Host) Readlink(p string) (string, error) {
	h.trace(p)
	if v, ok := h.memo.links.Load(p); ok {
		if gone, ok := v.(absentLink); ok {
			return "", gone.err
		}
		if h.content != nil {
			h.content.Link(p, v.(string))
		}
		return v.(string), nil
	}
	t, err := h.fs.readlink(p)
	if err != nil {
		err = FileErr(p, err)
		if errors.Is(err, ErrNotAvailable) {
			h.memo.links.Store(p, absentLink{err})
		}
		return "", err
	}
	h.memo.links.Store(p, t)
	if h.content != nil {
		h.content.Link(p, t)
	}
	return t, nil
}

// absentLink is the memo of a link that does not exist: the driver link of
// a node no driver binds is asked for by every disk below it, as a bound
// one's is.
type absentLink struct{ err error }

// LinksIn lists the directory dir and returns the targets, as written, of
// the links in it whose names want accepts (others are not read), sorted
// by name: Readlink of each, at one system call a link. The tracer sees
// each listed entry's path, as Glob(dir+"/*") would report them, and each
// link read, as Readlink would.
func (h *Host) LinksIn(ctx context.Context, dir string, want func(name string) bool) ([]DirLink, error) {
	if err := ctx.Err(); err != nil {
		return nil, CtxErr(err)
	}
	ents, links, err := h.fs.linksIn(dir, want)
	if err != nil {
		return nil, FileErr(dir, err)
	}
	if h.tracer != nil {
		for _, e := range ents {
			h.tracer.Path(path.Join(dir, e.Name()))
		}
	}
	if h.content != nil {
		for _, l := range links {
			h.content.Link(path.Join(dir, l.Name), l.Target)
		}
	}
	return links, nil
}

// Resolve follows every link in p and returns the machine path it ends at.
// In a recorded machine every link resolves inside the root (an absolute
// target starts at the root), as the machine itself would see it. A path
// is resolved once per run.
func (h *Host) Resolve(p string) (string, error) {
	h.trace(p)
	if v, ok := h.memo.resolved.Load(p); ok {
		return v.(string), nil
	}
	r, err := h.fs.resolve(p)
	if err != nil {
		return "", FileErr(p, err)
	}
	h.memo.resolved.Store(p, r)
	return r, nil
}

// Exists reports whether a machine path exists (following links).
func (h *Host) Exists(p string) bool {
	h.trace(p)
	_, err := h.fs.stat(p, false)
	return err == nil
}

// Glob matches a pattern of machine paths and returns machine paths.
func (h *Host) Glob(pattern string) []string {
	m := h.fs.glob(pattern)
	for _, p := range m {
		h.trace(p)
	}
	return m
}

// WaitCommands waits up to d for the programs the Host started to end,
// and reports whether they did. A probe that gave up at its deadline
// returns while its program is still being killed by the same deadline
// (the killing goroutine runs beside it); a run that ended then, the
// process exiting, would orphan the program before the kill, and a hung
// one would go on. A recorded Host runs none.
func (h *Host) WaitCommands(d time.Duration) bool {
	r, ok := h.runner.(execRunner)
	if !ok || r.running == nil {
		return true
	}
	done := make(chan struct{})
	go func() { r.running.Wait(); close(done) }()
	select {
	case <-done:
		return true
	case <-time.After(d):
		return false
	}
}

// Run runs a program with exact argv (never through a shell). A non-zero
// exit status is not an error: it is in the result.
func (h *Host) Run(ctx context.Context, argv ...string) (CmdResult, error) {
	if len(argv) == 0 {
		return CmdResult{}, errors.New("empty argv")
	}
	if err := ctx.Err(); err != nil {
		return CmdResult{}, CtxErr(err)
	}
	res, err := h.runner.Run(ctx, argv)
	if h.tracer != nil {
		h.tracer.Command(res, err)
	}
	return res, err
}

// RunRedacted is Run for a command whose output carries a secret (a
// dm-crypt key in dmsetup table): redact rewrites stdout and stderr where
// the runner makes them, before anything keeps them (a wrapping runner, the
// tracer, a snapshot), so the caller, the recording and the report see
// only what redact returns. redact must return a new slice and be
// idempotent: it is applied again here for a runner that does not know it.
func (h *Host) RunRedacted(ctx context.Context, redact func([]byte) []byte, argv ...string) (CmdResult, error) {
	if len(argv) == 0 {
		return CmdResult{}, errors.New("empty argv")
	}
	if err := ctx.Err(); err != nil {
		return CmdResult{}, CtxErr(err)
	}
	res, err := h.runner.Run(context.WithValue(ctx, redactKey{}, redact), argv)
	res.Stdout, res.Stderr = redact(res.Stdout), redact(res.Stderr)
	if h.tracer != nil {
		h.tracer.Command(res, err)
	}
	return res, err
}

// ToolError says which program is not installed; it matches ErrToolMissing.
// On a recorded machine it says what the recording lacks instead: a
// command the recording does not hold (NotRecorded), or one it marks as
// missing on the machine it was made on (Recorded): advice for that
// machine, not for the one the doctor runs on.
type ToolError struct {
	Tool        string
	Recorded    bool // a recording's `missing: true`
	NotRecorded bool // the recording has no such argv
	// Answered: the recording holds another command of the same program,
	// or of one its package installs with it, so the program was
	// installed there; only this command is missing.
	Answered bool
	// AnsweredBy is the program that answered: Tool, or the one its
	// package installs with it (zpool for zfs).
	AnsweredBy string
	// Host: a host root (HostRoot) lacks the program: it is to be
	// installed on the host, not in the doctor's container.
	Host bool
}

func (e *ToolError) Error() string {
	switch {
	case e.Host:
		return e.Tool + ": " + ToolMissingOnHost
	case e.NotRecorded:
		return e.Tool + ": not recorded"
	case e.Recorded:
		return e.Tool + ": not installed on the recorded machine"
	}
	return e.Tool + ": " + ErrToolMissing.Error()
}

// ToolMissingOnHost ends the error of a program a host root lacks.
const ToolMissingOnHost = "not installed on the host"

func (e *ToolError) Is(target error) bool { return target == ErrToolMissing }

// FileErr maps a failed read of machine path p to the sentinel errors
// (ErrNotAvailable, ErrPermission, ErrRefused...), naming p.
func FileErr(p string, err error) error {
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return &fileError{path: p, err: ErrNotAvailable}
	case errors.Is(err, fs.ErrPermission):
		return &fileError{path: p, err: ErrPermission}
	case errors.Is(err, unix.EXDEV), errors.Is(err, unix.ELOOP):
		return &fileError{path: p, err: ErrRefused, detail: "a link leads out of the recorded root or loops"}
	case errors.Is(err, unix.EISDIR):
		return &fileError{path: p, err: ErrRefused, detail: "a directory where a file belongs"}
	}
	return &fileError{path: p, err: err}
}

// fileError is FileErr's "p: err[: detail]", its text made only when it is
// asked for: most are only tested with errors.Is and let go (an attribute
// this kernel or recording does not have, one per disk and attribute).
type fileError struct {
	path   string
	err    error
	detail string
}

func (e *fileError) Error() string {
	if e.detail != "" {
		return e.path + ": " + e.err.Error() + ": " + e.detail
	}
	return e.path + ": " + e.err.Error()
}

func (e *fileError) Unwrap() error { return e.err }

// CtxErr maps a context's error to ErrTimeout when its deadline passed.
// It reads "timed out": the context package's own words ("context deadline
// exceeded") name the doctor's plumbing, not what the machine did.
func CtxErr(err error) error {
	if errors.Is(err, context.DeadlineExceeded) {
		return deadlineError{err}
	}
	return err
}

// deadlineError is ErrTimeout that still matches the context's error.
type deadlineError struct{ ctx error }

func (e deadlineError) Error() string   { return ErrTimeout.Error() }
func (e deadlineError) Unwrap() []error { return []error{ErrTimeout, e.ctx} }
