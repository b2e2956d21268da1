package main

import (
	"fmt"
	"io"
	"runtime"
	"runtime/debug"
	"strings"

	"github.com/spf13/cobra"
)

// versionDeps are the libraries whose version decides what the doctor can
// read: a bug report needs them as much as the doctor's own version.
var versionDeps = []string{
	"github.com/anatol/smart.go",
	"github.com/jaypipes/ghw",
	"github.com/prometheus/procfs",
	"github.com/charmbracelet/lipgloss",
}

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

// versionText is the version followed by the build's provenance, one item a
// line, read from the build info the Go linker embeds.
func versionText() string {
	bi, _ := debug.ReadBuildInfo()
	var b strings.Builder
	writeVersion(&b, version, commit, bi)
	return strings.TrimSuffix(b.String(), "\n")
}

func writeVersion(w io.Writer, v, commit string, bi *debug.BuildInfo) {
	fmt.Fprintln(w, v)
	if bi == nil {
		if commit == "" {
			commit = "unknown"
		}
		fmt.Fprintf(w, "commit: %s\ngo:     %s %s/%s\n", commit, runtime.Version(), runtime.GOOS, runtime.GOARCH)
		return
	}
	settings := map[string]string{}
	for _, s := range bi.Settings {
		settings[s.Key] = s.Value
	}
	switch {
	case commit != "":
	case settings["vcs.revision"] == "":
		commit = "unknown (built without -X main.commit, outside a git checkout or with -buildvcs=false)"
	default:
		commit = settings["vcs.revision"]
		if t := settings["vcs.time"]; t != "" {
			commit += " (" + t + ")"
		}
		if settings["vcs.modified"] == "true" {
			commit += " with uncommitted changes"
		}
	}
	goarch := settings["GOARCH"]
	if goarch == "" {
		goarch = runtime.GOARCH
	}
	goos := settings["GOOS"]
	if goos == "" {
		goos = runtime.GOOS
	}
	fmt.Fprintf(w, "commit: %s\ngo:     %s %s/%s\n", commit, bi.GoVersion, goos, goarch)
	for _, path := range versionDeps {
		fmt.Fprintf(w, "%s %s\n", path, depVersion(bi, path))
	}
}

// depVersion is a module's version as linked, naming a replacement if any.
func depVersion(bi *debug.BuildInfo, path string) string {
	for _, d := range bi.Deps {
		if d.Path != path {
			continue
		}
		if r := d.Replace; r != nil {
			if r.Version == "" {
				return d.Version + " => " + r.Path
			}
			return d.Version + " => " + r.Path + " " + r.Version
		}
		return d.Version
	}
	return "(not linked)"
}
