package main

import (
	"fmt"
	"time"

	"github.com/spf13/cobra"

	"github.com/diskdoctor/diskdoctor/diff"
	"github.com/diskdoctor/diskdoctor/rules"
)

func init() {
	subcommands = append(subcommands, newDiffCmd)
}

func newDiffCmd() *cobra.Command {
	var (
		o      diff.Options
		format string
		text   textLayout
	)
	cmd := &cobra.Command{
		Use:   "diff OLD NEW",
		Short: "Compare two states of a machine: facts that changed, findings that appeared or resolved",
		Long: `diff examines two states of a machine, each a snapshot archive, a recorded
machine directory, or 'live' (this machine now), and prints what changed in
the facts that matter for storage (kernel, BIOS, firmware, scheduler, write
cache, PCIe link speed and width, governor, trim regime, mount options,
SMART counters that grew) and which findings appeared, resolved or changed
severity. Volatile facts (CPU clock and pressure averages) are not compared.

Exit status: 0 nothing got worse, 1 something got worse (a new finding or a
higher severity), 3 a side could not be examined.`,
		Example: `  diskdoctor snapshot -o before.tar.gz     # before the upgrade
  diskdoctor diff before.tar.gz live       # after it
  diskdoctor diff fixtures/upgrade-before fixtures/upgrade-after --format json`,
		Args: func(_ *cobra.Command, args []string) error {
			if len(args) != 2 {
				return fmt.Errorf("diff needs two snapshot archives (or recorded machine directories), %d given: diff OLD NEW; 'diskdoctor snapshot' writes one", len(args))
			}
			return nil
		},
		RunE: func(cmd *cobra.Command, args []string) error {
			if format != "text" && format != "json" {
				return fmt.Errorf("unknown --format %q (text, json)", format)
			}
			width, err := text.width(cmd)
			if err != nil {
				return err
			}
			d, err := diff.Sides(cmd.Context(), args[0], args[1], o)
			if err != nil {
				return err
			}
			if format == "json" {
				if err := d.WriteJSON(cmd.OutOrStdout()); err != nil {
					return err
				}
			} else {
				d.WriteText(cmd.OutOrStdout(), width)
			}
			if d.Worse {
				return exitStatus(rules.ExitWarning)
			}
			return nil
		},
	}
	f := cmd.Flags()
	f.StringVarP(&format, "format", "f", "text", "output format: text, json")
	textFlags(cmd, &text)
	f.DurationVar(&o.ProbeTimeout, "probe-timeout", 5*time.Second, "how long one probe (a file read or a command) may take")
	f.StringVar(&o.Datasheets, "datasheets", "", "a YAML file of your own drive datasheets")
	f.StringVar(&o.Context, "context", "auto", "what the machine is for: auto, server, desktop, laptop, vm, benchmark")
	_ = cmd.RegisterFlagCompletionFunc("format", cobra.FixedCompletions([]string{"text", "json"}, cobra.ShellCompDirectiveNoFileComp))
	return cmd
}
