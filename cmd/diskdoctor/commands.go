package main

import (
	"errors"
	"fmt"

	"github.com/spf13/cobra"
	"go.yaml.in/yaml/v3"

	"github.com/diskdoctor/diskdoctor/checks"
	"github.com/diskdoctor/diskdoctor/doctor"
	"github.com/diskdoctor/diskdoctor/report"
	"github.com/diskdoctor/diskdoctor/rules"
)

func newRulesCmd() *cobra.Command {
	var markdown bool
	var root string
	var text textLayout
	cmd := &cobra.Command{
		Use:   "rules",
		Short: "List the rules the doctor judges by, built-in and the site's own",
		Long: `rules lists every rule: the built-in ones, then the site's own from
/etc/diskdoctor/rules.d (with --root, the recorded machine's), each under the
file it came from. --markdown prints the built-in rules' reference
(docs/rules.md).`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if markdown {
				rs, err := rules.Load()
				if err != nil {
					return err
				}
				fmt.Fprint(cmd.OutOrStdout(), rules.Markdown(rs))
				return nil
			}
			w, err := text.width(cmd)
			if err != nil {
				return err
			}
			rs, err := siteRules(cmd, root)
			if err != nil {
				return err
			}
			return report.Rules(cmd.OutOrStdout(), rs, w)
		},
	}
	textFlags(cmd, &text)
	cmd.Flags().BoolVar(&markdown, "markdown", false, "print the built-in rules' reference as Markdown (docs/rules.md)")
	cmd.Flags().StringVar(&root, "root", "", "list a recorded machine's own rules (its etc/diskdoctor/rules.d) instead of this machine's")
	return cmd
}

// textLayout is --width and --color of a subcommand that prints text for a
// person; the colour flag is there on every such subcommand so that one
// habit (--color never in a script) works on each, and it colours only
// what has colour (explain's headings).
type textLayout struct {
	cols  int
	color string
}

func textFlags(cmd *cobra.Command, t *textLayout) {
	cmd.Flags().IntVar(&t.cols, "width", 0, "lay the text out for this many columns (default: the terminal's, 80 when not a terminal)")
	cmd.Flags().StringVar(&t.color, "color", "auto", "colour: auto (terminal and no NO_COLOR), always, never")
}

// width is the width to lay text out for: --width, else the terminal's,
// else report.DefaultWidth; --width below report.MinWidth is refused, as
// the main command refuses it, and so is an unknown --color.
func (t textLayout) width(cmd *cobra.Command) (int, error) {
	if err := doctor.OneOf("--color", t.color, report.ColorModes()); err != nil {
		return 0, err
	}
	cols := t.cols
	if cols != 0 && cols < report.MinWidth {
		return 0, fmt.Errorf("--width %d: at least %d columns", cols, report.MinWidth)
	}
	if cols == 0 {
		cols = report.TerminalWidth(cmd.OutOrStdout())
	}
	if cols == 0 {
		cols = report.DefaultWidth
	}
	return cols, nil
}

// siteRules are doctor.Rules, each refused site rule file named on stderr.
func siteRules(cmd *cobra.Command, root string) ([]*rules.Rule, error) {
	rs, refused, err := doctor.Rules(cmd.Context(), root)
	for _, s := range refused {
		fmt.Fprintf(cmd.ErrOrStderr(), "diskdoctor: %s (%s)\n", s.Reason, s.Hint)
	}
	return rs, err
}

func newExplainCmd() *cobra.Command {
	var format, root string
	var text textLayout
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
		ValidArgsFunction: func(cmd *cobra.Command, _ []string, _ string) ([]string, cobra.ShellCompDirective) {
			rs, _ := siteRules(cmd, root)
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
			rs, err := siteRules(cmd, root)
			if err != nil {
				return err
			}
			r, err := doctor.FindRule(rs, args[0])
			if err != nil {
				return err
			}
			if format == "yaml" {
				enc := yaml.NewEncoder(cmd.OutOrStdout())
				enc.SetIndent(2)
				return enc.Encode(r)
			}
			w, err := text.width(cmd)
			if err != nil {
				return err
			}
			return report.Explain(cmd.OutOrStdout(), r, w, report.ColorWanted(text.color, cmd.OutOrStdout()))
		},
	}
	cmd.Flags().StringVarP(&format, "format", "f", "text", "text (for people) or yaml (the rule's definition)")
	textFlags(cmd, &text)
	cmd.Flags().StringVar(&root, "root", "", "find the rule among a recorded machine's own rules too (its etc/diskdoctor/rules.d)")
	return cmd
}

func newChecksCmd() *cobra.Command {
	var text textLayout
	cmd := &cobra.Command{
		Use:   "checks",
		Short: "List the checks (what the doctor looks at)",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			w, err := text.width(cmd)
			if err != nil {
				return err
			}
			// The name, then the description wrapped at word boundaries
			// under its own column.
			const col = 13
			for _, c := range checks.All() {
				lines := report.Wrap(c.Description, w, max(col, len(c.Name)+1), col)
				fmt.Fprintf(cmd.OutOrStdout(), "%-*s%s\n", col, c.Name, lines[0])
				for _, l := range lines[1:] {
					fmt.Fprintln(cmd.OutOrStdout(), l)
				}
			}
			return nil
		},
	}
	textFlags(cmd, &text)
	return cmd
}
