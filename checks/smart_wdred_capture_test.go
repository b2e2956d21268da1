package checks_test

import (
	"os"
	"testing"

	"github.com/diskdoctor/diskdoctor/checks"
	"github.com/diskdoctor/diskdoctor/probes/smart"
)

// A real CMR WD Red (WD10EFRX, libblockdev's smart dump; README in
// testdata/smartctl-7.3-wd-red-cmr) put into a recovering raid1 with the
// default 30 s timer: no smr-drive-in-redundancy (its family is "Western
// Digital Red", not "(SMR)"), and no scterc-exceeds-timeout, because the
// capture has no -l scterc: ERC supported but its limits unknown, and
// unknown is never the premise of a finding. The same array with the ERC
// state given as disabled fires, so the array facts do reach the rule.
func TestWDRedCMRRealCapture(t *testing.T) {
	b, err := os.ReadFile("testdata/smartctl-7.3-wd-red-cmr/smartctl.json")
	if err != nil {
		t.Fatal(err)
	}
	s, err := smart.ParseJSON(b)
	if err != nil {
		t.Fatal(err)
	}
	if s.ModelFamily != "Western Digital Red" || s.SMR() || s.ERC != nil {
		t.Fatalf("family %q, SMR %v, ERC %+v; want a CMR Red with ERC unknown", s.ModelFamily, s.SMR(), s.ERC)
	}
	s.Source = "smartctl.json"
	array := checks.NewObservation("test", checks.KindDevice, "sdb")
	array.Set("md_member_of", []string{"md0 (sdb1 of raid1)"})
	array.Set("md_member_redundant", true)
	array.Set("md_member_rebuilding", []string{"md0 recovery 21.9%"})
	array.Set("dev_timeout_s", 30)
	e := engineWith(t, "smr-drive-in-redundancy", "scterc-exceeds-timeout")
	judge := func(obs ...*checks.Observation) []string {
		t.Helper()
		fs, err := e.Judge(&checks.Result{Observations: append([]*checks.Observation{inventory("sdb", "sata")}, obs...)})
		if err != nil {
			t.Fatal(err)
		}
		var got []string
		for _, f := range fs {
			got = append(got, f.Rule+" "+f.Severity)
		}
		return got
	}
	if got := judge(checks.SMARTObservation("sdb", s), array); len(got) != 0 {
		t.Errorf("findings on the CMR Red = %v, want none", got)
	}
	off := checks.NewObservation("test", checks.KindDevice, "sdb")
	off.Set("smart_scterc_state", "disabled")
	if got := judge(array, off); len(got) != 1 || got[0] != "scterc-exceeds-timeout warning" {
		t.Errorf("ERC disabled in the same array = %v, want scterc-exceeds-timeout warning", got)
	}
}
