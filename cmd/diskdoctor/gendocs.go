package main

import (
	"os"

	"github.com/spf13/cobra"

	"github.com/diskdoctor/diskdoctor/internal/clidoc"
)

// gen-docs writes the man pages and shell completions the Debian package
// ships. Hidden: it is a build step.
func init() {
	subcommands = append(subcommands, newGenDocsCmd)
}

func newGenDocsCmd() *cobra.Command {
	return &cobra.Command{
		Use:    "gen-docs DIR",
		Short:  "Write the man pages (DIR/man) and shell completions (DIR/completions)",
		Hidden: true,
		Args:   cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			date, err := clidoc.Date(os.Getenv("SOURCE_DATE_EPOCH"))
			if err != nil {
				return err
			}
			return clidoc.Write(cmd.Root(), args[0], "diskdoctor "+version, date)
		},
	}
}
