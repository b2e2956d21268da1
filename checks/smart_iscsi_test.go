package checks

import (
	"testing"
	"time"

	"github.com/diskdoctor/diskdoctor/machine"
)

// An iSCSI LUN (multipath-iscsi-recovery-120's LIO-ORG data-chunk1) has
// no SMART of its own: the entry is not applicable, with the target named
// in its hint, never "smartctl: not recorded".
func TestISCSILunHasNoSMART(t *testing.T) {
	h, err := machine.Recorded("../fixtures/multipath-iscsi-recovery-120")
	if err != nil {
		t.Fatal(err)
	}
	env := newEnv(h, Options{ProbeTimeout: 5 * time.Second})
	smartCheck(t.Context(), env)
	found := false
	for _, s := range env.skipped() {
		if s.CheckName() != "smartctl" {
			continue
		}
		found = true
		if !s.NotApplicable || !contains(s.Subjects, "sdb") || s.Hint == "" || s.Reason == "smartctl: not recorded" {
			t.Errorf("skipped %+v: want sdb not applicable, the target in the hint", s)
		}
	}
	if !found {
		t.Errorf("no smartctl entry among %+v", env.skipped())
	}
}
