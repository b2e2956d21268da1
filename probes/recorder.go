package probes

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"

	"gopkg.in/yaml.v3"
)

// Recorder is a Tracer that remembers every path the probes read and every
// command they ran, so that a snapshot holds exactly what the doctor uses:
// the list is derived from the probes themselves, never kept by hand.
type Recorder struct {
	mu       sync.Mutex
	paths    map[string]struct{}
	cmds     map[string]recordedCmd
	order    []string
	inflight int
}

type recordedCmd struct {
	res CmdResult
	err error
}

// NewRecorder returns an empty recorder; pass it to Host.WithTracer.
func NewRecorder() *Recorder {
	return &Recorder{paths: map[string]struct{}{}, cmds: map[string]recordedCmd{}}
}

// Attach returns a copy of h that reports to r (Host.WithTracer) and whose
// commands r also counts while they run, so that Wait can let a command
// that outlives its probe's deadline (a hung zpool being killed) be
// recorded before the snapshot is written.
func (r *Recorder) Attach(h *Host) *Host {
	c := h.WithTracer(r)
	c.runner = trackingRunner{inner: h.runner, r: r}
	return c
}

type trackingRunner struct {
	inner Runner
	r     *Recorder
}

func (t trackingRunner) Run(ctx context.Context, argv []string) (CmdResult, error) {
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

// Command implements Tracer. The first result of an argv is kept.
func (r *Recorder) Command(res CmdResult, err error) {
	if len(res.Argv) == 0 {
		return
	}
	k := argvKey(res.Argv)
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
	sort.Strings(out)
	return out
}

// EntryType is the kind of a recorded path.
type EntryType int

// Kinds of entries of a recording.
const (
	EntryDir EntryType = iota
	EntryFile
	EntryLink
)

// Entry is one path of a recording, relative to its root ("sys/block/sda").
type Entry struct {
	Path   string
	Type   EntryType
	Data   []byte // file content; nil for a placeholder (listed, never read)
	Target string // link target, always relative
	read   bool
}

// Recording is a recorded machine in memory: the entries of the fixture
// layout, the commands, and what could not be recorded.
type Recording struct {
	Entries  []*Entry // sorted by path: parents before children
	Commands []RecordedCommand
	// Unreadable lists paths and commands that the probes used but that
	// could not be read for the snapshot, with the reason.
	Unreadable []string
	Redacted   bool
	// RedactedValues counts distinct values replaced, by kind (serial, wwn, host).
	RedactedValues map[string]int
	Kernel         string
}

// RecordedCommand is one entry of commands/manifest.yaml with its output.
type RecordedCommand struct {
	Argv    []string
	Stdout  []byte
	Stderr  []byte
	Exit    int
	Timeout bool
	Missing bool
}

// CollectOptions tune Collect.
type CollectOptions struct {
	// Redact replaces serial numbers, WWNs and the host name with stable
	// tokens (SERIAL0001, WWN0001, redacted-host) in contents and names.
	Redact bool
	// ReadTimeout bounds one file read (a sysfs attribute can block).
	ReadTimeout time.Duration
	// MaxFile caps one file's content; longer files are truncated and noted.
	MaxFile int64
	// MaxListing caps the entries recorded of one directory listing.
	MaxListing int
	// Progress, when set, is called as paths are recorded.
	Progress func(done, total int)
}

// Collect reads every traced path of h (the host the probes ran on, without
// its tracer) and every traced command into a Recording. Links are kept as
// links (absolute targets rewritten relative to the recording's root), the
// links met on the way to each path are recorded with the directories they
// lead to, and a traced directory keeps its listing as placeholders (empty
// files, empty directories, links) so that a probe listing it sees the same
// names. Links are followed only along a traced path, never recursively.
func (r *Recorder) Collect(ctx context.Context, h *Host, opts CollectOptions) (*Recording, error) {
	if opts.ReadTimeout <= 0 {
		opts.ReadTimeout = 5 * time.Second
	}
	if opts.MaxFile <= 0 {
		opts.MaxFile = MaxMemberBytes
	}
	if opts.MaxListing <= 0 {
		opts.MaxListing = 20000
	}
	c := &collector{h: h, opts: opts, entries: map[string]*Entry{}}
	paths := r.Paths()
	for i, p := range paths {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		c.capture(p)
		if opts.Progress != nil && (i%64 == 0 || i == len(paths)-1) {
			opts.Progress(i+1, len(paths))
		}
	}
	rec := &Recording{Unreadable: c.unreadable}
	for _, e := range c.entries {
		rec.Entries = append(rec.Entries, e)
	}
	sort.Slice(rec.Entries, func(i, j int) bool { return rec.Entries[i].Path < rec.Entries[j].Path })
	r.mu.Lock()
	for _, k := range r.order {
		rc := r.cmds[k]
		cmd := RecordedCommand{Argv: rc.res.Argv}
		switch {
		case rc.err == nil:
			cmd.Stdout, cmd.Stderr, cmd.Exit = nonNilBytes(rc.res.Stdout), rc.res.Stderr, rc.res.Exit
		case errors.Is(rc.err, ErrToolMissing):
			cmd.Missing = true
		case errors.Is(rc.err, ErrTimeout), errors.Is(rc.err, context.DeadlineExceeded):
			cmd.Timeout = true
		default:
			cmd.Missing = true
			rec.Unreadable = append(rec.Unreadable, fmt.Sprintf("command %s: %v (recorded as missing)", rc.res, rc.err))
		}
		rec.Commands = append(rec.Commands, cmd)
	}
	r.mu.Unlock()
	if e := c.entries["proc/sys/kernel/osrelease"]; e != nil {
		rec.Kernel = strings.TrimSpace(string(e.Data))
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

type collector struct {
	h          *Host
	opts       CollectOptions
	entries    map[string]*Entry
	unreadable []string
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

// resolve walks p component by component as the kernel does, recording
// every directory and link on the way; it returns the physical machine path
// it ends at, and false when a component is missing.
func (c *collector) resolve(p string) (string, bool) {
	stack := splitPath(p)
	cur := "/"
	hops := 0
	for len(stack) > 0 {
		comp := stack[0]
		stack = stack[1:]
		switch comp {
		case ".":
			continue
		case "..":
			cur = path.Dir(cur)
			continue
		}
		next := path.Join(cur, comp)
		st, err := os.Lstat(c.h.Path(next))
		if err != nil {
			return next, false
		}
		switch {
		case st.Mode()&os.ModeSymlink != 0:
			hops++
			if hops > maxLinkHops {
				return next, false
			}
			t, err := os.Readlink(c.h.Path(next))
			if err != nil {
				return next, false
			}
			c.addLink(next, t)
			if path.IsAbs(t) {
				cur = "/"
			}
			stack = append(splitPath(t), stack...)
			continue
		case st.IsDir():
			c.add(next, EntryDir)
		case len(stack) > 0:
			return next, false // not a directory
		}
		cur = next
	}
	return cur, true
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
	st, err := os.Stat(c.h.Path(phys))
	if err != nil {
		return
	}
	switch {
	case st.IsDir():
		c.list(phys)
	case st.Mode().IsRegular():
		e := c.add(phys, EntryFile)
		if e == nil || e.read {
			return
		}
		b, err := c.readFile(phys)
		if err != nil {
			c.unreadable = append(c.unreadable, fmt.Sprintf("%s: %v", phys, err))
			delete(c.entries, e.Path)
			return
		}
		e.Type, e.Data, e.read = EntryFile, b, true
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
	ents, err := os.ReadDir(c.h.Path(dir))
	if err != nil {
		c.unreadable = append(c.unreadable, fmt.Sprintf("%s: %v", dir, err))
		return
	}
	if len(ents) > c.opts.MaxListing {
		c.unreadable = append(c.unreadable, fmt.Sprintf("%s: %d entries, only the first %d recorded", dir, len(ents), c.opts.MaxListing))
		ents = ents[:c.opts.MaxListing]
	}
	for _, de := range ents {
		p := path.Join(dir, de.Name())
		if _, ok := c.entries[rel(p)]; ok {
			continue
		}
		switch {
		case de.Type()&os.ModeSymlink != 0:
			if t, err := os.Readlink(c.h.Path(p)); err == nil {
				c.addLink(p, t)
			}
		case de.IsDir():
			c.add(p, EntryDir)
		default:
			c.add(p, EntryFile)
		}
	}
}

// readFile reads a file's content, not trusting its size (sysfs says 4096),
// under a deadline (some attributes block) and a size cap.
func (c *collector) readFile(p string) ([]byte, error) {
	type result struct {
		b   []byte
		err error
	}
	ch := make(chan result, 1)
	go func() {
		f, err := os.Open(c.h.Path(p))
		if err != nil {
			ch <- result{nil, err}
			return
		}
		defer f.Close()
		b, err := io.ReadAll(io.LimitReader(f, c.opts.MaxFile+1))
		if err == nil && int64(len(b)) > c.opts.MaxFile {
			err = fmt.Errorf("larger than %d bytes", c.opts.MaxFile)
		}
		ch <- result{b, err}
	}()
	select {
	case r := <-ch:
		if r.err != nil {
			return nil, unwrapOS(r.err)
		}
		return nonNilBytes(r.b), nil
	case <-time.After(c.opts.ReadTimeout):
		return nil, fmt.Errorf("read %w after %s", ErrTimeout, c.opts.ReadTimeout)
	}
}

func unwrapOS(err error) error {
	var pe *os.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	return err
}

// --- redaction ---

// identityFiles are sysfs attributes whose whole content identifies a
// device or a machine.
var identityFiles = map[string]string{
	"serial": "serial", "wwid": "wwn", "eui": "wwn", "nguid": "wwn", "uuid": "wwn", "wwn": "wwn",
	"vpd_pg80": "serial", "vpd_pg83": "wwn",
	"product_serial": "serial", "board_serial": "serial", "chassis_serial": "serial", "product_uuid": "serial",
}

var serialNumberLine = regexp.MustCompile(`(?i)serial ?number:\s*(\S+)`)

const redactedHost = "redacted-host"

// redact replaces each distinct serial number and WWN with a stable token
// (the same value gets the same token in every file content, path name,
// link target and command output, so links still resolve) and the host name
// files with "redacted-host".
func (rec *Recording) redact() {
	secrets := map[string]string{} // value -> kind
	addSecret := func(v, kind string) {
		v = strings.TrimSpace(v)
		if kind == "wwn" {
			for _, part := range wwnParts(v) {
				if len(part) >= 4 {
					secrets[part] = kind
				}
			}
			return
		}
		if len(v) >= 4 && !strings.ContainsAny(v, "\n\x00") {
			secrets[v] = kind
		}
	}
	var hostFiles []*Entry
	var fullRedact []*Entry
	for _, e := range rec.Entries {
		if e.Type != EntryFile || !e.read {
			continue
		}
		switch {
		case e.Path == "proc/sys/kernel/hostname" || e.Path == "etc/hostname":
			hostFiles = append(hostFiles, e)
		case strings.HasPrefix(e.Path, "run/udev/data/"):
			udevSecrets(e.Data, addSecret)
		case strings.HasPrefix(e.Path, "sys/"):
			if kind, ok := identityFiles[path.Base(e.Path)]; ok {
				fullRedact = append(fullRedact, e)
				if bytes.IndexByte(e.Data, 0) < 0 {
					v := strings.TrimSpace(string(e.Data))
					if strings.HasPrefix(v, "t10.") {
						if f := strings.Fields(v); len(f) > 1 {
							addSecret(f[len(f)-1], "serial")
						}
						continue
					}
					addSecret(v, kind)
				}
			}
		}
	}
	for _, c := range rec.Commands {
		for _, m := range serialNumberLine.FindAllSubmatch(c.Stdout, -1) {
			addSecret(string(m[1]), "serial")
		}
	}
	// Stable tokens: numbered per kind in sorted order of the values.
	values := make([]string, 0, len(secrets))
	for v := range secrets {
		values = append(values, v)
	}
	sort.Strings(values)
	count := map[string]int{}
	type repl struct{ from, to string }
	var repls []repl
	for _, v := range values {
		kind := secrets[v]
		count[kind]++
		repls = append(repls, repl{v, fmt.Sprintf("%s%04d", strings.ToUpper(kind), count[kind])})
	}
	// Longest first, so that a value containing another is replaced whole.
	sort.SliceStable(repls, func(i, j int) bool { return len(repls[i].from) > len(repls[j].from) })
	// Long values are replaced wherever they occur, in one pass over each
	// string; short ones one by one, where they stand alone.
	var long []string
	var short []repl
	for _, r := range repls {
		if len(r.from) >= 8 {
			long = append(long, r.from, r.to)
		} else {
			short = append(short, r)
		}
	}
	longR := strings.NewReplacer(long...)
	apply := func(s string) string {
		s = longR.Replace(s)
		for _, r := range short {
			if strings.Contains(s, r.from) {
				s = replaceSecret(s, r.from, r.to)
			}
		}
		return s
	}
	applyB := func(b []byte) []byte {
		if len(b) == 0 {
			return b
		}
		return []byte(apply(string(b)))
	}
	tokenOf := map[string]string{}
	for _, r := range repls {
		tokenOf[r.from] = r.to
	}
	for _, e := range fullRedact {
		v := strings.TrimSpace(string(e.Data))
		tok := tokenOf[v]
		if tok == "" {
			tok = apply(v)
		}
		if tok == v || bytes.IndexByte(e.Data, 0) >= 0 {
			tok = "REDACTED"
		}
		e.Data = []byte(tok + "\n")
	}
	for _, e := range hostFiles {
		if len(bytes.TrimSpace(e.Data)) > 0 {
			e.Data = []byte(redactedHost + "\n")
			count["host"] = 1
		}
	}
	seen := map[string]bool{}
	var out []*Entry
	for _, e := range rec.Entries {
		e.Path = apply(e.Path)
		if seen[e.Path] {
			continue
		}
		seen[e.Path] = true
		e.Target = apply(e.Target)
		e.Data = applyB(e.Data)
		out = append(out, e)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Path < out[j].Path })
	rec.Entries = out
	for i := range rec.Commands {
		c := &rec.Commands[i]
		for j := range c.Argv {
			c.Argv[j] = apply(c.Argv[j])
		}
		c.Stdout, c.Stderr = applyB(c.Stdout), applyB(c.Stderr)
	}
	rec.Redacted = true
	rec.RedactedValues = count
}

// udevSecrets finds serial numbers and WWNs in a udev record.
func udevSecrets(b []byte, add func(v, kind string)) {
	props := map[string]string{}
	for _, line := range strings.Split(string(b), "\n") {
		if k, v, ok := strings.Cut(strings.TrimPrefix(line, "E:"), "="); ok && strings.HasPrefix(line, "E:") {
			props[k] = v
		}
	}
	var shorts []string
	for k, v := range props {
		switch {
		case strings.Contains(k, "SERIAL") && k != "ID_SERIAL" && k != "ID_USB_SERIAL":
			add(v, "serial")
			shorts = append(shorts, strings.TrimSpace(v))
		case strings.Contains(k, "WWN") || strings.HasPrefix(k, "SCSI_IDENT_LUN_NAA") || strings.HasPrefix(k, "SCSI_IDENT_LUN_EUI") ||
			strings.HasPrefix(k, "SCSI_IDENT_PORT_NAA") || strings.HasPrefix(k, "SCSI_IDENT_TARGET_NAA"):
			add(v, "wwn")
		}
	}
	for _, k := range []string{"ID_SERIAL", "ID_USB_SERIAL"} {
		v := props[k]
		if v == "" {
			continue
		}
		contained := false
		for _, s := range shorts {
			if len(s) >= 4 && strings.Contains(v, s) {
				contained = true
			}
		}
		if !contained {
			add(v, "serial")
		}
	}
}

// wwnParts splits a WWN or EUI as udev and sysfs print it (0x5002538e40a1b2c3,
// naa.5002..., eui.0025..., 0x6005...0x1234 with its vendor extension) into
// its hex values.
func wwnParts(v string) []string {
	for _, p := range []string{"naa.", "eui.", "nvme.", "wwn-"} {
		v = strings.TrimPrefix(v, p)
	}
	var out []string
	for _, part := range strings.Split(v, "0x") {
		if part = strings.TrimSpace(part); part != "" {
			out = append(out, part)
		}
	}
	return out
}

func isAlnum(c byte) bool {
	return c >= '0' && c <= '9' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z'
}

// replaceSecret replaces occurrences of v. Values of 8 characters or more are
// replaced wherever they occur (inside an NQN or a by-id name too); shorter
// ones only where they stand alone (not inside a longer word or number).
func replaceSecret(s, v, tok string) string {
	if len(v) >= 8 {
		return strings.ReplaceAll(s, v, tok)
	}
	var b strings.Builder
	for {
		i := strings.Index(s, v)
		if i < 0 {
			b.WriteString(s)
			return b.String()
		}
		end := i + len(v)
		left := i == 0 || !isAlnum(s[i-1]) || (i >= 2 && s[i-2:i] == "0x")
		right := end == len(s) || !isAlnum(s[end])
		b.WriteString(s[:i])
		if left && right {
			b.WriteString(tok)
		} else {
			b.WriteString(v)
		}
		s = s[end:]
	}
}

// --- the fixture layout ---

// manifestOut is manifestEntry with argv written in flow style, as the
// hand-written manifests have it.
type manifestOut struct {
	Argv    []string `yaml:"argv,flow"`
	Stdout  string   `yaml:"stdout,omitempty"`
	Stderr  string   `yaml:"stderr,omitempty"`
	Exit    int      `yaml:"exit,omitempty"`
	Timeout bool     `yaml:"timeout,omitempty"`
	Missing bool     `yaml:"missing,omitempty"`
}

var unsafeName = regexp.MustCompile(`[^A-Za-z0-9._-]+`)

// CommandFiles lays the commands out as commands/manifest.yaml and the
// output files beside it: a map from path (relative to the recording's
// root) to content.
func (rec *Recording) CommandFiles() (map[string][]byte, error) {
	files := map[string][]byte{}
	var manifest []manifestOut
	for i, c := range rec.Commands {
		m := manifestOut{Argv: c.Argv, Timeout: c.Timeout, Missing: c.Missing}
		if !c.Timeout && !c.Missing {
			base := fmt.Sprintf("%03d-%s", i+1, strings.Trim(unsafeName.ReplaceAllString(strings.Join(c.Argv, "_"), "-"), "-."))
			if len(base) > 80 {
				base = base[:80]
			}
			m.Stdout, m.Exit = base+".out", c.Exit
			files["commands/"+m.Stdout] = nonNilBytes(c.Stdout)
			if len(c.Stderr) > 0 {
				m.Stderr = base + ".err"
				files["commands/"+m.Stderr] = c.Stderr
			}
		}
		manifest = append(manifest, m)
	}
	var buf bytes.Buffer
	buf.WriteString("# Recorded by diskdoctor snapshot: every command the probes ran, matched by exact argv.\n")
	if len(manifest) > 0 {
		enc := yaml.NewEncoder(&buf)
		enc.SetIndent(2)
		if err := enc.Encode(manifest); err != nil {
			return nil, err
		}
		_ = enc.Close()
	} else {
		buf.WriteString("[]\n")
	}
	files["commands/manifest.yaml"] = buf.Bytes()
	return files, nil
}

// WriteDir writes the recording into dir (which must be empty or absent) in
// the fixture layout; tests use it, snapshots use WriteArchive.
func (rec *Recording) WriteDir(dir string, meta []byte) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	root, err := os.OpenRoot(dir)
	if err != nil {
		return err
	}
	defer root.Close()
	return rec.walk(meta, func(e *Entry) error {
		switch e.Type {
		case EntryDir:
			return root.MkdirAll(e.Path, 0o755)
		case EntryLink:
			if err := root.MkdirAll(path.Dir(e.Path), 0o755); err != nil {
				return err
			}
			return root.Symlink(e.Target, e.Path)
		default:
			if err := root.MkdirAll(path.Dir(e.Path), 0o755); err != nil {
				return err
			}
			return root.WriteFile(e.Path, e.Data, 0o644)
		}
	})
}

// MetaFile is the name of the description at a snapshot's root.
const MetaFile = "diskdoctor-snapshot.yaml"

// walk calls f for every entry of the layout, parents first: the metadata,
// the recorded paths, then commands/.
func (rec *Recording) walk(meta []byte, f func(e *Entry) error) error {
	if meta != nil {
		if err := f(&Entry{Path: MetaFile, Type: EntryFile, Data: meta}); err != nil {
			return err
		}
	}
	for _, e := range rec.Entries {
		if e.Path == "commands" || strings.HasPrefix(e.Path, "commands/") || e.Path == MetaFile {
			continue // the recording's own commands/ wins
		}
		if e.Type == EntryFile && e.Data == nil {
			e.Data = []byte{}
		}
		if err := f(e); err != nil {
			return err
		}
	}
	files, err := rec.CommandFiles()
	if err != nil {
		return err
	}
	if err := f(&Entry{Path: "commands", Type: EntryDir}); err != nil {
		return err
	}
	names := make([]string, 0, len(files))
	for n := range files {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		if err := f(&Entry{Path: n, Type: EntryFile, Data: files[n]}); err != nil {
			return err
		}
	}
	return nil
}

// Stats counts a recording's entries and bytes.
func (rec *Recording) Stats() (files, dirs, links int, bytes int64) {
	for _, e := range rec.Entries {
		switch e.Type {
		case EntryDir:
			dirs++
		case EntryLink:
			links++
		default:
			files++
			bytes += int64(len(e.Data))
		}
	}
	return
}

// SnapshotMeta is diskdoctor-snapshot.yaml.
type SnapshotMeta struct {
	Format     string         `yaml:"format"`
	Version    string         `yaml:"diskdoctor"`
	Created    string         `yaml:"created"`
	Source     string         `yaml:"source"`
	Kernel     string         `yaml:"kernel,omitempty"`
	Redacted   bool           `yaml:"redacted"`
	Values     map[string]int `yaml:"redacted_values,omitempty"`
	Paths      int            `yaml:"paths"`
	Commands   int            `yaml:"commands"`
	Unreadable []string       `yaml:"unreadable,omitempty"`
	Note       string         `yaml:"note,omitempty"`
}

// SnapshotFormat identifies the snapshot layout version.
const SnapshotFormat = "diskdoctor-snapshot/v1"

// Meta describes the recording for diskdoctor-snapshot.yaml.
func (rec *Recording) Meta(version, source string, created time.Time) SnapshotMeta {
	m := SnapshotMeta{Format: SnapshotFormat, Version: version, Created: created.UTC().Format(time.RFC3339), Source: source,
		Kernel: rec.Kernel, Redacted: rec.Redacted, Values: rec.RedactedValues, Paths: len(rec.Entries), Commands: len(rec.Commands),
		Unreadable: rec.Unreadable}
	if rec.Redacted {
		m.Note = "serial numbers, WWNs and the host name are replaced by stable tokens (SERIAL0001, WWN0001, redacted-host) in contents and names"
	}
	return m
}

// Marshal renders the metadata as YAML.
func (m SnapshotMeta) Marshal() []byte {
	b, err := yaml.Marshal(m)
	if err != nil {
		return []byte("format: " + strconv.Quote(SnapshotFormat) + "\n")
	}
	return b
}
