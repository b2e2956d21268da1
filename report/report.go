package report

import (
	"io"
	"sort"
	"time"

	"github.com/diskdoctor/diskdoctor/rules"
)

// Renderer writes a report in one output format.
type Renderer func(w io.Writer, rep *rules.Report, run RunInfo) error

// RunInfo is what a renderer may need beyond the report.
type RunInfo struct {
	// Start and Duration are the run's; JSON leaves them out when Start is
	// zero (the tests' goldens, which must not hold the time).
	Start    time.Time
	Duration time.Duration
	// Tool is the binary's name, version and commit; JSON leaves it out
	// when Version is empty (the tests' goldens).
	Tool  Tool
	Color bool
	// Width is the terminal's width in columns (0: DefaultWidth).
	Width int
	// Verbose prints every finding in full (text only).
	Verbose bool
}

// Tool is the program that wrote a report (JSON "tool").
type Tool struct {
	Name    string `json:"name"`
	Version string `json:"version"`
	// Commit is "" where the build does not know it.
	Commit string `json:"commit,omitempty"`
}

// formats is the registry of output formats, filled at init() by the file
// of each format.
var formats = map[string]Renderer{}

// Register adds an output format; called from init().
func Register(name string, r Renderer) {
	if _, dup := formats[name]; dup {
		panic("duplicate format " + name)
	}
	formats[name] = r
}

// exits maps the doctor's exit status to a format's own, for the formats
// whose consumer reads a different protocol (npd); filled at init().
var exits = map[string]func(int) int{}

func registerExit(format string, f func(int) int) { exits[format] = f }

// ExitStatus is the process's exit status for the doctor's code (0 OK,
// 1 warning, 2 critical, 3 no verdict) under format: the code itself but
// for a format with a protocol of its own (--format npd: 0, 1, 2).
func ExitStatus(format string, code int) int {
	if f, ok := exits[format]; ok {
		return f(code)
	}
	return code
}

// Lookup is the renderer of a format.
func Lookup(name string) (Renderer, bool) {
	r, ok := formats[name]
	return r, ok
}

// Formats are the names of the output formats, sorted.
func Formats() []string {
	names := make([]string, 0, len(formats))
	for n := range formats {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}

func init() {
	Register("json", renderJSON)
}
