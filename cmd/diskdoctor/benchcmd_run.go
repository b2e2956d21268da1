package main

import (
	"bytes"
	"context"
	crand "crypto/rand"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/diskdoctor/diskdoctor/probes"
	"github.com/diskdoctor/diskdoctor/rules"
)

// benchRun is one bench invocation's state.
type benchRun struct {
	o        benchOptions
	tgt      benchTarget
	size     uint64
	fio      string
	stderr   io.Writer
	progress io.Writer // nil: no progress lines

	ds        *rules.Datasheets
	facts     benchPathFacts
	report    *rules.Report
	doctorErr error
	pre       benchPreflightResult

	tool       string // "fio" or "dd"
	fioVersion string
	engine     string
	engineNote string
	direct     bool
	rows       []benchRow
	sweep      *benchSweep
	elapsed    time.Duration
	created    []string // files to remove at the end

	progMu    sync.Mutex
	progStart time.Time
	progTotal time.Duration
	progDone  time.Duration
}

// benchSpec is one test: what fio (or dd) is asked to do.
type benchSpec struct {
	Test string // "SEQ1M Q8T1", as asked
	Kind string // seq, rnd, sync, steady
	Op   string // read, write
	BS   int    // bytes
	QD   int
	Jobs int
}

func (s benchSpec) rw() string {
	if s.Kind == "rnd" || s.Kind == "sync" {
		return "rand" + s.Op
	}
	return s.Op
}

func (s benchSpec) slug() string {
	return strings.ToLower(strings.ReplaceAll(s.Test, " ", "-")) + "-" + s.Op
}

func benchLabel(kind string, bs, qd, jobs int) string {
	name := "SEQ1M"
	switch {
	case kind == "sync":
		return fmt.Sprintf("SYNC4K T%d", jobs)
	case kind == "steady":
		name = "STEADY SEQ1M"
	case bs == 4096:
		name = "RND4K"
	}
	return fmt.Sprintf("%s Q%dT%d", name, qd, jobs)
}

func benchNewSpec(kind, op string, bs, qd, jobs int) benchSpec {
	return benchSpec{Test: benchLabel(kind, bs, qd, jobs), Kind: kind, Op: op, BS: bs, QD: qd, Jobs: jobs}
}

// benchSpecs lists the tests of a profile, in run order (the sweep's
// points are decided while it runs; these are all it may run).
func benchSpecs(o benchOptions) []benchSpec {
	var out []benchSpec
	switch o.profile {
	case "cdm":
		for _, op := range []string{"read", "write"} {
			out = append(out,
				benchNewSpec("seq", op, 1<<20, 8, 1),
				benchNewSpec("seq", op, 1<<20, 1, 1),
				benchNewSpec("rnd", op, 4096, 32, 1),
				benchNewSpec("rnd", op, 4096, 32, 16))
		}
	case "sync":
		for _, t := range []int{1, 4, 8, 16} {
			out = append(out, benchNewSpec("sync", "write", 4096, 1, t))
		}
	case "sweep":
		op := "read"
		if o.write {
			op = "write"
		}
		for l := 1; l <= o.maxDepth; l *= 2 {
			qd := min(l, 32)
			out = append(out, benchNewSpec("rnd", op, 4096, qd, l/qd))
		}
	}
	if o.steady {
		out = append(out, benchNewSpec("steady", "write", 1<<20, 8, 1))
	}
	return out
}

// benchFioFilename escapes what fio reads as a separator in filename=.
func benchFioFilename(p string) string { return strings.ReplaceAll(p, ":", `\:`) }

// job renders a test as a fio job. Every test is its own fio run; the
// options are the same whether printed (--dry-run) or executed.
func (b *benchRun) job(s benchSpec) *probes.FioJob {
	j := &probes.FioJob{Name: s.slug()}
	j.Set("filename", benchFioFilename(b.tgt.File))
	j.Set("size", strconv.FormatUint(b.size, 10))
	j.Set("ioengine", b.engine)
	j.Set("direct", map[bool]string{true: "1", false: "0"}[b.direct])
	j.Set("rw", s.rw())
	j.Set("bs", strconv.Itoa(s.BS))
	j.Set("iodepth", strconv.Itoa(s.QD))
	j.Set("numjobs", strconv.Itoa(s.Jobs))
	j.Set("group_reporting", "1")
	j.Set("stonewall", "")
	j.Set("time_based", "1")
	runtime := b.o.runtime
	if s.Kind == "steady" {
		runtime = b.o.steadyMax
	}
	j.Set("runtime", benchSeconds(runtime))
	j.Set("invalidate", "1")
	// Incompressible data, fresh for every write: compressing or
	// deduplicating storage cannot shrink it.
	j.Set("refill_buffers", "1")
	j.Set("buffer_compress_percentage", "0")
	if !b.tgt.IsDevice {
		j.Set("allow_file_create", "0")
	}
	if s.Kind == "rnd" || s.Kind == "sync" {
		j.Set("randrepeat", "0")
		j.Set("norandommap", "1")
	}
	if s.Kind == "sync" {
		// O_DSYNC: each write returns when its data is on stable storage,
		// so fio's completion latency is the commit latency.
		j.Set("sync", "dsync")
	}
	if s.Kind == "steady" {
		dur := min(max(b.o.steadyMax/5, 2*time.Second), time.Minute) // two samples at least: one gives a slope of nan
		j.Set("steadystate", "iops_slope:1%")
		j.Set("ss_dur", benchSeconds(dur))
	}
	return j
}

func benchSeconds(d time.Duration) string {
	return strconv.Itoa(int((d+time.Second-1)/time.Second)) + "s"
}

// --- the test file ---

// prepare writes the test file with random data, so that reads read real,
// incompressible data, and remembers it for removal.
func (b *benchRun) prepare(ctx context.Context) error {
	flags := os.O_WRONLY
	if !b.tgt.IsDevice {
		flags |= os.O_CREATE | os.O_EXCL
	}
	f, err := os.OpenFile(b.tgt.File, flags, 0o600)
	if err != nil {
		return fmt.Errorf("test file: %w", err)
	}
	if !b.tgt.IsDevice {
		b.created = append(b.created, b.tgt.File)
	}
	err = benchFillRandom(ctx, f, b.size, b.progressFunc("writing the test file (random data)"))
	if err == nil {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	return err
}

// benchFillRandom writes n bytes of fresh random data (ChaCha8 seeded from
// crypto/rand: incompressible and never repeated).
func benchFillRandom(ctx context.Context, w io.Writer, n uint64, progress func(done, total float64)) error {
	var seed [32]byte
	_, _ = crand.Read(seed[:])
	rng := rand.NewChaCha8(seed)
	buf := make([]byte, 1<<20)
	for done := uint64(0); done < n; {
		if err := ctx.Err(); err != nil {
			return err
		}
		chunk := buf[:min(uint64(len(buf)), n-done)]
		_, _ = rng.Read(chunk)
		if _, err := w.Write(chunk); err != nil {
			return fmt.Errorf("writing the test file: %w", err)
		}
		done += uint64(len(chunk))
		if progress != nil && done%(64<<20) == 0 {
			progress(float64(done), float64(n))
		}
	}
	return nil
}

func (b *benchRun) cleanup() error {
	var errs []error
	for _, p := range b.created {
		if err := benchRemove(p); err != nil {
			errs = append(errs, fmt.Errorf("removing %s: %w", p, err))
		}
	}
	b.created = nil
	return errors.Join(errs...)
}

// --- engines ---

// benchListedEngines reads `fio --enghelp`.
func (b *benchRun) listedEngines(ctx context.Context) map[string]bool {
	ctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	out, _ := exec.CommandContext(ctx, b.fio, "--enghelp").Output()
	m := map[string]bool{}
	for _, l := range strings.Split(string(out), "\n") {
		if strings.HasPrefix(l, "\t") || strings.HasPrefix(l, " ") {
			m[strings.TrimSpace(l)] = true
		}
	}
	return m
}

func (b *benchRun) dryRunEngine(ctx context.Context) (string, string) {
	if b.o.engine != "auto" {
		return b.o.engine, "as given"
	}
	listed := b.listedEngines(ctx)
	for _, e := range benchEngines {
		if listed[e] {
			return e, "auto: the first of " + strings.Join(benchEngines, ", ") + " that this fio lists; a real run also tries it on the test file"
		}
	}
	return "psync", "auto: fio lists none of " + strings.Join(benchEngines, ", ")
}

// chooseEngine tries each candidate with a tiny read of the test file.
func (b *benchRun) chooseEngine(ctx context.Context) error {
	b.tool = "fio"
	b.direct = b.tgt.IsDevice || b.facts.DirectOK
	cands := benchEngines
	if b.o.engine != "auto" {
		cands = []string{b.o.engine}
	} else {
		listed := b.listedEngines(ctx)
		var l []string
		for _, e := range cands {
			if listed[e] || len(listed) == 0 {
				l = append(l, e)
			}
		}
		cands = l
	}
	var tried []string
	for _, e := range cands {
		j := &probes.FioJob{Name: "diskdoctor-engine-probe"}
		j.Set("filename", benchFioFilename(b.tgt.File))
		j.Set("size", "1m")
		j.Set("io_size", "64k")
		j.Set("rw", "read")
		j.Set("bs", "4k")
		j.Set("iodepth", "2")
		j.Set("ioengine", e)
		j.Set("direct", map[bool]string{true: "1", false: "0"}[b.direct])
		out, err := b.execFio(ctx, j.Argv())
		if err == nil {
			b.engine = e
			b.fioVersion = out.Version
			if len(tried) > 0 {
				b.engineNote = "not usable here: " + strings.Join(tried, "; ")
			}
			return nil
		}
		if ctx.Err() != nil {
			return ctx.Err()
		}
		tried = append(tried, e+" ("+benchFirstLine(err.Error())+")")
	}
	return fmt.Errorf("no fio engine works on %s: %s", b.tgt.File, strings.Join(tried, "; "))
}

func benchFirstLine(s string) string {
	s, _, _ = strings.Cut(strings.TrimSpace(s), "\n")
	return s
}

// execFio runs fio with argv and parses its JSON. On cancellation fio gets
// SIGTERM (it stops its jobs and exits), then SIGKILL after 5 s.
func (b *benchRun) execFio(ctx context.Context, argv []string) (*probes.FioOutput, error) {
	cmd := exec.CommandContext(ctx, b.fio, argv...)
	cmd.Env = append(os.Environ(), "LC_ALL=C")
	cmd.Cancel = func() error { return cmd.Process.Signal(syscall.SIGTERM) }
	cmd.WaitDelay = 5 * time.Second
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	runErr := cmd.Run()
	if ctx.Err() != nil {
		return nil, ctx.Err()
	}
	out, _, perr := probes.ParseFio(stdout.Bytes())
	if runErr != nil {
		return nil, fmt.Errorf("fio: %v: %s", runErr, benchTail(stderr.String()+stdout.String()))
	}
	if perr != nil {
		return nil, fmt.Errorf("fio output: %w (stderr: %s)", perr, benchTail(stderr.String()))
	}
	for _, j := range out.Jobs {
		if j.Error != 0 {
			return nil, fmt.Errorf("fio job %s failed with error %d (%s): %s", j.Name, j.Error, syscall.Errno(j.Error).Error(), benchTail(stderr.String()))
		}
	}
	return out, nil
}

func benchTail(s string) string {
	s = strings.TrimSpace(s)
	if len(s) > 400 {
		s = "…" + s[len(s)-400:]
	}
	return s
}

// --- running the tests ---

func (b *benchRun) runFio(ctx context.Context) error {
	specs := benchSpecs(b.o)
	var plain []benchSpec
	var sweep []benchSpec
	for _, s := range specs {
		if b.o.profile == "sweep" && s.Kind == "rnd" {
			sweep = append(sweep, s)
		} else {
			plain = append(plain, s)
		}
	}
	b.progTotal = 0
	for _, s := range specs {
		if s.Kind == "steady" {
			b.progTotal += b.o.steadyMax
		} else {
			b.progTotal += b.o.runtime
		}
	}
	b.progStart = time.Now()
	n := len(specs)
	i := 0
	if len(sweep) > 0 {
		b.sweep = &benchSweep{Op: sweep[0].Op, Rule: benchKneeRule}
		for _, s := range sweep {
			i++
			row, err := b.runSpec(ctx, i, n, s)
			if err != nil {
				return err
			}
			b.rows = append(b.rows, row)
			if stop := b.sweep.add(row); stop {
				b.sweep.Stopped = fmt.Sprintf("stopped at load %d: p99 broke away", row.QD*row.Threads)
				break
			}
		}
		b.sweep.finish()
	}
	for _, s := range plain {
		i++
		row, err := b.runSpec(ctx, i, n, s)
		if err != nil {
			return err
		}
		b.rows = append(b.rows, row)
	}
	return nil
}

func (b *benchRun) runSpec(ctx context.Context, i, n int, s benchSpec) (benchRow, error) {
	j := b.job(s)
	d := b.o.runtime
	if s.Kind == "steady" {
		d = b.o.steadyMax
	}
	stop := b.tick(fmt.Sprintf("[%d/%d] %s %s", i, n, s.Test, s.Op), d)
	out, err := b.execFio(ctx, j.Argv())
	stop(d)
	if err != nil {
		return benchRow{}, fmt.Errorf("%s %s: %w", s.Test, s.Op, err)
	}
	if b.fioVersion == "" {
		b.fioVersion = out.Version
	}
	return b.fioRow(s, j, &out.Jobs[0]), nil
}

// benchSyncEngines can have one I/O in flight per job, whatever iodepth says.
var benchSyncEngines = map[string]bool{"sync": true, "psync": true, "vsync": true, "pvsync": true, "pvsync2": true, "mmap": true}

// benchAchievedQD is the queue depth a row may be labelled with: the one
// asked for only when the engine and I/O mode can honour it and fio's
// iodepth distribution shows it.
func benchAchievedQD(engine string, direct bool, asked int, fioDepth int) (int, string) {
	switch {
	case asked <= 1:
		return 1, ""
	case benchSyncEngines[engine]:
		return 1, engine + " is a synchronous engine: one I/O in flight per job"
	case engine == "libaio" && !direct:
		return 1, "libaio without O_DIRECT submits synchronously: one I/O in flight per job"
	case fioDepth > 0 && fioDepth < asked:
		return fioDepth, fmt.Sprintf("fio's iodepth distribution: most I/Os were issued at depth %d or less", fioDepth)
	}
	return asked, ""
}

func (b *benchRun) fioRow(s benchSpec, j *probes.FioJob, out *probes.FioJobOut) benchRow {
	io := out.Read
	if s.Op == "write" {
		io = out.Write
	}
	qd, note := benchAchievedQD(b.engine, b.direct, s.QD, out.AchievedDepth())
	row := benchRow{
		Test: benchLabel(s.Kind, s.BS, qd, s.Jobs), Asked: s.Test, Kind: s.Kind, Op: s.Op, BlockSize: s.BS,
		AskedQD: s.QD, QD: qd, Threads: s.Jobs, Tool: "fio",
		MBs: io.BWBytes / 1e6, IOPS: io.IOPS,
		Job: j.Ini(), Command: benchShellLine(append([]string{"fio"}, j.Argv()...)),
	}
	if note != "" {
		row.Notes = append(row.Notes, "labelled "+row.Test+", not "+s.Test+": "+note)
	}
	if !b.direct {
		row.Notes = append(row.Notes, "buffered I/O (O_DIRECT not honoured here)")
	}
	us := func(ns float64) float64 { return ns / 1000 }
	row.Lat.Mean = us(io.Lat.Mean)
	if v, ok := io.Clat.Pct(50); ok {
		row.Lat.P50 = us(v)
	}
	if v, ok := io.Clat.Pct(99); ok {
		row.Lat.P99 = us(v)
	}
	if v, ok := io.Clat.Pct(99.9); ok {
		row.Lat.P999 = us(v)
	}
	if ss := out.SteadyState; ss != nil {
		row.Steady = &benchSteady{Attained: ss.Attained == 1 && !strings.Contains(ss.Measured, "nan"), Criterion: ss.Criterion, Measured: ss.Measured, WindowS: ss.Duration, MBs: ss.Data.BWMean / 1e6}
		if !row.Steady.Attained {
			row.Notes = append(row.Notes, fmt.Sprintf("steady state not reached within --steady-max %s: the figure is the last window's", b.o.steadyMax))
		}
	}
	return row
}

func benchShellLine(argv []string) string {
	q := make([]string, len(argv))
	for i, a := range argv {
		q[i] = probes.ShellQuote(a)
	}
	return strings.Join(q, " ")
}

// --- progress on a terminal ---

// tick prints "[i/n] test: elapsed / total" every quarter second until the
// returned stop is called with the test's nominal duration.
func (b *benchRun) tick(what string, d time.Duration) func(time.Duration) {
	if b.progress == nil {
		return func(time.Duration) {}
	}
	start := time.Now()
	done := make(chan struct{})
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		t := time.NewTicker(250 * time.Millisecond)
		defer t.Stop()
		for {
			b.progMu.Lock()
			total := time.Since(b.progStart).Round(time.Second)
			fmt.Fprintf(b.progress, "\r\033[K%s: %s / %s   (all tests: %s / ~%s)", what,
				time.Since(start).Round(100*time.Millisecond), d, total, b.progTotal.Round(time.Second))
			b.progMu.Unlock()
			select {
			case <-done:
				return
			case <-t.C:
			}
		}
	}()
	return func(time.Duration) {
		close(done)
		wg.Wait()
	}
}

func (b *benchRun) progressFunc(what string) func(done, total float64) {
	if b.progress == nil {
		return nil
	}
	return func(done, total float64) {
		fmt.Fprintf(b.progress, "\r\033[K%s: %s / %s", what, benchBytes(uint64(done)), benchBytes(uint64(total)))
	}
}

func (b *benchRun) endProgress() {
	if b.progress != nil {
		fmt.Fprint(b.progress, "\r\033[K")
	}
}
