package main

import (
	"errors"
	"fmt"

	"github.com/spf13/cobra"

	"github.com/diskdoctor/diskdoctor/checks"
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
