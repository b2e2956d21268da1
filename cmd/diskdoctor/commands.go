package main

import (
	"errors"
	"fmt"

	"github.com/spf13/cobra"
	"go.yaml.in/yaml/v3"

	"github.com/diskdoctor/diskdoctor/checks"
	"github.com/diskdoctor/diskdoctor/doctor"
	"github.com/diskdoctor/diskdoctor/internal/suggest"
	"github.com/diskdoctor/diskdoctor/report"
	"github.com/diskdoctor/diskdoctor/rules"
)

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
			return report.Rules(cmd.OutOrStdout(), rs, report.TerminalWidth(cmd.OutOrStdout()))
		},
	}
	cmd.Flags().BoolVar(&markdown, "markdown", false, "print the rule reference as Markdown (docs/rules.md)")
	return cmd
}

func newExplainCmd() *cobra.Command {
	var format string
	var cols int
	cmd := &cobra.Command{
		Use:   "explain RULE-ID",
		Short: "Explain one rule: why it matters, when it holds, what to do",
		Long: `explain prints one rule for a person: what it is about, why it matters,
when it holds, what it reads and what to do, the commands as a report prints
them with the device's values as placeholders. --format yaml prints the
rule's definition as the engine runs it (rules/defs/RULE-ID.yaml).`,
		Example: `  diskdoctor explain write-cache-disabled
  diskdoctor explain write-cache-disabled --format yaml`,
		Args: func(_ *cobra.Command, args []string) error {
			if len(args) != 1 {
				return errors.New("explain needs one rule id: explain RULE-ID; 'diskdoctor rules' lists them")
			}
			return nil
		},
		ValidArgsFunction: func(*cobra.Command, []string, string) ([]string, cobra.ShellCompDirective) {
			rs, _ := rules.Load()
			var ids []string
			for _, r := range rs {
				ids = append(ids, r.ID)
			}
			return ids, cobra.ShellCompDirectiveNoFileComp
		},
		RunE: func(cmd *cobra.Command, args []string) error {
			if err := doctor.OneOf("--format", format, []string{"text", "yaml"}); err != nil {
				return err
			}
			rs, err := rules.Load()
			if err != nil {
				return err
			}
			var ids []string
			for _, r := range rs {
				if r.ID != args[0] {
					ids = append(ids, r.ID)
					continue
				}
				if format == "yaml" {
					enc := yaml.NewEncoder(cmd.OutOrStdout())
					enc.SetIndent(2)
					return enc.Encode(r)
				}
				w := cols
				if w == 0 {
					w = report.TerminalWidth(cmd.OutOrStdout())
				}
				return report.Explain(cmd.OutOrStdout(), r, w, report.ColorWanted("auto", cmd.OutOrStdout()))
			}
			msg := fmt.Sprintf("no rule %q (see 'diskdoctor rules')", args[0])
			if s := suggest.Closest(args[0], ids); s != "" {
				msg += fmt.Sprintf("; did you mean %q?", s)
			}
			return errors.New(msg)
		},
	}
	cmd.Flags().StringVarP(&format, "format", "f", "text", "text (for people) or yaml (the rule's definition)")
	cmd.Flags().IntVar(&cols, "width", 0, "lay the text out for this many columns (default: the terminal's, 80 when piped)")
	return cmd
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
