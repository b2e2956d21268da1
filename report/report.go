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
