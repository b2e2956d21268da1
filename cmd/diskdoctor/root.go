package main

import (
	"context"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/diskdoctor/diskdoctor/checks"
	"github.com/diskdoctor/diskdoctor/doctor"
	"github.com/diskdoctor/diskdoctor/internal/clidoc"
	"github.com/diskdoctor/diskdoctor/report"
	"github.com/diskdoctor/diskdoctor/rules"
)

// options are the root command's flags: the doctor's options and how the
// report is shown.
type options struct {
	doctor.Options
	format  string
	color   string
	width   int  // --width; 0: the terminal's, 80 when not a terminal
	verbose bool // -v: every finding in full
	output  string
}

// subcommands is the registry of subcommands, filled at init() by the file
// of each.
var subcommands []func() *cobra.Command

func newRootCmd(exit *int) *cobra.Command {
	var o options
	cmd := &cobra.Command{
		Use:   "diskdoctor",
		Short: "Diagnose Linux storage: ranked findings with the commands that fix them",
		Long: `diskdoctor reads sysfs, procfs, udev's database, the kernel log and drive
state (hdparm), compares what it sees with the drives' datasheets, and prints
ranked findings: evidence, expected value, impact, and remediation commands
labelled by risk. It never changes the machine.`,
		Example: `  diskdoctor                          # this machine
  diskdoctor --format json            # the diskdoctor/v1 JSON contract
  diskdoctor --format json -o /var/lib/diskdoctor/report.json
  diskdoctor --root /usr/share/diskdoctor/examples/hpe-microserver-writethrough
  diskdoctor --host-root /host        # from a container, the host mounted at /host
  diskdoctor --device loop0 --format json
  diskdoctor --sample 5s              # "the disk is slow": measure, then explain
  diskdoctor --format prometheus -o /var/lib/prometheus/node-exporter/diskdoctor.prom
  diskdoctor --format nagios          # a monitoring plugin: one status line, exit 0/1/2/3
  diskdoctor --format npd             # a node-problem-detector plugin: one line of <= 80 bytes, exit 0/1/2`,
		Version:       versionText(),
		SilenceUsage:  true,
		SilenceErrors: true,
		Args:          clidoc.UnknownCommand,
		RunE: func(cmd *cobra.Command, _ []string) error {
			// --sample 0 opts out of the default window.
			if !cmd.Flags().Changed("sample") {
				o.LiveWindow = doctor.DefaultLiveWindow
			}
			if err := validateFlags(cmd, o); err != nil {
				return err
			}
			code, err := runDoctor(cmd.Context(), o, cmd.OutOrStdout(), cmd.ErrOrStderr())
			*exit = code
			return err
		},
	}
	f := cmd.Flags()
	f.StringVar(&o.Root, "root", "", "examine a recorded machine (a fixture or unpacked snapshot directory) instead of this one")
	f.StringVar(&o.HostRoot, "host-root", "", "examine the live host whose root filesystem is mounted at this directory (from a container: -v /:/host:ro, --host-root /host); its programs run chrooted into it")
	f.StringVar(&o.Snapshot, "snapshot", "", "examine a snapshot archive written by 'diskdoctor snapshot' instead of this machine")
	f.StringVarP(&o.format, "format", "f", "text", "output format: "+strings.Join(report.Formats(), ", "))
	f.StringVarP(&o.output, "output", "o", "", "write the report to this file (atomically: a temporary file renamed into place) instead of standard output")
	f.StringSliceVarP(&o.Devices, "device", "d", nil, "judge only these devices (name or /dev/name; virtual devices included when named)")
	f.DurationVar(&o.ProbeTimeout, "probe-timeout", doctor.DefaultProbeTimeout, "how long one probe (a file read or a command) may take")
	f.DurationVar(&o.Deadline, "deadline", 0, "how long the whole run may take (default: the sampling window plus 60 probe timeouts plus 1m)")
	f.DurationVar(&o.Sample, "sample", 0, "watch the machine for this long (e.g. 5s) like iostat -x, iotop and PSI together, and judge what the devices do against their datasheets; a recorded machine replays its recorded window (default: a 1s window on this machine, none on a recorded one; 0: no window, the instant check)")
	f.StringVar(&o.Datasheets, "datasheets", "", "a YAML file of your own drive datasheets (same format as rules/datasheets.yaml); its models take precedence")
	f.StringVar(&o.Config, "config", "", "a site configuration file (waivers, severities) instead of the examined machine's /etc/diskdoctor/diskdoctor.yaml")
	f.StringVar(&o.Context, "context", "auto", "what the machine is for: "+strings.Join(doctor.Contexts(), ", ")+" (decides how much a power-saving governor matters)")
	f.StringSliceVar(&o.Disabled, "disable-check", nil, "checks not to run (see 'diskdoctor checks')")
	f.StringVar(&o.color, "color", "auto", "colour: auto (terminal and no NO_COLOR), always, never")
	f.IntVar(&o.width, "width", 0, "lay the text report out for this many columns (default: the terminal's, 80 when not a terminal)")
	f.BoolVarP(&o.verbose, "verbose", "v", false, "text: every finding in full (evidence, notes, every fix)")
	_ = cmd.RegisterFlagCompletionFunc("format", cobra.FixedCompletions(report.Formats(), cobra.ShellCompDirectiveNoFileComp))
	_ = cmd.RegisterFlagCompletionFunc("context", cobra.FixedCompletions(doctor.Contexts(), cobra.ShellCompDirectiveNoFileComp))
	_ = cmd.RegisterFlagCompletionFunc("color", cobra.FixedCompletions(report.ColorModes(), cobra.ShellCompDirectiveNoFileComp))
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
	// help and completion are added at Execute; add them now so that they
	// get their EXIT STATUS too.
	cmd.InitDefaultHelpCmd()
	cmd.InitDefaultCompletionCmd()
	clidoc.AddExitStatusHelp(cmd)
	// Subcommands inherit it (cobra looks the function up the parents).
	cmd.SetFlagErrorFunc(clidoc.SuggestFlag)
	return cmd
}

// validateFlags rejects what a person can get wrong before anything runs:
// the enumerations, and durations given explicitly as zero or less. The
// rest (contexts, checks, negative durations) is doctor.Options.Validate.
func validateFlags(cmd *cobra.Command, o options) error {
	if err := doctor.OneOf("--format", o.format, report.Formats()); err != nil {
		return err
	}
	if err := doctor.OneOf("--color", o.color, report.ColorModes()); err != nil {
		return err
	}
	if o.width != 0 && o.width < report.MinWidth {
		return fmt.Errorf("--width %d: at least %d columns", o.width, report.MinWidth)
	}
	// --sample 0 is the opt-out of the default window, not a mistake.
	for _, name := range []string{"probe-timeout", "deadline"} {
		if fl := cmd.Flags().Lookup(name); fl.Changed {
			d, _ := cmd.Flags().GetDuration(name)
			if err := doctor.Positive("--"+name, d); err != nil {
				return err
			}
		}
	}
	return o.Validate()
}

// examine is doctor.Examine for the root command's options.
func examine(ctx context.Context, o options) (*rules.Report, error) {
	if o.format != "" {
		if err := doctor.OneOf("--format", o.format, report.Formats()); err != nil {
			return nil, err
		}
	}
	return doctor.Examine(ctx, o.Options)
}

// runDoctor examines, renders and returns the exit status.
func runDoctor(ctx context.Context, o options, stdout, stderr io.Writer) (int, error) {
	start := time.Now()
	clearProgress := func() {}
	if o.Sample > 0 && o.format == "text" && report.IsTerminal(stderr) {
		o.Progress = report.SampleProgress(stderr, o.Sample)
		clearProgress = func() { report.ClearLine(stderr) }
	}
	rep, err := examine(ctx, o)
	// The report must not start on the progress line.
	clearProgress()
	if err != nil {
		// run writes the failure in the format's form (a monitoring
		// plugin's UNKNOWN line, a JSON document, diskdoctor_up 0).
		return rules.ExitUnknown, examineError{err}
	}
	run := report.RunInfo{Start: start, Duration: time.Since(start), Tool: tool(), Color: o.output == "" && report.ColorWanted(o.color, stdout), Verbose: o.verbose, Width: o.width}
	if run.Width == 0 && o.output == "" {
		run.Width = report.TerminalWidth(stdout)
	}
	if err := report.Emit(stdout, o.output, o.format, rep, run); err != nil {
		return rules.ExitUnknown, examineError{err}
	}
	return rep.ExitCode(), nil
}
