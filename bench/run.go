package bench

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"
	"sync"
	"time"

	"github.com/diskdoctor/diskdoctor/machine"
	"github.com/diskdoctor/diskdoctor/report"
	"github.com/diskdoctor/diskdoctor/rules"
)

// Examiner runs the doctor on the machine, judging only these devices (all
// when none), with --context benchmark.
type Examiner func(ctx context.Context, devices []string) (*rules.Report, error)

// ExitError carries the exit status of a refused or failed bench: 2
// refused on critical findings or competing I/O, 3 could not run,
// 128+N ended by signal N.
type ExitError struct {
	Code int
	Err  error
}

func (e *ExitError) Error() string { return e.Err.Error() }

func (e *ExitError) Unwrap() error { return e.Err }

// ExitCode is the process exit status.
func (e *ExitError) ExitCode() int { return e.Code }

// Env is what a run is given besides its options: the machine (live or
// recorded), the runner that executes and writes, and the doctor.
type Env struct {
	Host    *machine.Host
	Runner  Runner
	Examine Examiner
	// Notes receives messages for the person at the terminal (stale test
	// files removed); nil discards them.
	Notes io.Writer
	// Recording is a recorded machine's bench run (nil: live, or none
	// recorded).
	Recording *Recording
}

// run is one bench invocation's state.
type run struct {
	o        Options
	env      Env
	tgt      Target
	fio      string
	progress io.Writer // nil: no progress lines

	ds        *rules.Datasheets
	facts     Facts
	report    *rules.Report
	doctorErr error
	pre       Preflight

	tool       string // "fio" or "dd"
	fioVersion string
	engine     string
	engineNote string
	direct     bool
	rows       []Row
	sweep      *Sweep
	elapsed    time.Duration
	// preflightTook and prepareTook are the doctor's own overhead.
	preflightTook, prepareTook time.Duration
	created                    []string // files to remove at the end

	progMu    sync.Mutex
	progStart time.Time
	progTotal time.Duration
}

// DryRun resolves the target and returns the fio job file the run would
// execute, preceded by the preflight's checks as comments when the doctor
// could examine the machine.
func DryRun(ctx context.Context, path string, o Options, env Env) (string, error) {
	b, err := start(ctx, path, o, env)
	if err != nil {
		return "", err
	}
	b.direct = !o.Buffered
	if b.tool == "dd" {
		b.preflight(ctx)
		return b.dryRunDD(), nil
	}
	b.engine, b.engineNote = b.dryRunEngine(ctx)
	b.preflight(ctx)
	return b.dryRunText(), nil
}

// Run is the whole bench: target, doctor, preflight, competing I/O, test
// file, tests, the competing I/O after them. Every path out of it removes
// the test file. A refused run returns its Result (for --format json)
// with an *ExitError.
func Run(ctx context.Context, path string, o Options, env Env) (res *Result, err error) {
	b, err := start(ctx, path, o, env)
	if err != nil {
		return nil, err
	}
	// Before the preflight: a second run would see the first's I/O as
	// competing, and --force would run both at half the throughput each.
	release, err := env.Runner.Lock(b.tgt.DevNo)
	if err != nil {
		return nil, &ExitError{3, err}
	}
	defer func() {
		if rerr := release(); rerr != nil && err == nil {
			err = &ExitError{3, rerr}
		}
	}()
	t0 := time.Now()
	b.preflight(ctx)
	if b.pre.Refuse(o.Force) {
		return b.result(), refusal(b.pre, o.Width)
	}
	if err := b.watchCompeting(ctx, &b.pre.Competing, "before"); err != nil {
		return nil, interrupted(ctx, err)
	}
	b.preflightTook = time.Since(t0)
	if b.pre.Competing.Busy() && !o.Force {
		b.pre.Refused = true
		c := b.pre.Competing
		lines := append(messageLines("bench refused: "+c.Text+" (--force runs anyway, and the result says so)", o.Width, 0), c.ProcessLines(o.Width, 2)...)
		return b.result(), &ExitError{2, errors.New(strings.Join(lines, "\n"))}
	}
	defer func() {
		if cerr := b.cleanup(); cerr != nil && err == nil {
			err = &ExitError{3, cerr}
		}
	}()
	began := time.Now()
	if err := b.prepare(ctx); err != nil {
		return nil, interrupted(ctx, err)
	}
	b.prepareTook = time.Since(began)
	if b.tool == "dd" {
		err = b.runDD(ctx)
	} else if err = b.chooseEngine(ctx); err == nil {
		err = b.runFio(ctx)
	}
	b.endProgress()
	if err != nil {
		return nil, interrupted(ctx, err)
	}
	b.elapsed = time.Since(began)
	if err := b.watchCompeting(ctx, &b.pre.After, "after"); err != nil {
		return nil, interrupted(ctx, err)
	}
	return b.result(), nil
}

// start validates the options, resolves the target and removes the test
// files of dead runs there.
func start(ctx context.Context, path string, o Options, env Env) (*run, error) {
	if err := o.Validate(); err != nil {
		return nil, &ExitError{3, err}
	}
	if env.Runner == nil || env.Host == nil {
		return nil, &ExitError{3, errors.New("bench: no host or runner")}
	}
	tgt, err := ResolveTarget(ctx, env.Host, path, o.DeviceWrite, o.PID)
	if err != nil {
		return nil, &ExitError{3, err}
	}
	b := &run{o: o, env: env, tgt: tgt, progress: o.Progress, tool: "fio"}
	fioPath, fioErr := env.Runner.LookPath(or(o.Fio, "fio"))
	switch {
	case o.DD:
		b.tool, b.engineNote = "dd", "--dd asked for the dd fallback"
	case fioErr != nil:
		b.tool, b.engineNote = "dd", fmt.Sprintf("%s is not installed (%v): falling back to dd, which measures fewer things and less precisely (apt-get install fio)", o.Fio, fioErr)
	default:
		b.fio = fioPath
	}
	if !tgt.IsDevice {
		removed, err := env.Runner.RemoveStale(tgt.Path, o.DryRun)
		for _, p := range removed {
			if o.DryRun {
				b.note("found %s, the test file of a bench run that no longer runs: a real run removes it", p)
			} else {
				b.note("removed %s: the test file of a bench run that no longer runs", p)
			}
		}
		if err != nil {
			b.note("could not remove every stale test file in %s: %v", tgt.Path, err)
		}
	}
	return b, nil
}

func (b *run) note(format string, args ...any) {
	if b.env.Notes != nil {
		fmt.Fprintf(b.env.Notes, "diskdoctor bench: "+format+"\n", args...)
	}
}

// preflight gathers the facts, runs the doctor and judges.
func (b *run) preflight(ctx context.Context) {
	// The machine's own datasheets (/etc/diskdoctor/datasheets.d) as the
	// doctor reads them, then the user's file.
	var ds *rules.Datasheets
	var err error
	if b.env.Host != nil {
		ds, err = rules.LoadHostDatasheets(ctx, b.env.Host, b.o.Datasheets)
	} else {
		ds, err = rules.LoadDatasheets(b.o.Datasheets)
	}
	if err != nil {
		b.doctorErr = err
	}
	b.ds = ds
	b.facts = gather(ctx, b.env.Host, b.env.Runner, b.tgt, b.o.Size, b.tool == "dd")
	if b.o.Buffered {
		b.facts.DirectOK, b.facts.DirectErr = false, "--buffered asked for buffered I/O"
	}
	if b.env.Examine != nil && b.doctorErr == nil {
		b.report, b.doctorErr = b.examine(ctx)
	}
	b.pre = judge(b.report, b.facts)
	if b.doctorErr != nil {
		b.pre.Checks = append(b.pre.Checks, Check{ID: "bench-doctor-failed", Severity: rules.Warning,
			Text: "the doctor could not examine this machine (" + b.doctorErr.Error() + "): only the benchmark's own checks ran"})
	}
	if b.tool == "dd" {
		b.pre.Checks = append(b.pre.Checks, Check{ID: "bench-fio-missing", Severity: rules.Warning, Text: b.engineNote})
	}
	b.pre.verdict()
}

// examine runs the doctor on the devices under the target. For a ZFS
// dataset the pool's members come from the devices' zfs_pools facts.
func (b *run) examine(ctx context.Context) (*rules.Report, error) {
	pf := &b.facts
	var devices []string
	if len(pf.Disks) > 0 {
		devices = append(devices, pf.Disks...)
		if pf.Device != "" && !contains(devices, pf.Device) {
			devices = append(devices, pf.Device)
		}
	}
	rep, err := b.env.Examine(ctx, devices)
	if err != nil && len(devices) > 0 {
		// A device the inventory does not list (a stacked device it skips):
		// judge the whole machine, and the preflight picks what applies.
		rep, err = b.env.Examine(ctx, nil)
	}
	if err != nil {
		return nil, err
	}
	if pf.Pool != "" && len(pf.Disks) == 0 {
		for _, d := range rep.Devices {
			if pools, ok := d["zfs_pools"].([]string); ok && contains(pools, pf.Pool) {
				pf.Disks = append(pf.Disks, d["name"].(string))
			}
		}
		if len(pf.Disks) == 0 {
			pf.DeviceNote = fmt.Sprintf("ZFS pool %s: its member disks could not be found, so device findings are skipped; only the pool's and host-wide findings apply", pf.Pool)
		}
	}
	return rep, nil
}

func refusal(pre Preflight, width int) error {
	head := "bench refused: the numbers would measure these problems, not the hardware (--force runs anyway):"
	if pre.NoSpace {
		head = "bench refused: the test file does not fit (--force does not override this):"
	}
	lines := messageLines(head, width, 0)
	for _, c := range pre.Checks {
		if c.Severity == rules.Critical {
			lines = append(lines, messageLines("CRITICAL "+c.ID+": "+c.Text, width, 2)...)
		}
	}
	if pre.NoSpace {
		return &ExitError{3, errors.New(strings.Join(lines, "\n"))}
	}
	lines = append(lines, messageLines("Fix them (run 'diskdoctor' for the evidence and the commands), or pass --force to measure anyway.", width, 2)...)
	return &ExitError{2, errors.New(strings.Join(lines, "\n"))}
}

// messageLines wraps a line of an error message to width columns: the
// first line after "diskdoctor: " (indent 0: main prints it first) or
// indented by indent, the others indented by two more.
func messageLines(text string, width, indent int) []string {
	first := len("diskdoctor: ")
	if indent > 0 {
		first = indent
	}
	lines := report.Wrap(text, textWidth(width), first, indent+2)
	lines[0] = strings.Repeat(" ", indent) + lines[0]
	return lines
}

func interrupted(ctx context.Context, err error) error {
	var ee *ExitError
	if errors.As(err, &ee) {
		return err
	}
	if ctx.Err() != nil {
		return &ExitError{3, fmt.Errorf("bench interrupted; the test file was removed: %w", context.Cause(ctx))}
	}
	return &ExitError{3, err}
}

// prepare writes the test file with random data, so that reads read real,
// incompressible data, and remembers it for removal.
func (b *run) prepare(ctx context.Context) error {
	if !b.tgt.IsDevice {
		b.created = append(b.created, b.tgt.File)
	}
	return b.env.Runner.Fill(ctx, b.tgt.File, b.o.Size, b.tgt.IsDevice, b.progressFunc("writing the test file (random data)"))
}

func (b *run) cleanup() error {
	var errs []error
	for _, p := range b.created {
		if err := b.env.Runner.Remove(p); err != nil {
			errs = append(errs, fmt.Errorf("removing %s: %w", p, err))
		}
	}
	b.created = nil
	errs = append(errs, b.env.Runner.Close())
	return errors.Join(errs...)
}
