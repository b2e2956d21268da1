package checks_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/diskdoctor/diskdoctor/internal/testutil"
	"github.com/diskdoctor/diskdoctor/machine/archive"
)

// A copy of sata-hdd-pending-sectors whose manifest holds the SMART argv
// of every recording made before "-n standby" (smartctl -x -j /dev/sdX,
// issue #26) is judged as the fixture is: sdb's pending sectors are still
// smart-failing, not "fine" with SMART skipped as not installed.
func TestOldSMARTArgvRecordingKeepsItsVerdict(t *testing.T) {
	src := "../fixtures/sata-hdd-pending-sectors"
	dir := filepath.Join(t.TempDir(), "old-argv")
	testutil.CopyTree(t, dir, src)
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
	agrees(t, exp, rep)
	for _, s := range rep.Skipped {
		if strings.Contains(s.Reason, "smartctl") {
			t.Errorf("skipped %+v: the old argv answers today's", s)
		}
	}
}

// archivedDir holds snapshots that earlier builds made of fixtures
// (snapshot/testdata/recordings/README.md: which commit, which command).
const archivedDir = "../snapshot/testdata/recordings"

// Issue #26: recordings made by earlier builds replay with today's doctor
// to the verdict and findings their fixture's expect.yaml states (written
// by hand): an argv change or a format change that voids them fails here.
func TestArchivedRecordingsReplay(t *testing.T) {
	files, err := filepath.Glob(filepath.Join(archivedDir, "*.tar.gz"))
	testutil.Must(t, err)
	if len(files) < 6 {
		t.Fatalf("%d archived recordings under %s, want at least 6", len(files), archivedDir)
	}
	for _, file := range files {
		base := strings.TrimSuffix(filepath.Base(file), ".tar.gz")
		commit, fixture, ok := strings.Cut(base, "-")
		if !ok {
			t.Fatalf("%s: not named <commit>-<fixture>.tar.gz", file)
		}
		t.Run(base, func(t *testing.T) {
			exp, err := readExpectation(filepath.Join("../fixtures", fixture, "expect.yaml"))
			testutil.Must(t, err)
			dir, cleanup, err := archive.Open(t.Context(), file)
			if err != nil {
				t.Fatalf("made by %s, refused today: %v", commit, err)
			}
			defer cleanup()
			rep := examineRecorded(t, dir)
			agrees(t, exp, rep)
			for _, s := range rep.Skipped {
				if strings.Contains(s.Reason, "not installed") {
					t.Errorf("skipped %+v: a recording's command is not recorded or missing, never 'not installed' here", s)
				}
			}
		})
	}
}
