package checks_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/diskdoctor/diskdoctor/internal/testutil"
)

// A copy of sata-hdd-pending-sectors whose manifest holds the SMART argv
// of every recording made before "-n standby" (smartctl -x -j /dev/sdX,
// issue #26) is judged as the fixture is: sdb's pending sectors are still
// smart-failing, not "fine" with SMART skipped as not installed.
func TestOldSMARTArgvRecordingKeepsItsVerdict(t *testing.T) {
	src := "../fixtures/sata-hdd-pending-sectors"
	dir := filepath.Join(t.TempDir(), "old-argv")
	testutil.Must(t, os.CopyFS(dir, os.DirFS(src)))
	mp := filepath.Join(dir, "commands", "manifest.yaml")
	b, err := os.ReadFile(mp)
	testutil.Must(t, err)
	old := strings.ReplaceAll(string(b), "[smartctl, -x, -n, standby, -j, ", "[smartctl, -x, -j, ")
	if old == string(b) {
		t.Fatal("the fixture's manifest has no smartctl -x -n standby -j to rewrite")
	}
	testutil.Must(t, os.WriteFile(mp, []byte(old), 0o644))
	exp, err := readExpectation(filepath.Join(src, "expect.yaml"))
	testutil.Must(t, err)
	rep := examineRecorded(t, dir)
	for _, d := range compareExpectation(exp, rep) {
		t.Error(d)
	}
	for _, s := range rep.Skipped {
		if strings.Contains(s.Reason, "smartctl") {
			t.Errorf("skipped %+v: the old argv answers today's", s)
		}
	}
}
