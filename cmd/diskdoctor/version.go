package main

import (
	"fmt"

	"github.com/spf13/cobra"

	"github.com/diskdoctor/diskdoctor/internal/buildinfo"
	"github.com/diskdoctor/diskdoctor/report"
)

// commit is set at build time with -ldflags "-X main.commit=...": Go
// stamps vcs.revision itself only in a plain checkout (not a git worktree)
// and not under GOFLAGS=-buildvcs=false.
var commit string

func init() {
	subcommands = append(subcommands, newVersionCmd)
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
