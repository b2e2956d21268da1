package buildinfo

import (
	"runtime/debug"
	"strings"
	"testing"
)

func TestWrite(t *testing.T) {
	bi := &debug.BuildInfo{
		GoVersion: "go1.26.8",
		Deps: []*debug.Module{
			{Path: "github.com/anatol/smart.go", Version: "v0.0.0-20260723175002-53b369c3973c"},
			{Path: "github.com/jaypipes/ghw", Version: "v0.27.0"},
			{Path: "github.com/prometheus/procfs", Version: "v0.23.0", Replace: &debug.Module{Path: "../procfs"}},
		},
		Settings: []debug.BuildSetting{{Key: "GOOS", Value: "linux"}, {Key: "GOARCH", Value: "arm64"}, {Key: "vcs.revision", Value: "abc123"}},
	}
	var b strings.Builder
	Write(&b, "1.2.3", "", bi)
	want := `1.2.3
commit: abc123
go:     go1.26.8 linux/arm64
github.com/anatol/smart.go v0.0.0-20260723175002-53b369c3973c
github.com/jaypipes/ghw v0.27.0
github.com/prometheus/procfs v0.23.0 => ../procfs
github.com/charmbracelet/lipgloss (not linked)
`
	if b.String() != want {
		t.Errorf("got\n%s\nwant\n%s", b.String(), want)
	}
	b.Reset()
	Write(&b, "1.2.3", "fedcba", bi)
	if !strings.Contains(b.String(), "commit: fedcba\n") {
		t.Errorf("-X main.commit must win over the build info:\n%s", b.String())
	}
	b.Reset()
	Write(&b, "1.2.3", "", nil)
	if !strings.HasPrefix(b.String(), "1.2.3\ncommit: unknown\ngo:     go") {
		t.Errorf("without build info:\n%s", b.String())
	}
}

func TestDepVersionReplacedWithVersion(t *testing.T) {
	bi := &debug.BuildInfo{Deps: []*debug.Module{{Path: "m", Version: "v1", Replace: &debug.Module{Path: "fork", Version: "v2"}}}}
	if got := depVersion(bi, "m"); got != "v1 => fork v2" {
		t.Errorf("got %q", got)
	}
}
