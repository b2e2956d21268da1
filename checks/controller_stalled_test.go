package checks

import (
	"strings"
	"testing"

	"github.com/diskdoctor/diskdoctor/probes/raidctl"
)

// A MegaCli task is stalled when, at the pace of the time it has taken,
// what is left needs more than a month; the consistency check of
// fixtures/megacli-consistency-check (4 % after 616 minutes: 10 days to
// go) is not.
func TestControllerTaskStalled(t *testing.T) {
	for _, c := range []struct {
		line, want string
	}{
		{"  Check Consistency        : Completed 4%, Taken 616 min.", ""},
		{"  Rebuild                  : Completed 2%, Taken 1440 min.", "49 days to go"},
		{"  Rebuild                  : Completed 0%, Taken 2000 min.", "0 % done after 2000 minutes"},
		{"  Rebuild                  : Completed 0%, Taken 5 min.", ""},
		{"Rebuilding", ""},
	} {
		got := taskStalled(raidctl.Task{Kind: raidctl.TaskRebuild, Line: raidctl.Line{N: 1, Text: c.line}})
		if (c.want == "") != (got == "") || !strings.Contains(got, c.want) {
			t.Errorf("%q: %q, want %q", c.line, got, c.want)
		}
	}
}
