package main

import (
	"fmt"
	"os"

	"github.com/spf13/cobra"

	"github.com/diskdoctor/diskdoctor/internal/buildinfo"
	"github.com/diskdoctor/diskdoctor/internal/clidoc"
	"github.com/diskdoctor/diskdoctor/report"
)

// commit is set at build time with -ldflags "-X main.commit=...": Go
// stamps vcs.revision itself only in a plain checkout (not a git worktree)
// and not under GOFLAGS=-buildvcs=false.
var commit string

func init() {
	subcommands = append(subcommands, newVersionCmd, newGenDocsCmd)
}

func newVersionCmd() *cobra.Command {
	return &cobra.Command{
		Use:   "version",
		Short: "Print the version, commit, Go version and the versions of the libraries that read the machine",
		Args:  cobra.NoArgs,
		Run: func(cmd *cobra.Command, _ []string) {
			// The same text as --version (cobra's template prefixes
			// "diskdoctor version ").
			fmt.Fprintf(cmd.OutOrStdout(), "diskdoctor version %s\n", versionText())
		},
	}
}

func versionText() string { return buildinfo.Text(version, commit) }

// tool is this binary as the JSON report names it.
func tool() report.Tool {
	return report.Tool{Name: "diskdoctor", Version: version, Commit: buildinfo.Commit(commit)}
}

// newGenDocsCmd writes the man pages and shell completions the Debian
// package ships. Hidden: it is a build step.
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
