// Command diskdoctor examines a Linux machine's storage — drive write
// caches, TRIM, PCIe links, CPU power states, I/O pressure — compares what it
// sees with the drives' datasheets, and prints ranked findings with the
// commands that fix them. It only reads; it never changes the machine.
package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"path/filepath"
	"sort"
	"strings"
	"syscall"
	"time"

	"github.com/spf13/cobra"

	"github.com/diskdoctor/diskdoctor/checks"
	"github.com/diskdoctor/diskdoctor/probes"
	"github.com/diskdoctor/diskdoctor/rules"
	"github.com/diskdoctor/diskdoctor/snapshot"
)

// version is set at build time with -ldflags "-X main.version=...".
var version = "0.1.0-dev"

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	code := run(ctx, os.Args[1:], os.Stdout, os.Stderr)
	stop()
	os.Exit(code)
}

// run is main without the process: tests call it directly.
func run(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	exit := rules.ExitOK
	root := newRootCmd(&exit)
	root.SetArgs(args)
	root.SetOut(stdout)
	root.SetErr(stderr)
	if err := root.ExecuteContext(ctx); err != nil {
		if msg := err.Error(); msg != "" {
			fmt.Fprintln(stderr, "diskdoctor:", msg)
		}
		// A subcommand may end with a verdict of its own (bench refusing on
		// a critical finding exits 2).
		var ec interface{ ExitCode() int }
		if errors.As(err, &ec) {
			return ec.ExitCode()
		}
		return rules.ExitUnknown
	}
	return exit
}

// exitStatus ends a subcommand with a status that is a verdict, not a
// failure (diff: something got worse).
type exitStatus int

func (e exitStatus) Error() string { return "" }
func (e exitStatus) ExitCode() int { return int(e) }

type options struct {
	root         string
	snapshot     string // --snapshot: a snapshot archive, unpacked privately for the run
	format       string
	devices      []string
	probeTimeout time.Duration
	datasheets   string
	context      string
	disable      []string
	color        string
	output       string
	sample       time.Duration
	progress     func(elapsed time.Duration) // the sampling window's progress line, on a terminal
	strict       bool                        // tests: a rule that cannot be evaluated is an error
}

func newRootCmd(exit *int) *cobra.Command {
	var o options
	cmd := &cobra.Command{
		Use:   "diskdoctor",
		Short: "Diagnose Linux storage: ranked findings with the commands that fix them",
		Long: `diskdoctor reads sysfs, procfs, udev's database, the kernel log and drive
state (hdparm), compares what it sees with the drives' datasheets, and prints
ranked findings: evidence, expected value, impact, and remediation commands
labelled by risk. It never changes the machine.

Exit status: 0 no warning or critical finding, 1 warning, 2 critical,
3 the machine could not be examined (bad root, bad arguments).`,
		Example: `  diskdoctor                          # this machine
  diskdoctor --format json            # the diskdoctor/v1 JSON contract
  diskdoctor --format json -o /var/lib/diskdoctor/report.json
  diskdoctor --root fixtures/hpe-microserver-writethrough
  diskdoctor --device loop0 --format json
  diskdoctor --sample 5s              # "the disk is slow": measure, then explain
  diskdoctor --format prometheus -o /var/lib/prometheus/node-exporter/diskdoctor.prom
  diskdoctor --format nagios          # a monitoring plugin: one status line, exit 0/1/2/3`,
		Version:       version,
		SilenceUsage:  true,
		SilenceErrors: true,
		Args:          cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			code, err := doctor(cmd.Context(), o, cmd.OutOrStdout(), cmd.ErrOrStderr())
			*exit = code
			return err
		},
	}
	f := cmd.Flags()
	f.StringVar(&o.root, "root", "", "examine a recorded machine (a fixture or unpacked snapshot directory) instead of this one")
	f.StringVar(&o.snapshot, "snapshot", "", "examine a snapshot archive written by 'diskdoctor snapshot' instead of this machine")
	f.StringVarP(&o.format, "format", "f", "text", "output format: "+strings.Join(formatNames(), ", "))
	f.StringVarP(&o.output, "output", "o", "", "write the report to this file (atomically: a temporary file renamed into place) instead of standard output")
	f.StringSliceVarP(&o.devices, "device", "d", nil, "judge only these devices (name or /dev/name; virtual devices included when named)")
	f.DurationVar(&o.probeTimeout, "probe-timeout", 5*time.Second, "how long one probe (a file read or a command) may take")
	f.DurationVar(&o.sample, "sample", 0, "watch the machine for this long (e.g. 5s) like iostat -x, iotop and PSI together, and judge what the devices do against their datasheets; a recorded machine replays its recorded window")
	f.StringVar(&o.datasheets, "datasheets", "", "a YAML file of your own drive datasheets (same format as rules/datasheets.yaml); its models take precedence")
	f.StringVar(&o.context, "context", "auto", "what the machine is for: auto, server, desktop, laptop, vm, benchmark (decides how much a power-saving governor matters)")
	f.StringSliceVar(&o.disable, "disable-check", nil, "checks not to run (see 'diskdoctor checks')")
	f.StringVar(&o.color, "color", "auto", "colour: auto (terminal and no NO_COLOR), always, never")
	_ = cmd.RegisterFlagCompletionFunc("format", cobra.FixedCompletions(formatNames(), cobra.ShellCompDirectiveNoFileComp))
	_ = cmd.RegisterFlagCompletionFunc("context", cobra.FixedCompletions([]string{"auto", "server", "desktop", "laptop", "vm", "benchmark"}, cobra.ShellCompDirectiveNoFileComp))
	_ = cmd.RegisterFlagCompletionFunc("disable-check", func(*cobra.Command, []string, string) ([]string, cobra.ShellCompDirective) {
		var names []string
		for _, c := range checks.All() {
			names = append(names, c.Name+"\t"+c.Description)
		}
		return names, cobra.ShellCompDirectiveNoFileComp
	})
	cmd.AddCommand(newRulesCmd(), newExplainCmd(), newChecksCmd())
	for _, sub := range subcommands {
		cmd.AddCommand(sub())
	}
	return cmd
}

// Renderer writes a report in one output format.
type Renderer func(w io.Writer, rep *rules.Report, run RunInfo) error

// RunInfo is what a renderer may need beyond the report.
type RunInfo struct {
	Start    time.Time
	Duration time.Duration
	Color    bool
}

// formats and subcommands are registries filled at init() by the file of
// each output format and subcommand.
var (
	formats     = map[string]Renderer{}
	subcommands []func() *cobra.Command
)

func registerFormat(name string, r Renderer) {
	if _, dup := formats[name]; dup {
		panic("duplicate format " + name)
	}
	formats[name] = r
}

func formatNames() []string {
	names := make([]string, 0, len(formats))
	for n := range formats {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}

func init() {
	registerFormat("text", func(w io.Writer, rep *rules.Report, run RunInfo) error {
		renderText(w, rep, run.Color)
		return nil
	})
	registerFormat("json", func(w io.Writer, rep *rules.Report, _ RunInfo) error {
		enc := json.NewEncoder(w)
		enc.SetIndent("", "  ")
		return enc.Encode(rep)
	})
}

func doctor(ctx context.Context, o options, stdout, stderr io.Writer) (int, error) {
	start := time.Now()
	if o.sample > 0 && o.format == "text" && isTerminal(stderr) {
		o.progress = progressLine(stderr, o.sample)
		defer fmt.Fprint(stderr, "\r\033[K")
	}
	rep, err := examine(ctx, o)
	if err != nil {
		// A monitoring plugin must say UNKNOWN on its one line of output.
		if o.format == "nagios" && o.output == "" {
			fmt.Fprintf(stdout, "DISKDOCTOR UNKNOWN - %s\n", nagiosText(err.Error()))
		}
		return rules.ExitUnknown, err
	}
	run := RunInfo{Start: start, Duration: time.Since(start), Color: o.output == "" && colorWanted(o.color, stdout)}
	if o.output == "" {
		if err := formats[o.format](stdout, rep, run); err != nil {
			return rules.ExitUnknown, err
		}
		return rep.ExitCode(), nil
	}
	if err := writeAtomically(o.output, 0o644, func(w io.Writer) error { return formats[o.format](w, rep, run) }); err != nil {
		return rules.ExitUnknown, err
	}
	return rep.ExitCode(), nil
}

// writeAtomically writes a temporary file beside path and renames it over
// path, so a reader (a node_exporter scrape) never sees half a file.
func writeAtomically(path string, mode os.FileMode, write func(io.Writer) error) error {
	f, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".*")
	if err != nil {
		return err
	}
	defer os.Remove(f.Name())
	if err := write(f); err != nil {
		f.Close()
		return err
	}
	if err := f.Chmod(mode); err != nil {
		f.Close()
		return err
	}
	if err := f.Close(); err != nil {
		return err
	}
	return os.Rename(f.Name(), path)
}

// examine runs the whole pipeline: host, checks, rules.
func examine(ctx context.Context, o options) (*rules.Report, error) {
	if _, ok := formats[o.format]; !ok {
		return nil, fmt.Errorf("unknown --format %q (%s)", o.format, strings.Join(formatNames(), ", "))
	}
	if err := validCheckNames(o.disable); err != nil {
		return nil, err
	}
	host := probes.Live()
	rootLabel := "/"
	if o.root != "" {
		h, err := probes.Recorded(o.root)
		if err != nil {
			return nil, err
		}
		host, rootLabel = h, o.root
	}
	if o.snapshot != "" {
		if o.root != "" {
			return nil, errors.New("--root and --snapshot exclude each other")
		}
		dir, cleanup, err := snapshot.Open(ctx, o.snapshot)
		if err != nil {
			return nil, err
		}
		defer cleanup()
		h, err := probes.Recorded(dir)
		if err != nil {
			return nil, fmt.Errorf("snapshot %s: %w", o.snapshot, err)
		}
		host, rootLabel = h, o.snapshot
	}
	ds, err := rules.LoadDatasheets(o.datasheets)
	if err != nil {
		return nil, err
	}
	engine, err := rules.NewEngine(ds)
	if err != nil {
		return nil, err
	}
	engine.Strict = o.strict
	res, err := checks.Run(ctx, host, checks.Options{ProbeTimeout: o.probeTimeout, Devices: o.devices, Disabled: o.disable, Context: o.context, Sample: o.sample, Progress: o.progress})
	if err != nil {
		return nil, err
	}
	if err := namedDevicesExist(o.devices, res.Devices); err != nil {
		return nil, err
	}
	return engine.Build(res, rootLabel)
}

func validCheckNames(names []string) error {
	known := map[string]bool{}
	var all []string
	for _, c := range checks.All() {
		known[c.Name] = true
		all = append(all, c.Name)
	}
	for _, n := range names {
		if !known[n] {
			return fmt.Errorf("unknown check %q (known: %s)", n, strings.Join(all, ", "))
		}
	}
	return nil
}

func namedDevicesExist(named []string, devs []*probes.BlockDevice) error {
	have := map[string]bool{}
	for _, d := range devs {
		have[d.Name] = true
	}
	for _, n := range named {
		if !have[strings.TrimPrefix(n, "/dev/")] {
			return fmt.Errorf("--device %s: no such block device in /sys/block", n)
		}
	}
	return nil
}

// progressLine prints what is being sampled and the time left, in place.
func progressLine(w io.Writer, total time.Duration) func(time.Duration) {
	return func(elapsed time.Duration) {
		left := max(total-elapsed, 0).Round(100 * time.Millisecond)
		fmt.Fprintf(w, "\r\033[Ksampling /proc/diskstats, /proc/pressure, /proc/*/io: %s left of %s", left, total)
	}
}

func isTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	if !ok {
		return false
	}
	st, err := f.Stat()
	return err == nil && st.Mode()&os.ModeCharDevice != 0
}

func colorWanted(mode string, w io.Writer) bool {
	switch mode {
	case "always":
		return true
	case "never":
		return false
	}
	return os.Getenv("NO_COLOR") == "" && isTerminal(w)
}

func newRulesCmd() *cobra.Command {
	var markdown bool
	cmd := &cobra.Command{
		Use:   "rules",
		Short: "List the rules the doctor judges by",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			rs, err := rules.Load()
			if err != nil {
				return err
			}
			if markdown {
				fmt.Fprint(cmd.OutOrStdout(), rules.Markdown(rs))
				return nil
			}
			for _, r := range rs {
				fmt.Fprintf(cmd.OutOrStdout(), "%-28s %-8s %s\n", r.ID, r.Severity, r.Title)
			}
			return nil
		},
	}
	cmd.Flags().BoolVar(&markdown, "markdown", false, "print the rule reference as Markdown (docs/rules.md)")
	return cmd
}

func newExplainCmd() *cobra.Command {
	return &cobra.Command{
		Use:   "explain RULE-ID",
		Short: "Print one rule in full: why it matters, impact, remediation",
		Args:  cobra.ExactArgs(1),
		ValidArgsFunction: func(*cobra.Command, []string, string) ([]string, cobra.ShellCompDirective) {
			rs, _ := rules.Load()
			var ids []string
			for _, r := range rs {
				ids = append(ids, r.ID)
			}
			return ids, cobra.ShellCompDirectiveNoFileComp
		},
		RunE: func(cmd *cobra.Command, args []string) error {
			rs, err := rules.Load()
			if err != nil {
				return err
			}
			for _, r := range rs {
				if r.ID == args[0] {
					fmt.Fprint(cmd.OutOrStdout(), rules.MarkdownRule(r))
					return nil
				}
			}
			return errors.New("no rule " + args[0] + " (see 'diskdoctor rules')")
		},
	}
}

func newChecksCmd() *cobra.Command {
	return &cobra.Command{
		Use:   "checks",
		Short: "List the checks (what the doctor looks at)",
		Args:  cobra.NoArgs,
		Run: func(cmd *cobra.Command, _ []string) {
			for _, c := range checks.All() {
				fmt.Fprintf(cmd.OutOrStdout(), "%-12s %s\n", c.Name, c.Description)
			}
		},
	}
}
