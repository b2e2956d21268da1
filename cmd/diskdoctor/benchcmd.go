package main

import (
	"errors"
	"fmt"
	"time"

	"github.com/spf13/cobra"

	"github.com/diskdoctor/diskdoctor/bench"
	render "github.com/diskdoctor/diskdoctor/report"
	"github.com/diskdoctor/diskdoctor/rules"
)

func init() { subcommands = append(subcommands, newBenchCmd) }

// benchFlags are the command line of `diskdoctor bench`, before parsing.
type benchFlags struct {
	o                bench.Options
	out              bench.Output
	runtime, size    string
	root             string
	slog             bool
	direct, buffered bool
}

func newBenchCmd() *cobra.Command {
	var fl benchFlags
	cmd := &cobra.Command{
		Use:   "bench [--fio PATH] PATH | bench --root RECORDED [PATH]",
		Short: "Benchmark the storage under PATH with fio, after the doctor says it is ready, against the datasheet",
		Long: `bench examines the machine first (the doctor, on the device under PATH) and
refuses to produce misleading numbers: it stops on critical findings and on
other processes' I/O on the same devices unless --force, and warns where
results would lie (a test file smaller than RAM or the ZFS ARC, O_DIRECT not
honoured, compression, memory-backed filesystems, a power-saving governor,
too little free space). It then drives fio with JSON output, writes
incompressible data, labels each row with the queue depth actually
achieved, and compares each figure with the device's datasheet. The test
file is removed afterwards, also on Ctrl-C, SIGTERM and SIGHUP, and test
files of runs that died are removed by the next run.

Profiles: cdm (SEQ1M Q8T1, SEQ1M Q1T1, RND4K Q32T1, RND4K Q32T16, read and
write), sync or --slog (4 KiB O_DSYNC random writes at 1/4/8/16 threads with
commit latency percentiles), sweep (random 4 KiB reads, or writes with
--write, at rising load until tail latency breaks away; reports the knee).
--steady adds sustained writes until fio's steady-state detector settles.

speedtest-hd spellings work: --runtime=10 (seconds), --size=4g, --slog,
--verbose, --direct/--buffered, --dd, --fio PATH.

Without fio (or with --dd), a dd fallback measures sequential and 4 KiB
synchronous writes and direct reads, less precisely. --dry-run prints the
fio job files and runs nothing. A raw block device is written only with
--device-write-i-know, and only when nothing uses it (it destroys the data
on it).

--root replays a recorded machine: its preflight, and its recorded fio
run with the settings it was recorded with (PATH, --size, --runtime and
--profile default to the recording's): diskdoctor bench --root
/usr/share/diskdoctor/examples/bench-vm-loop (fixtures/bench-vm-loop in
the source tree).

EXIT STATUS
  0    the bench ran
  2    refused: critical findings or competing I/O (--force runs anyway)
  3    could not run: bad arguments, no space (--force does not help), fio failed
  128+N  ended by signal N (129 SIGHUP, 130 SIGINT, 143 SIGTERM), test file removed`,
		Example: `  diskdoctor bench /srv/data
  diskdoctor bench --profile sync /tank/db          # or: --slog
  diskdoctor bench --runtime=10 --size=4g /mnt/scratch
  diskdoctor bench --profile sweep --write --max-depth 64 /mnt/scratch
  diskdoctor bench --steady --steady-max 10m --size 64GiB /mnt/scratch
  diskdoctor bench --dry-run --profile cdm /srv/data > jobs.fio
  diskdoctor bench --root /usr/share/diskdoctor/examples/bench-vm-loop    # replay a recorded run
  diskdoctor bench --root /usr/share/diskdoctor/examples/bench-vm-loop --dry-run /mnt/bench
  diskdoctor bench --format json /srv/data`,
		Args: cobra.MaximumNArgs(2),
		RunE: func(cmd *cobra.Command, args []string) error {
			path, err := fl.parse(cmd, args)
			if err != nil {
				return &bench.ExitError{Code: rules.ExitUnknown, Err: err}
			}
			// --slog gives the profile: a replay takes the others from its recording.
			changed := func(name string) bool { return cmd.Flags().Changed(name) || (name == "profile" && fl.slog) }
			return bench.Main(cmd.Context(), fl.root, path, fl.o, fl.out, changed, cmd.OutOrStdout(), cmd.ErrOrStderr())
		},
	}
	fl.define(cmd)
	return cmd
}

// define adds bench's flags to cmd, and their completions.
func (fl *benchFlags) define(cmd *cobra.Command) {
	f := cmd.Flags()
	o := &fl.o
	f.StringVar(&o.Profile, "profile", "cdm", "what to measure: cdm, sync, sweep")
	f.BoolVar(&fl.slog, "slog", false, "the sync profile (speedtest-hd's SLOG test): 4 KiB O_DSYNC writes at 1/4/8/16 threads")
	f.StringVar(&fl.runtime, "runtime", "5s", "how long each test runs: seconds (10) or a duration (5s, 1m)")
	f.StringVar(&fl.size, "size", "1GiB", "size of the test file: 4g, 512m (k/m/g/t are binary, any case), 1GiB, 10GB; bigger than RAM keeps caches out")
	f.StringVar(&o.Engine, "engine", "auto", "fio I/O engine: auto (io_uring, libaio, posixaio, psync: the first that works here), or any fio engine")
	f.StringVarP(&fl.out.Format, "format", "f", "text", "output format: text, json")
	f.BoolVar(&o.DryRun, "dry-run", false, "print the fio job files the bench would run (after the preflight, as comments), and run nothing")
	f.BoolVar(&o.Force, "force", false, "run although the doctor found critical problems or other I/O on the devices (the result says so); not when the file does not fit")
	f.BoolVar(&o.DeviceWrite, "device-write-i-know", false, "PATH is a raw block device that nothing uses: write to it, destroying its data")
	f.BoolVar(&o.Steady, "steady", false, "add sustained sequential writes until fio's steady-state detector settles (gets past SLC caches)")
	f.DurationVar(&o.SteadyMax, "steady-max", 10*time.Minute, "upper bound of the --steady run")
	f.BoolVar(&o.Write, "write", false, "sweep: random writes instead of random reads")
	f.IntVar(&o.MaxDepth, "max-depth", 256, "sweep: highest load, outstanding I/Os (queue depth × jobs; 1, 2, 4 … this)")
	f.StringVar(&o.Fio, "fio", "fio", "the fio program (--fio PATH); when it is missing a less precise dd fallback runs")
	f.Lookup("fio").NoOptDefVal = "fio" // a bare --fio does not swallow the next flag
	f.BoolVar(&o.DD, "dd", false, "use the dd fallback even when fio is installed")
	f.BoolVar(&fl.direct, "direct", true, "O_DIRECT I/O (the default where the filesystem honours it)")
	f.BoolVar(&fl.buffered, "buffered", false, "buffered I/O through the page cache (direct=0): measures the cache as much as the disk")
	f.BoolVarP(&o.Verbose, "verbose", "v", false, "print each fio command line as it runs (on a terminal, with the progress)")
	f.DurationVar(&o.PreflightWindow, "preflight-window", 2*time.Second, "watch the target's devices this long for other processes' I/O before and after the run (0: do not)")
	f.StringVar(&fl.out.Color, "color", "auto", "colour: auto, always, never")
	f.IntVar(&fl.out.Width, "width", 0, "lay the text out for this many columns (default: the terminal's, 80 when not a terminal)")
	f.StringVar(&o.Datasheets, "datasheets", "", "a YAML file of your own drive datasheets (format of rules/datasheets.yaml)")
	f.DurationVar(&o.ProbeTimeout, "probe-timeout", 5*time.Second, "how long one probe of the doctor may take")
	f.StringVar(&fl.root, "root", "", "a recorded machine (fixture or unpacked snapshot): preflight it, and replay its recorded bench run (PATH and the settings default to the recording's)")
	f.IntVar(&o.PID, "replay-pid", 0, "with --root: the PID in the recorded run's test file name, so that its fio argv match")
	_ = f.MarkHidden("replay-pid")
	_ = cmd.RegisterFlagCompletionFunc("profile", cobra.FixedCompletions(bench.Profiles(), cobra.ShellCompDirectiveNoFileComp))
	_ = cmd.RegisterFlagCompletionFunc("engine", cobra.FixedCompletions(append([]string{"auto"}, bench.Engines()...), cobra.ShellCompDirectiveNoFileComp))
	_ = cmd.RegisterFlagCompletionFunc("format", cobra.FixedCompletions([]string{"text", "json"}, cobra.ShellCompDirectiveNoFileComp))
}

// parse turns the flags into options and returns PATH. A bare --fio
// followed by a program and PATH takes the program as fio.
func (fl *benchFlags) parse(cmd *cobra.Command, args []string) (string, error) {
	f := cmd.Flags()
	path := ""
	switch {
	case len(args) > 0:
		path = args[len(args)-1]
	case fl.root == "":
		return "", errors.New("bench needs PATH: an existing directory (or mount point) on the filesystem to test, e.g. diskdoctor bench /srv/data (diskdoctor bench --help)")
	}
	if fl.out.Width != 0 && fl.out.Width < render.MinWidth {
		return "", fmt.Errorf("--width %d: at least %d columns", fl.out.Width, render.MinWidth)
	}
	if len(args) == 2 {
		if !f.Changed("fio") || fl.o.Fio != "fio" {
			return "", fmt.Errorf("one PATH, got %q and %q", args[0], args[1])
		}
		fl.o.Fio = args[0]
	}
	if fl.out.Format != "text" && fl.out.Format != "json" {
		return "", fmt.Errorf("unknown --format %q (text, json)", fl.out.Format)
	}
	var err error
	if fl.o.Runtime, err = bench.ParseRuntime(fl.runtime); err != nil {
		return "", err
	}
	if fl.o.Size, err = bench.ParseSize(fl.size); err != nil {
		return "", err
	}
	if fl.slog {
		if f.Changed("profile") && fl.o.Profile != "sync" {
			return "", fmt.Errorf("--slog is --profile sync, not %s", fl.o.Profile)
		}
		fl.o.Profile = "sync"
	}
	if fl.buffered && f.Changed("direct") && fl.direct {
		return "", errors.New("--direct and --buffered exclude each other")
	}
	fl.o.Buffered = fl.buffered || !fl.direct
	return path, nil
}
