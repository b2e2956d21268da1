package machine_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/diskdoctor/diskdoctor/internal/testutil"
	"github.com/diskdoctor/diskdoctor/machine"
	"github.com/diskdoctor/diskdoctor/machine/manifest"
)

// A recording names its format version (issue #26): every version this
// build reads is replayed, one it does not know (a newer build's) is
// refused before anything is judged, and a fixture without a description
// is the current format.
func TestRecordedFormatVersion(t *testing.T) {
	for _, c := range []struct {
		meta string // "" : no description
		ok   bool
	}{
		{"", true},
		{"format: diskdoctor-snapshot/v1\ndiskdoctor: 0.1.0-dev\n", true},
		{"format: " + manifest.Format + "\n", true},
		{"diskdoctor: 0.1.0-dev\n", true},
		{"format: diskdoctor-snapshot/v9\n", false},
		{"format: [\n", false},
	} {
		files := map[string]string{}
		if c.meta != "" {
			files["diskdoctor-snapshot.yaml"] = c.meta
		}
		_, err := machine.Recorded(recordedDir(t, files))
		switch {
		case c.ok && err != nil:
			t.Errorf("%q: %v", c.meta, err)
		case !c.ok && (!errors.Is(err, machine.ErrParse) || !strings.Contains(err.Error(), "diskdoctor-snapshot.yaml")):
			t.Errorf("%q: %v, want refused naming the description", c.meta, err)
		}
	}
}

// A v1 snapshot of a recorded machine wrote a command the source lacked
// as "missing: true", as it wrote a program not installed: its replay says
// "not recorded". A live v1 snapshot's, and every v2 one's, is "not
// installed on the recorded machine".
func TestV1SnapshotOfARecordingMissingIsNotRecorded(t *testing.T) {
	for _, c := range []struct {
		meta        string
		notRecorded bool
	}{
		{"format: diskdoctor-snapshot/v1\nsource: fixtures/x\n", true},
		{"format: diskdoctor-snapshot/v1\nsource: live\n", false},
		{"format: " + manifest.Format + "\nsource: fixtures/x\n", false},
		{"", false},
	} {
		files := map[string]string{"commands/manifest.yaml": "- argv: [nvme, list]\n  missing: true\n"}
		if c.meta != "" {
			files["diskdoctor-snapshot.yaml"] = c.meta
		}
		h, err := machine.Recorded(recordedDir(t, files))
		testutil.Must(t, err)
		var te *machine.ToolError
		if _, err := h.Run(t.Context(), "nvme", "list"); !errors.As(err, &te) || te.NotRecorded != c.notRecorded || te.Recorded == c.notRecorded {
			t.Errorf("%q: %v (%+v), want not recorded %v", c.meta, err, te, c.notRecorded)
		}
	}
}
