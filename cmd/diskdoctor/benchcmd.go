package main

// `diskdoctor bench PATH`: a CrystalDiskMark-style benchmark that runs only
// after the doctor says the machine is ready, drives fio (JSON output, exec
// argv only), and compares every figure with the device's datasheet.
// docs/bench.md is the user's reference.

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/diskdoctor/diskdoctor/rules"
)

func init() { subcommands = append(subcommands, newBenchCmd) }

type benchOptions struct {
	profile      string
	runtime      time.Duration
	size         string
	engine       string
	format       string
	dryRun       bool
	force        bool
	deviceWrite  bool
	steady       bool
	steadyMax    time.Duration
	write        bool // sweep: random writes instead of reads
	maxDepth     int  // sweep: highest load (queue depth × jobs)
	fio          string
	color        string
	datasheets   string
	probeTimeout time.Duration
	// progress, when set, receives the progress lines (tests); otherwise
	// they go to stderr when it is a terminal.
	progress io.Writer
}

// benchExitError carries the exit status of a refused or failed bench:
// 2 refused on critical findings, 3 could not run.
type benchExitError struct {
	code int
	err  error
}

func (e *benchExitError) Error() string { return e.err.Error() }
func (e *benchExitError) Unwrap() error { return e.err }
func (e *benchExitError) ExitCode() int { return e.code }

var benchProfiles = []string{"cdm", "sync", "sweep"}

func newBenchCmd() *cobra.Command {
	var o benchOptions
	cmd := &cobra.Command{
		Use:   "bench PATH",
		Short: "Benchmark the storage under PATH with fio, after the doctor says it is ready, against the datasheet",
		Long: `bench examines the machine first (the doctor, on the device under PATH) and
refuses to produce misleading numbers: it stops on critical findings unless
--force, and warns where results would lie (a test file smaller than RAM or
the ZFS ARC, O_DIRECT not honoured, compression, background work, a
power-saving governor, too little free space). It then drives fio with
JSON output, writes incompressible data, labels each row with the queue
depth actually achieved, and compares each figure with the device's
datasheet. The test file is removed afterwards, also on Ctrl-C.

Profiles: cdm (SEQ1M Q8T1, SEQ1M Q1T1, RND4K Q32T1, RND4K Q32T16, read and
write), sync (4 KiB O_DSYNC random writes at 1/4/8/16 threads with commit
latency percentiles), sweep (random 4 KiB reads, or writes with --write, at
rising load until tail latency breaks away; reports the knee). --steady adds
sustained writes until fio's steady-state detector settles.

Without fio, a dd fallback measures sequential and 4 KiB synchronous writes
and direct reads, less precisely. --dry-run prints the fio job files and
runs nothing. A raw block device is written only with --device-write-i-know
(it destroys the data on it).`,
		Example: `  diskdoctor bench /srv/data
  diskdoctor bench --profile sync /tank/db
  diskdoctor bench --profile sweep --write --max-depth 64 /mnt/scratch
  diskdoctor bench --steady --steady-max 10m --size 64GiB /mnt/scratch
  diskdoctor bench --dry-run --profile cdm /srv/data > jobs.fio
  diskdoctor bench --format json /srv/data`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			return bench(cmd.Context(), args[0], o, cmd.OutOrStdout(), cmd.ErrOrStderr())
		},
	}
	f := cmd.Flags()
	f.StringVar(&o.profile, "profile", "cdm", "what to measure: cdm, sync, sweep")
	f.DurationVar(&o.runtime, "runtime", 5*time.Second, "how long each test runs")
	f.StringVar(&o.size, "size", "1GiB", "size of the test file (KiB, MiB, GiB, TiB; k/m/g/t are binary too); bigger than RAM to keep caches out")
	f.StringVar(&o.engine, "engine", "auto", "fio I/O engine: auto (io_uring, libaio, posixaio, psync: the first that works here), or any fio engine")
	f.StringVarP(&o.format, "format", "f", "text", "output format: text, json")
	f.BoolVar(&o.dryRun, "dry-run", false, "print the fio job files the bench would run, and run nothing")
	f.BoolVar(&o.force, "force", false, "run although the doctor found critical problems (the numbers will show them)")
	f.BoolVar(&o.deviceWrite, "device-write-i-know", false, "PATH is a raw block device: write to it, destroying its data")
	f.BoolVar(&o.steady, "steady", false, "add sustained sequential writes until fio's steady-state detector settles (gets past SLC caches)")
	f.DurationVar(&o.steadyMax, "steady-max", 10*time.Minute, "upper bound of the --steady run")
	f.BoolVar(&o.write, "write", false, "sweep: random writes instead of random reads")
	f.IntVar(&o.maxDepth, "max-depth", 256, "sweep: highest load, outstanding I/Os (queue depth × jobs; 1, 2, 4 … this)")
	f.StringVar(&o.fio, "fio", "fio", "the fio program; when it is missing a less precise dd fallback runs")
	f.StringVar(&o.color, "color", "auto", "colour: auto, always, never")
	f.StringVar(&o.datasheets, "datasheets", "", "a YAML file of your own drive datasheets (format of rules/datasheets.yaml)")
	f.DurationVar(&o.probeTimeout, "probe-timeout", 5*time.Second, "how long one probe of the doctor may take")
	_ = cmd.RegisterFlagCompletionFunc("profile", cobra.FixedCompletions(benchProfiles, cobra.ShellCompDirectiveNoFileComp))
	_ = cmd.RegisterFlagCompletionFunc("engine", cobra.FixedCompletions(append([]string{"auto"}, benchEngines...), cobra.ShellCompDirectiveNoFileComp))
	_ = cmd.RegisterFlagCompletionFunc("format", cobra.FixedCompletions([]string{"text", "json"}, cobra.ShellCompDirectiveNoFileComp))
	return cmd
}

// benchEngines is the auto order: asynchronous engines first.
var benchEngines = []string{"io_uring", "libaio", "posixaio", "psync"}

// benchParseSize reads "1GiB", "512m", "64MiB", "4096"; k/m/g/t and
// KiB/MiB/GiB/TiB are powers of 1024 (as fio reads them), KB/MB/GB/TB
// powers of 1000.
func benchParseSize(s string) (uint64, error) {
	t := strings.TrimSpace(s)
	i := strings.IndexFunc(t, func(r rune) bool { return (r < '0' || r > '9') && r != '.' })
	num, unit := t, ""
	if i >= 0 {
		num, unit = t[:i], strings.ToLower(strings.TrimSpace(t[i:]))
	}
	v, err := strconv.ParseFloat(num, 64)
	if err != nil || v <= 0 {
		return 0, fmt.Errorf("--size %q: want a size such as 1GiB or 512MiB", s)
	}
	mult := map[string]float64{"": 1, "b": 1,
		"k": 1 << 10, "kib": 1 << 10, "m": 1 << 20, "mib": 1 << 20, "g": 1 << 30, "gib": 1 << 30, "t": 1 << 40, "tib": 1 << 40,
		"kb": 1e3, "mb": 1e6, "gb": 1e9, "tb": 1e12}
	m, ok := mult[unit]
	if !ok {
		return 0, fmt.Errorf("--size %q: unknown unit %q", s, unit)
	}
	n := uint64(v * m)
	n -= n % (1 << 20) // whole MiB: every block size divides it
	if n < 4<<20 {
		return 0, fmt.Errorf("--size %q: at least 4 MiB", s)
	}
	return n, nil
}

func (o *benchOptions) validate() error {
	if !benchContains(benchProfiles, o.profile) {
		return fmt.Errorf("unknown --profile %q (cdm, sync, sweep)", o.profile)
	}
	if o.format != "text" && o.format != "json" {
		return fmt.Errorf("unknown --format %q (text, json)", o.format)
	}
	if o.runtime < time.Second {
		return fmt.Errorf("--runtime %s: at least 1s", o.runtime)
	}
	if o.maxDepth < 1 || o.maxDepth > 4096 {
		return fmt.Errorf("--max-depth %d: between 1 and 4096", o.maxDepth)
	}
	if o.steady && o.steadyMax < 2*time.Second {
		return fmt.Errorf("--steady-max %s: at least 2s", o.steadyMax)
	}
	if strings.ContainsAny(o.engine, "= \t\n") || o.engine == "" {
		return fmt.Errorf("--engine %q: not an engine name", o.engine)
	}
	if o.write && o.profile != "sweep" {
		return errors.New("--write applies to --profile sweep")
	}
	return nil
}

func benchContains(xs []string, x string) bool {
	for _, y := range xs {
		if x == y {
			return true
		}
	}
	return false
}

// bench is the whole run: target, doctor, preflight, test file, tests,
// report. Every path out of it removes the test file.
func bench(ctx context.Context, path string, o benchOptions, stdout, stderr io.Writer) (err error) {
	if err := o.validate(); err != nil {
		return &benchExitError{3, err}
	}
	size, err := benchParseSize(o.size)
	if err != nil {
		return &benchExitError{3, err}
	}
	tgt, err := benchResolveTarget(path, o.deviceWrite)
	if err != nil {
		return &benchExitError{3, err}
	}
	fioPath, fioErr := exec.LookPath(o.fio)
	useDD := fioErr != nil

	b := &benchRun{o: o, tgt: tgt, size: size, fio: fioPath, stderr: stderr}
	if o.progress != nil {
		b.progress = o.progress
	} else if isTerminal(stderr) {
		b.progress = stderr
	}

	if o.dryRun {
		if useDD {
			return &benchExitError{3, fmt.Errorf("--dry-run prints fio job files, and %s is not installed (apt-get install fio)", o.fio)}
		}
		b.engine, b.engineNote = b.dryRunEngine(ctx)
		b.direct = true
		fmt.Fprint(stdout, b.dryRunText())
		return nil
	}

	ds, err := rules.LoadDatasheets(o.datasheets)
	if err != nil {
		return &benchExitError{3, err}
	}
	b.ds = ds
	b.facts = benchMeasurePath(ctx, tgt, size, useDD)
	b.report, b.doctorErr = benchExamine(ctx, &b.facts, o)
	b.pre = benchPreflight(b.report, b.facts)
	if b.doctorErr != nil {
		b.pre.Checks = append(b.pre.Checks, benchCheck{ID: "bench-doctor-failed", Severity: rules.Warning,
			Text: "the doctor could not examine this machine (" + b.doctorErr.Error() + "): only the benchmark's own checks ran"})
	}
	if useDD {
		b.pre.Checks = append(b.pre.Checks, benchCheck{ID: "bench-fio-missing", Severity: rules.Warning,
			Text: fmt.Sprintf("%s is not installed (%v): falling back to dd, which measures fewer things and less precisely (apt-get install fio)", o.fio, fioErr)})
	}
	if b.pre.refused(o.force) {
		benchPrintRefusal(stderr, b.pre)
		if o.format == "json" {
			// Scripts get the preflight too: refused, no rows.
			_ = benchWriteJSON(stdout, b.result())
		}
		if b.pre.NoSpace {
			return &benchExitError{3, errors.New("bench: not enough free space for the test file")}
		}
		return &benchExitError{2, errors.New("bench refused: the doctor found critical problems (--force runs anyway)")}
	}

	defer func() {
		if rmErr := b.cleanup(); rmErr != nil && err == nil {
			err = &benchExitError{3, rmErr}
		}
	}()
	start := time.Now()
	if err := b.prepare(ctx); err != nil {
		return benchCtxErr(ctx, err)
	}
	if useDD {
		err = b.runDD(ctx)
	} else {
		if err := b.chooseEngine(ctx); err != nil {
			return benchCtxErr(ctx, err)
		}
		err = b.runFio(ctx)
	}
	b.endProgress()
	if err != nil {
		return benchCtxErr(ctx, err)
	}
	b.elapsed = time.Since(start)
	out := b.result()
	if o.format == "json" {
		return benchWriteJSON(stdout, out)
	}
	renderBench(stdout, out, colorWanted(o.color, stdout))
	return nil
}

func benchCtxErr(ctx context.Context, err error) error {
	if ctx.Err() != nil {
		return &benchExitError{3, fmt.Errorf("bench interrupted; the test file was removed: %w", ctx.Err())}
	}
	return &benchExitError{3, err}
}

func benchPrintRefusal(w io.Writer, pre benchPreflightResult) {
	fmt.Fprintln(w, "diskdoctor bench: NOT RUN — the numbers would measure these problems, not the hardware:")
	for _, c := range pre.Checks {
		if c.Severity == rules.Critical {
			fmt.Fprintf(w, "  CRITICAL %s: %s\n", c.ID, c.Text)
		}
	}
	fmt.Fprintln(w, "Fix them (run 'diskdoctor' for the evidence and the commands), or pass --force to measure anyway.")
}

// benchRemove removes a file, treating "already gone" as done.
func benchRemove(p string) error {
	if err := os.Remove(p); err != nil && !errors.Is(err, os.ErrNotExist) {
		return err
	}
	return nil
}
