// Package buildinfo formats what a bug report needs to know about the
// binary: its version, the commit it was built from, the Go toolchain and
// the versions of the libraries that read the machine, from the build
// information the Go linker embeds. It reads nothing of the machine.
package buildinfo

import (
	"fmt"
	"io"
	"runtime"
	"runtime/debug"
	"strings"
)

// Deps are the libraries whose version decides what the doctor can read: a
// bug report needs them as much as the doctor's own version.
var Deps = []string{
	"github.com/anatol/smart.go",
	"github.com/jaypipes/ghw",
	"github.com/prometheus/procfs",
	"github.com/charmbracelet/lipgloss",
}

// Text is version followed by the build's provenance, one item a line, read
// from the running binary's build info. commit is the one set with -ldflags
// -X (empty: the build info's vcs.revision).
func Text(version, commit string) string {
	bi, _ := debug.ReadBuildInfo()
	var b strings.Builder
	Write(&b, version, commit, bi)
	return strings.TrimSuffix(b.String(), "\n")
}

// Write writes version, the commit, the Go version and platform, and each of
// Deps with its linked version, one a line; bi may be nil (no build info).
func Write(w io.Writer, version, commit string, bi *debug.BuildInfo) {
	fmt.Fprintln(w, version)
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
	for _, path := range Deps {
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

// Devel is the version of a binary built with neither -X main.version
// (make build, the packages) nor a module version in its build info.
const Devel = "devel"

// Version is the binary's version: set (from -ldflags -X main.version, which
// make build and the packages fill from packaging/version.sh) if not empty,
// else the main module's version Go stamped into the build info (Go 1.24
// and later stamp it from the VCS tag in a git checkout, and go install
// module@version from the module version: "v0.3.0" reads "0.3.0", a
// pseudo-version after a tag reads as Go wrote it), else Devel: a go build
// with -buildvcs=false or outside a git checkout has "(devel)" there.
func Version(set string) string {
	bi, _ := debug.ReadBuildInfo()
	return version(set, bi)
}

func version(set string, bi *debug.BuildInfo) string {
	if set != "" {
		return set
	}
	if bi == nil || bi.Main.Version == "" || bi.Main.Version == "(devel)" {
		return Devel
	}
	return strings.TrimPrefix(bi.Main.Version, "v")
}

// Commit is the commit the binary was built from: commit (set with -ldflags
// -X) if given, else the build info's vcs.revision with "-dirty" for
// uncommitted changes, else "" (unknown).
func Commit(commit string) string {
	if commit != "" {
		return commit
	}
	bi, ok := debug.ReadBuildInfo()
	if !ok {
		return ""
	}
	rev, dirty := "", false
	for _, s := range bi.Settings {
		switch s.Key {
		case "vcs.revision":
			rev = s.Value
		case "vcs.modified":
			dirty = s.Value == "true"
		}
	}
	if rev != "" && dirty {
		rev += "-dirty"
	}
	return rev
}
