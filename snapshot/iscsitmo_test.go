package snapshot

import (
	"archive/tar"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// A snapshot records each iSCSI session's recovery_tmo (through its
// /sys/class/iscsi_session link), and the replay judges as the recording
// did: the iSCSI variant of multipath-queue-forever on both maps.
func TestSnapshotRecordsISCSIRecoveryTmo(t *testing.T) {
	file, _ := snapshotOf(t, filepath.Join(fixturesDir, "multipath-iscsi-recovery-120"), true)
	var got []string
	forEachMember(t, file, func(name string, _ *tar.Header, data []byte) {
		if strings.HasSuffix(name, "/recovery_tmo") && strings.TrimSpace(string(data)) == "120" {
			got = append(got, name)
		}
	})
	if len(got) != 4 {
		t.Errorf("recovery_tmo files recorded: %q, want the four sessions'", got)
	}
	rep := examineArchive(t, file, false)
	keys := findingKeys(rep)
	if !slices.Contains(keys, "multipath-queue-forever info mpatha,mpathb") {
		t.Errorf("replay findings %v", keys)
	}
}
