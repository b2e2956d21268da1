package rules

import (
	"strings"
	"testing"

	"github.com/diskdoctor/diskdoctor/checks"
)

// nfs-server-not-responding counts each kind of line it saw, in the
// singular for one, and leaves out a kind it did not see ("0 timed out").
func TestNFSServerObservedCounts(t *testing.T) {
	for _, tt := range []struct {
		trying, timedOut int
		want, not        string
	}{
		{2, 0, `2 "not responding, still trying" lines, "OK"`, "0 "},
		{1, 0, `1 "not responding, still trying" line, "OK"`, "lines"},
		{0, 3, `3 "timed out" lines, "OK"`, "still trying"},
		{1, 1, `1 "not responding, still trying" line and 1 "timed out" line, "OK"`, "lines"},
	} {
		o := checks.NewObservation("nfs", checks.KindFilesystem, "ease")
		o.Set("nfs_still_trying", tt.trying)
		o.Set("nfs_timed_out", tt.timedOut)
		o.Set("nfs_server_down", false)
		var got string
		for _, f := range judge(t, o) {
			if f.Rule == "nfs-server-not-responding" {
				got = f.Observed
			}
		}
		if !strings.Contains(got, tt.want) || strings.Contains(got, tt.not) {
			t.Errorf("%d still trying, %d timed out: observed %q, want %q without %q", tt.trying, tt.timedOut, got, tt.want, tt.not)
		}
	}
}
