// Package doctor is one examination of a machine: it opens the Host (this
// machine, a recorded root or a snapshot archive), runs the checks and
// judges their observations with the rules, and returns the report.
//
// It owns the run as a whole (its deadline, the validation of what a person
// asked for) and nothing else: it does not render (that is report/), read
// the machine itself (that is probes/, through the Host), or know about
// flags and exit statuses (that is cmd/diskdoctor).
package doctor

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/diskdoctor/diskdoctor/checks"
	"github.com/diskdoctor/diskdoctor/internal/suggest"
	"github.com/diskdoctor/diskdoctor/machine"
	"github.com/diskdoctor/diskdoctor/machine/archive"
	"github.com/diskdoctor/diskdoctor/probes/block"
	"github.com/diskdoctor/diskdoctor/rules"
)

// Options say what to examine and how.
type Options struct {
	// Host is the machine to examine; nil means Root, Snapshot, or else this
	// machine.
	Host *machine.Host
	// Root is a recorded machine (a fixture or unpacked snapshot directory).
	Root string
	// Snapshot is a snapshot archive, unpacked privately for the run.
	Snapshot string
	// HostRoot is the live host whose root filesystem is mounted at this
	// directory (from inside a container; machine.HostRoot).
	HostRoot string
	// Label names the machine in the report when Host is given.
	Label string

	Devices      []string      // judge only these (name or /dev/name)
	ProbeTimeout time.Duration // one probe: a file read or a command
	// Deadline bounds the run as a whole (0: ProbeTimeout-derived default,
	// see RunDeadline): a machine whose every probe hangs still gets an
	// answer.
	Deadline   time.Duration
	Datasheets string // a user's datasheet YAML, its models first
	// Config is a site configuration file (waivers, severities) read
	// instead of the examined machine's rules.SiteFile.
	Config   string
	Context  string // auto, server, desktop, laptop, vm, benchmark
	Disabled []string
	Sample   time.Duration // a measuring window; 0: configuration only
	// LiveWindow is a window taken when Sample is 0 and the machine is
	// live (checks.Options.LiveWindow): the default run's short look at
	// what the machine is doing before it says OK or READY.
	LiveWindow time.Duration
	Progress   func(elapsed time.Duration) // told how far the window has come
	Strict     bool                        // tests: a rule that cannot be evaluated is an error
}

// Contexts are the values Options.Context may take (a new slice each call).
func Contexts() []string {
	return []string{"auto", "server", "desktop", "laptop", "vm", "benchmark"}
}

// DefaultProbeTimeout is a probe's timeout when Options leave it at zero.
const DefaultProbeTimeout = 5 * time.Second

// ErrDeadline is the whole run exceeding its deadline.
var ErrDeadline = errors.New("the examination exceeded its deadline")

// RunDeadline is the deadline of a run with these options: the given one,
// or the sampling window plus runProbeTimeouts probe timeouts plus a
// minute. Probes run concurrently, per-device commands eight at a time: a
// machine where every one of hundreds of disks lets its hdparm time out
// still finishes; a run that needs more is stuck, and says so.
func (o Options) RunDeadline() time.Duration {
	if o.Deadline > 0 {
		return o.Deadline
	}
	return max(o.Sample, o.LiveWindow) + runProbeTimeouts*o.ProbeTimeoutOrDefault() + time.Minute
}

// DefaultLiveWindow is the root command's LiveWindow: long enough for
// /proc/diskstats' busy time and /proc/PID/io to show a competing writer,
// short enough for a run from a timer every few minutes.
const DefaultLiveWindow = time.Second

// ProbeTimeoutOrDefault is one probe's timeout: ProbeTimeout, or
// DefaultProbeTimeout when it is zero.
func (o Options) ProbeTimeoutOrDefault() time.Duration {
	if o.ProbeTimeout <= 0 {
		return DefaultProbeTimeout
	}
	return o.ProbeTimeout
}

// withDefaults fills what a zero Options leaves open.
func (o Options) withDefaults() Options {
	if o.Context == "" {
		o.Context = "auto"
	}
	return o
}

// withDeadline bounds ctx by the run's deadline, with ErrDeadline as its
// cause.
func (o Options) withDeadline(ctx context.Context) (context.Context, context.CancelFunc) {
	d := o.RunDeadline()
	return context.WithTimeoutCause(ctx, d, fmt.Errorf("%w (%s)", ErrDeadline, d))
}

// runProbeTimeouts: see RunDeadline (6 minutes with the default 5 s).
const runProbeTimeouts = 60

// Validate rejects options a person can get wrong: an unknown context or
// check, a window or timeout that is not positive. It is the one place
// these are checked; the CLI reports its error as is.
func (o Options) Validate() error {
	if err := OneOf("--context", o.Context, Contexts()); err != nil {
		return err
	}
	// Zero is "the default" (no window, the default timeouts); a negative
	// duration is a mistake.
	for _, d := range []struct {
		flag string
		v    time.Duration
	}{{"--probe-timeout", o.ProbeTimeout}, {"--deadline", o.Deadline}} {
		if d.v != 0 {
			if err := Positive(d.flag, d.v); err != nil {
				return err
			}
		}
	}
	// --sample 0 is no window at all (the instant check).
	if o.Sample < 0 || o.LiveWindow < 0 {
		return fmt.Errorf("--sample %s: must be 0 (no window) or longer (e.g. 5s)", min(o.Sample, o.LiveWindow))
	}
	if o.Root != "" && o.Snapshot != "" {
		return errors.New("--root and --snapshot exclude each other")
	}
	if o.HostRoot != "" && (o.Root != "" || o.Snapshot != "") {
		// A recording runs no commands; a host root is live.
		return errors.New("--host-root examines a live host; it excludes --root and --snapshot (recordings)")
	}
	return CheckNames(o.Disabled)
}

// Positive rejects a duration a person gave that is not longer than zero
// (the CLI calls it for flags given explicitly, where 0 is a mistake, not
// the default).
func Positive(flag string, d time.Duration) error {
	if d <= 0 {
		return fmt.Errorf("%s %s: must be longer than zero (e.g. 5s)", flag, d)
	}
	return nil
}

// OneOf is the error for a value outside an enumeration, with the valid
// values and the closest one when the value looks like a typo of it.
func OneOf(flag, value string, valid []string) error {
	for _, v := range valid {
		if v == value {
			return nil
		}
	}
	msg := fmt.Sprintf("%s %q: not one of %s", flag, value, strings.Join(valid, ", "))
	if s := suggest.Closest(value, valid); s != "" {
		msg += fmt.Sprintf(" (did you mean %q?)", s)
	}
	return errors.New(msg)
}

// CheckNames rejects names that are not checks.
func CheckNames(names []string) error {
	var all []string
	for _, c := range checks.All() {
		all = append(all, c.Name)
	}
	for _, n := range names {
		if err := OneOf("--disable-check", n, all); err != nil {
			return err
		}
	}
	return nil
}

// Result is one run of the pipeline: the judged report, and the checks'
// observations it was judged from (diff compares their host facts).
type Result struct {
	Report *rules.Report
	Checks *checks.Result
}

// Examine opens the machine the options name (Host, Root, Snapshot, or
// this machine) and runs the pipeline on it.
func Examine(ctx context.Context, o Options) (*rules.Report, error) {
	o = o.withDefaults()
	if err := o.Validate(); err != nil {
		return nil, err
	}
	// The deadline covers unpacking a snapshot too; Run's own, the same
	// length and started later, never ends first.
	ctx, cancel := o.withDeadline(ctx)
	defer cancel()
	host, label, cleanup, err := Open(ctx, o)
	if err != nil {
		return nil, err
	}
	defer cleanup()
	if o.Label == "" {
		o.Label = label
	}
	res, err := Run(ctx, host, o)
	if err != nil {
		return nil, err
	}
	return res.Report, nil
}

// Run is the pipeline, the only one: the checks on host, then the rules
// with the datasheets built in, the host's own (/etc/diskdoctor/
// datasheets.d) and the user's file. Options.Host, Root and Snapshot are
// not used: the caller opened host (Open). snapshot, diff and bench call
// Run, so that a recorded, compared or benchmarked machine is judged as
// the doctor judges it.
func Run(ctx context.Context, host *machine.Host, o Options) (*Result, error) {
	o = o.withDefaults()
	if err := o.Validate(); err != nil {
		return nil, err
	}
	ctx, cancel := o.withDeadline(ctx)
	defer func() {
		// Every program still running is killed (its context ends) and
		// waited for before the run returns (Host.WaitCommands).
		cancel()
		host.WaitCommands(commandsGrace)
	}()
	label := o.Label
	if label == "" {
		label = "/"
	}
	// The rules and datasheets load while the checks run: the datasheets
	// are read through the same Host. An error there ends the checks and
	// is the run's error, as when it came first.
	engc := make(chan loadedEngine, 1)
	checksCtx, cancelChecks := context.WithCancelCause(ctx)
	defer cancelChecks(nil)
	go func() {
		l := loadEngine(ctx, host, o)
		if l.err != nil || l.panicV != nil {
			cancelChecks(errEngineFailed)
		}
		engc <- l
	}()
	res, err := checks.Run(checksCtx, host, checks.Options{
		ProbeTimeout: o.ProbeTimeout, Devices: o.Devices, Disabled: o.Disabled,
		Context: o.Context, Sample: o.Sample, LiveWindow: o.LiveWindow, Progress: o.Progress,
	})
	l := <-engc
	if l.panicV != nil {
		panic(l.panicV) // in the caller's goroutine
	}
	if l.err != nil {
		return nil, l.err
	}
	engine := l.engine
	engine.Strict = o.Strict
	if ierr := Interrupted(ctx); ierr != nil {
		return nil, ierr // what failed, failed because the run ended
	}
	if err != nil {
		return nil, err
	}
	if err := namedDevicesExist(o.Devices, res.Devices); err != nil {
		return nil, err
	}
	rep, err := engine.Build(res, label)
	if err != nil {
		return nil, err
	}
	return &Result{Report: rep, Checks: res}, nil
}

// commandsGrace bounds the wait for killed programs at the end of a run:
// a program is killed at once (SIGKILL to its group), and its pipes are
// let go a second after (machine's WaitDelay).
const commandsGrace = 2 * time.Second

// loadedEngine is the rules engine with the run's datasheets, or why it
// could not be made.
type loadedEngine struct {
	engine *rules.Engine
	err    error
	panicV any
}

// errEngineFailed ends the checks when the engine they would feed could
// not be made.
var errEngineFailed = errors.New("the rules could not be loaded")

func loadEngine(ctx context.Context, host *machine.Host, o Options) (l loadedEngine) {
	defer func() { l.panicV = recover() }()
	ds, err := rules.LoadHostDatasheets(ctx, host, o.Datasheets)
	if err != nil {
		l.err = fmt.Errorf("datasheets: %w", err)
		return l
	}
	l.engine, l.err = rules.NewSiteEngine(ctx, host, ds, o.Config)
	return l
}

// Interrupted is the reason a run's context ended (SIGINT, the deadline),
// or nil while it lives: checks that were cut short return partial
// observations, and a report made of them must not be mistaken for a
// verdict.
func Interrupted(ctx context.Context) error {
	if ctx.Err() == nil {
		return nil
	}
	if cause := context.Cause(ctx); cause != nil && !errors.Is(cause, context.Canceled) {
		return cause
	}
	return ErrInterrupted
}

// ErrInterrupted is a run stopped before it could judge (Ctrl-C, SIGTERM).
var ErrInterrupted = errors.New("interrupted before the examination was complete")

// Open opens the machine the options name, with the label a report gives
// it and the function that releases it: Host as given (labelled Label, or
// "/"), the snapshot archive Snapshot unpacked into a private directory,
// the recorded machine Root, the live host mounted at HostRoot, or else
// this machine. A recorded machine's command manifest is parsed in the background; Run waits for it.
func Open(ctx context.Context, o Options) (*machine.Host, string, func(), error) {
	nothing := func() {}
	switch {
	case o.Host != nil:
		label := o.Label
		if label == "" {
			label = "/"
		}
		return o.Host, label, nothing, nil
	case o.Snapshot != "":
		dir, cleanup, err := archive.Open(ctx, o.Snapshot)
		if err != nil {
			return nil, "", nil, err
		}
		h, err := machine.Recorded(dir)
		if err != nil {
			cleanup()
			return nil, "", nil, fmt.Errorf("snapshot %s: %w", o.Snapshot, err)
		}
		return h, o.Snapshot, cleanup, nil
	case o.Root != "":
		h, err := machine.Recorded(o.Root)
		if err != nil {
			if errors.Is(err, machine.ErrRecordingIsAFile) {
				return nil, "", nil, fmt.Errorf("%w: --root takes a recorded machine's directory, --snapshot a snapshot archive", err)
			}
			return nil, "", nil, err
		}
		return h, o.Root, nothing, nil
	case o.HostRoot != "":
		h, err := machine.HostRoot(o.HostRoot)
		if err != nil {
			return nil, "", nil, err
		}
		return h, h.Root(), nothing, nil
	}
	return machine.Live(), "/", nothing, nil
}

func namedDevicesExist(named []string, devs []*block.Device) error {
	have := map[string]bool{}
	var names []string
	for _, d := range devs {
		have[d.Name] = true
		names = append(names, d.Name)
	}
	for _, n := range named {
		if !have[strings.TrimPrefix(n, "/dev/")] {
			msg := fmt.Sprintf("--device %s: no such block device in /sys/block", n)
			if s := suggest.Closest(strings.TrimPrefix(n, "/dev/"), names); s != "" {
				msg += fmt.Sprintf(" (did you mean %q?)", s)
			}
			return errors.New(msg)
		}
	}
	return nil
}
