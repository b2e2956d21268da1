package rules

import (
	"reflect"
	"slices"
	"testing"

	"github.com/diskdoctor/diskdoctor/checks"
)

// TestEveryRuleHasAnArea: the text report groups what passed by area; a
// rule no entry of the areas table names would be left out of it. A new
// rule whose id starts with no prefix there needs an entry (passed.go).
func TestEveryRuleHasAnArea(t *testing.T) {
	rs, err := Load()
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range rs {
		if r.Area() == "" {
			t.Errorf("%s: no area: add its id's prefix to areas in rules/passed.go", r.ID)
		}
		for _, f := range r.checkedFacts() {
			if _, _, ok := FactSource(f); !ok {
				t.Errorf("%s: checked_by fact %s has no source in rules/docs.go", r.ID, f)
			}
		}
	}
	if AreaOf("cpu-pressure-high") != "pressure" || AreaOf("io-pressure-high") != "pressure" {
		t.Errorf("pressure rules are not in the pressure area")
	}
}

// build runs Build on hand-made observations, strict.
func build(t *testing.T, obs ...*checks.Observation) *Report {
	t.Helper()
	rep, err := readOnlyEngine(t).Build(&checks.Result{Observations: obs}, "/")
	if err != nil {
		t.Fatal(err)
	}
	return rep
}

func passedOn(rep *Report, rule string) []string {
	for _, p := range rep.Passed {
		if p.Rule == rule {
			return p.Subjects
		}
	}
	return nil
}

// TestPassedOnlyWhereKnown: a rule passes on a subject where it was
// judged on known facts and did not hold; unknown (nil, "", "unknown")
// is never passed, nor a subject it holds for, nor a device no rule
// judges for a person.
func TestPassedOnlyWhereKnown(t *testing.T) {
	on := map[string]any{"wc_on": true, "wc_supported": true, "wc_kernel_on": true, "wc_drive_enabled": true}
	off := map[string]any{"wc_on": false, "wc_supported": true, "wc_kernel_on": false, "wc_drive_enabled": false}
	unknown := map[string]any{"wc_on": nil, "wc_kernel_on": nil, "wc_drive_enabled": nil}
	loop := device("loop0", on)
	loop.Set("judged", false)
	rep := build(t, device("sd2", on), device("sda", off), device("sdc", unknown), device("sd10", on), loop,
		checks.NewObservation("test", checks.KindHost, "host"))
	if got := passedOn(rep, "write-cache-disabled"); !slices.Equal(got, []string{"sd2", "sd10"}) {
		t.Errorf("write-cache-disabled passed on %v, want [sd2 sd10] (natural order, not sda: it holds, not sdc: unknown, not loop0: not judged)", got)
	}
	for _, p := range rep.Passed {
		if p.Area == "" {
			t.Errorf("%s: passed without an area", p.Rule)
		}
		if slices.Contains(p.Subjects, "sdc") && p.Area == "write cache" {
			t.Errorf("%s passed on sdc, whose write cache is unknown", p.Rule)
		}
	}
	// A rule that says it never passes does not.
	if got := passedOn(rep, "smr-drive-in-redundancy"); got != nil {
		t.Errorf("smr-drive-in-redundancy passed on %v", got)
	}
	// The string a check sets for what it could not read is unknown.
	r := &Rule{ID: "x", Evidence: []string{"ctl_cache_state"}}
	s := &subject{name: "sda", kind: checks.KindDevice, facts: map[string]any{"judged": true, "ctl_cache_state": "unknown"}}
	if r.known(s, s) {
		t.Errorf("ctl_cache_state \"unknown\" is known")
	}
	s.facts["ctl_cache_state"] = "ok"
	if !r.known(s, s) {
		t.Errorf("ctl_cache_state \"ok\" is unknown")
	}
}

// A disk whose USB bridge resets (a warning resting on dmesg lines) is not
// also "checked and fine" for the kernel log; a write-cache finding's boot
// line, a setting, and an info finding leave it fine.
func TestLoggedTroubleIsNotFineInTheKernelLog(t *testing.T) {
	passed := []Passed{
		{Rule: "kernel-io-errors", Area: "kernel log", Subjects: []string{"sda", "sdb", "sdc", "sdd"}},
		{Rule: "kernel-hung-tasks", Area: "kernel log", Subjects: []string{"host"}},
		{Rule: "usb-link-slow", Area: "USB", Subjects: []string{"sda"}},
	}
	logLine := []checks.Evidence{{Source: "dmesg line 3", Value: "uas_eh_abort_handler 0 uas-tag 1 inflight: CMD"}}
	findings := []Finding{
		{Rule: "usb-bridge-resets", Severity: Warning, Subjects: []string{"sda"}, Evidence: logLine},
		{Rule: "write-cache-off", Severity: Warning, Subjects: []string{"sdb"}, Evidence: []checks.Evidence{{Source: "dmesg line 9", Value: "sd 1:0:0:0: [sdb] Write cache: disabled"}}},
		{Rule: "usb-storage-not-uas", Severity: Info, Subjects: []string{"sdc"}, Evidence: logLine},
		{Rule: "hba-fault", Severity: Critical, Subjects: []string{"sdd"}, Evidence: []checks.Evidence{{Source: "smartctl -x -j /dev/sdd", Value: "…"}}},
	}
	got := withoutLoggedTrouble(passed, findings)
	want := []Passed{
		{Rule: "kernel-io-errors", Area: "kernel log", Subjects: []string{"sdb", "sdc", "sdd"}},
		{Rule: "kernel-hung-tasks", Area: "kernel log", Subjects: []string{"host"}},
		{Rule: "usb-link-slow", Area: "USB", Subjects: []string{"sda"}},
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("got %+v\nwant %+v", got, want)
	}
}

// A guest disk's discard finding is in the TRIM area, where trim-
// unsupported passes on the same disk (blind-vm: sdb and vda): the text
// report then leaves the disk out of "TRIM" under Checked and fine.
func TestVirtualDiskDiscardIsTRIM(t *testing.T) {
	if a := AreaOf("virtual-disk-no-discard"); a != AreaOf("trim-unsupported") {
		t.Errorf("virtual-disk-no-discard in %q, trim-unsupported in %q", a, AreaOf("trim-unsupported"))
	}
}

// A rule whose question does not apply to a disk (an EBS timeout on an
// instance-store disk, an ephemeral disk's contents on an EBS volume) is
// not checked and fine there, though its facts are known.
func TestNotAskedIsNotFine(t *testing.T) {
	ebs := map[string]any{"cloud_disk": "ebs", "nvme_io_timeout_ms": int64(4294966296), "ephemeral_disk": false}
	store := map[string]any{"cloud_disk": "instance-store", "nvme_io_timeout_ms": int64(4294966296), "ephemeral_disk": true, "ephemeral_holds": []string{}}
	rep := build(t, device("nvme0n1", ebs), device("nvme1n1", store), checks.NewObservation("test", checks.KindHost, "host"))
	if got := passedOn(rep, "ebs-nvme-timeout-short"); !slices.Equal(got, []string{"nvme0n1"}) {
		t.Errorf("ebs-nvme-timeout-short passed on %v, want the EBS volume only", got)
	}
	if got := passedOn(rep, "ephemeral-disk-holds-data"); slices.Contains(got, "nvme0n1") {
		t.Errorf("ephemeral-disk-holds-data passed on %v: the EBS volume is not ephemeral", got)
	}
}
