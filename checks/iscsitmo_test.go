package checks_test

import (
	"os"
	"path/filepath"
	"testing"
)

// Each map carries its sessions' longest recovery_tmo: 120 on chunk1, 5
// on chunk2; a session below 0 (queued until it logs in again) wins
// whatever the others; an unreadable one makes it unknown.
func TestISCSIRecoveryTmo(t *testing.T) {
	obs, _ := observeRoot(t, filepath.Join("..", "fixtures", "multipath-iscsi-recovery-120"))
	if v := obs["pool/mpatha"]["multipath_iscsi_recovery_tmo"]; v != 120 {
		t.Errorf("chunk1 mpatha recovery_tmo %v, want 120", v)
	}
	if s, _ := obs["pool/mpathb"]["multipath_iscsi_sessions"].([]string); len(s) != 2 {
		t.Errorf("chunk1 mpathb sessions %q, want two", s)
	}
	// multipath-path-failed records the session devices but no
	// iscsi_session class: every session unknown, nothing judged.
	obs, _ = observeRoot(t, filepath.Join("..", "fixtures", "multipath-path-failed"))
	if v, ok := obs["pool/mpatha"]["multipath_iscsi_recovery_tmo"]; !ok || v != nil {
		t.Errorf("no recovery_tmo recorded: %v (set %v), want unknown (nil)", v, ok)
	}
	obs, _ = observeRoot(t, filepath.Join("..", "fixtures", "multipath-iscsi-recovery-5"))
	if v := obs["pool/mpatha"]["multipath_iscsi_recovery_tmo"]; v != 5 {
		t.Errorf("chunk2 mpatha recovery_tmo %v, want 5", v)
	}

	root := copyFixture(t, "multipath-iscsi-recovery-120")
	writeFile(t, filepath.Join(root, "sys/devices/platform/host6/session21/iscsi_session/session21/recovery_tmo"), "-1\n")
	if err := os.Remove(filepath.Join(root, "sys/devices/platform/host8/session23/iscsi_session/session23/recovery_tmo")); err != nil {
		t.Fatal(err)
	}
	obs, _ = observeRoot(t, root)
	if v := obs["pool/mpatha"]["multipath_iscsi_recovery_tmo"]; v != -1 {
		t.Errorf("a session at -1: recovery_tmo %v, want -1 (held until it logs in again)", v)
	}
	if v, ok := obs["pool/mpathb"]["multipath_iscsi_recovery_tmo"]; !ok || v != nil {
		t.Errorf("an unreadable session: recovery_tmo %v (set %v), want unknown (nil)", v, ok)
	}
}
