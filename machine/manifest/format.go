package manifest

import (
	"fmt"
	"slices"
	"strings"

	"go.yaml.in/yaml/v3"
)

// MetaPath is a snapshot's description (diskdoctor-snapshot.yaml) in its
// root; its format: field is the version of the recording's layout.
const MetaPath = "/diskdoctor-snapshot.yaml"

// Format is the version of the recordings this build writes, and Formats
// every version it reads (docs/snapshots.md, "Format versions"):
//
//   - v1: the fixture layout and commands/manifest.yaml; the argv of the
//     build that made it, answered through the argv successors
//     (machine/argvhistory.go); a command the recorded machine being
//     recorded lacked was written "missing: true".
//   - v2: the same layout; such a command is left out (not recorded), the
//     host name is redacted in log lines whatever it is, the kernel log's
//     IP addresses too, and no member exceeds the reader's bounds.
//
// A directory without a description (a fixture written by hand) is the
// current format.
const Format = "diskdoctor-snapshot/v2"

// Formats are the versions this build reads, oldest first.
var Formats = []string{"diskdoctor-snapshot/v1", Format}

// Meta is what a reader needs of a snapshot's description.
type Meta struct {
	Format string `yaml:"format"`
	// Source is "live", or the recorded machine's directory that was
	// recorded again (snapshot --root).
	Source string `yaml:"source"`
}

// MissingMayBeUnrecorded: in a v1 snapshot of a recorded machine, a
// command written "missing: true" may only have been absent from the
// recording it was made from (v1 wrote both the same way): it is not
// recorded, not "not installed".
func (m Meta) MissingMayBeUnrecorded() bool {
	return m.Format == Formats[0] && m.Source != "" && m.Source != "live"
}

// ReadMeta reads a description and refuses one whose format this build
// does not read (one written by a newer build, or no recording at all),
// before anything of the recording is judged. A description without a
// format field is read as v1, the only version before the field was
// checked.
func ReadMeta(meta []byte) (Meta, error) {
	var m Meta
	if err := yaml.Unmarshal(meta, &m); err != nil {
		return m, fmt.Errorf("%w: %w", ErrParse, err)
	}
	if m.Format == "" {
		m.Format = Formats[0]
	}
	if slices.Contains(Formats, m.Format) {
		return m, nil
	}
	return m, fmt.Errorf("%w: recording format %q, and this diskdoctor reads %s: replay it with the diskdoctor that made it, or a newer one", ErrParse, m.Format, strings.Join(Formats, ", "))
}
