package checks_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/diskdoctor/diskdoctor/checks"
	"github.com/diskdoctor/diskdoctor/machine"
)

// trimFacts runs the checks on a recorded machine and returns a device's
// facts.
func trimFacts(t *testing.T, root, dev string) map[string]any {
	t.Helper()
	h, err := machine.Recorded(root)
	if err != nil {
		t.Fatal(err)
	}
	res, err := checks.Run(t.Context(), h, checks.Options{})
	if err != nil {
		t.Fatal(err)
	}
	facts := map[string]any{}
	for _, o := range res.Observations {
		if o.Kind == checks.KindDevice && o.Subject == dev {
			for f, v := range checks.FactMap(o) {
				facts[f] = v
			}
		}
	}
	return facts
}

// The MicroServer's pool has autotrim off and a zpool trim at 2 %. With
// /etc read (no job runs zpool trim) the pool is not trimmed on a
// schedule, and the running trim is said; with /etc unread its cron jobs
// are unknown, so whether the pool is trimmed is unknown: never the
// premise of "no schedule trims it".
func TestTrimPoolScheduleUnknownWithoutEtc(t *testing.T) {
	root := copyFixture(t, "hpe-microserver-writethrough")
	f := trimFacts(t, root, "sda")
	unc, _ := f["trim_uncovered"].([]string)
	if f["trim_covered"] != false || len(unc) != 1 || !strings.Contains(unc[0], "a zpool trim runs now") {
		t.Errorf("with /etc: trim_covered = %v, trim_uncovered = %q; want false, the pool with its running trim", f["trim_covered"], unc)
	}
	if err := os.RemoveAll(filepath.Join(root, "etc")); err != nil {
		t.Fatal(err)
	}
	f = trimFacts(t, root, "sda")
	reg, _ := f["trim_regimes"].([]string)
	if v, ok := f["trim_covered"]; !ok || v != nil {
		t.Errorf("without /etc: trim_covered = %v (set %v), want unknown (nil)", v, ok)
	}
	if unc, _ := f["trim_uncovered"].([]string); len(unc) != 0 {
		t.Errorf("without /etc: trim_uncovered = %q, want none", unc)
	}
	if len(reg) != 1 || !strings.Contains(reg[0], "zpool trim running now (pool storage)") {
		t.Errorf("without /etc: trim_regimes = %q, want the running zpool trim", reg)
	}
}

// A guest's virtio disk that says rotational still tells whether it
// passes discards (queue/discard_max_bytes), for the TRIM column.
func TestTrimGuestDiskPassesDiscard(t *testing.T) {
	f := trimFacts(t, "../fixtures/bench-vm-loop", "vda")
	if f["trim_supported"] != true {
		t.Errorf("vda: trim_supported = %v, want true (discard_max_bytes above 0)", f["trim_supported"])
	}
}
