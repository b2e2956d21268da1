package report

import (
	"io"
	"strings"
	"testing"

	"github.com/diskdoctor/diskdoctor/checks"
	"github.com/diskdoctor/diskdoctor/rules"
)

// The Controllers table has no empty cell: what was not read is "?", and
// a SAS HBA's line names its chip and has no cache or battery.
func TestControllerTableCells(t *testing.T) {
	rep := &rules.Report{
		Controllers: []map[string]any{
			{"name": "a0", checks.FactCtlFamily: "megacli", checks.FactCtlCacheState: "unknown"},
			{"name": "mpt2sas_cm0", checks.FactHBAName: "mpt2sas_cm0", checks.FactHBAChip: "LSISAS2308", checks.FactHBAFWVersion: "12.00.02.00"},
		},
		Devices: []map[string]any{{"name": "sda", checks.FactControllerVolume: true, checks.FactCtlController: "a0", checks.FactCtlPolicyCurrent: "write-back"}},
	}
	tw := &textWriter{p: newPalette(io.Discard, false), width: 100}
	controllerTable(tw, rep)
	got := tw.b.String()
	for _, want := range []string{"a0 ? ? ? sda write-back", "mpt2sas_cm0 LSISAS2308 12.00.02.00 none none -"} {
		if !strings.Contains(strings.Join(strings.Fields(got), " "), want) {
			t.Errorf("the table lacks %q:\n%s", want, got)
		}
	}
}

// A volume whose battery charges while it still writes back has its
// cache on; one the controller dropped to write-through has it low.
func TestCacheCellLearnCycle(t *testing.T) {
	for policy, want := range map[string]string{"write-back": "ctl on", "write-through": "CTL LOW"} {
		d := map[string]any{checks.FactControllerVolume: true, checks.FactCtlCacheState: "degraded", checks.FactCtlPolicyCurrent: policy}
		if got := cache(d); got != want {
			t.Errorf("current policy %s: %q, want %q", policy, got, want)
		}
	}
}

// A disk the kernel log names and sysfs no longer lists is said to be
// gone, not "virtual, or NVMe paths".
func TestDeviceTableGoneDisks(t *testing.T) {
	rep := &rules.Report{Devices: []map[string]any{
		{"name": "sdg", checks.FactKlogGone: true, checks.FactJudged: false},
		{"name": "md0", checks.FactJudged: false},
	}}
	tw := &textWriter{p: newPalette(io.Discard, false), width: 80}
	deviceTable(tw, rep, false)
	got := tw.b.String()
	if !strings.Contains(got, "gone (in the kernel log, no longer in /sys/block): sdg") || strings.Contains(got, "paths; name one with --device): sdg") {
		t.Errorf("sdg:\n%s", got)
	}
	if !strings.Contains(got, "name one with --device): md0") {
		t.Errorf("md0:\n%s", got)
	}
}
