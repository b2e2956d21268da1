package rules

import (
	"strings"
	"testing"

	"github.com/diskdoctor/diskdoctor/checks"
	"github.com/diskdoctor/diskdoctor/probes/window"
)

// A device's load is named by the figures that crossed the noise floor:
// a window of 78 small reads a second is "78 reads/s", not the 0.3 MB/s
// that stayed under it.
func TestDeviceLoadNamesWhatTripped(t *testing.T) {
	for _, c := range []struct {
		d    window.DeviceRates
		want string
	}{
		{window.DeviceRates{Name: "nvme0n1", RS: 78, RMBs: 0.3}, "nvme0n1 0.0 % busy, 78 reads/s"},
		{window.DeviceRates{Name: "nvme0n1", RS: 25000, WS: 100, RMBs: 3277, WMBs: 1.6, UtilPct: 100}, "nvme0n1 100 % busy, 3277 MB/s read, 1.6 MB/s written, 25000 reads/s, 100 writes/s"},
		{window.DeviceRates{Name: "loop0", WS: 20, WMBs: 4, UtilPct: 3}, "loop0 3.0 % busy, 4.0 MB/s written"},
	} {
		if got := DeviceLoad(c.d); got != c.want {
			t.Errorf("DeviceLoad(%+v) = %q, want %q", c.d, got, c.want)
		}
	}
}

// Only what could have been read and names a judged device (or, for the
// kernel log, every one) is incomplete, the most telling check first; a passed rule whose area
// rests on it loses that device.
func TestIncompleteChecks(t *testing.T) {
	judged := map[string]bool{"sda": true, "sdb": true}
	inc := incompleteChecks([]checks.Skipped{
		{Check: "nvme get-feature -f 0x06", Subjects: []string{"sdb"}, Reason: "nvme: not recorded"},
		{Check: "smartctl -x -n standby -j", Subjects: []string{"vda"}, Reason: "a virtio disk has no SMART", NotApplicable: true},
		{Check: "smartctl -x -n standby -j", Subjects: []string{"sdb", "loop0", "sda"}, Reason: "smartctl: not recorded"},
		{Check: "kernel-log", Reason: "dmesg: not recorded"},
		{Check: "controller", Subjects: []string{"sda"}, Reason: "ssacli: not installed"},
	}, judged)
	if len(inc) != 4 || inc[0].Check != "controller" || inc[1].Check != "smartctl -x -n standby -j" || len(inc[1].Subjects) != 2 || inc[1].Subjects[0] != "sda" {
		t.Fatalf("incomplete %+v", inc)
	}
	// The kernel log is read once for the machine: unread, no judged
	// device's errors were looked for.
	if k := inc[2]; k.Check != "kernel-log" || strings.Join(k.Subjects, " ") != "sda sdb" {
		t.Errorf("kernel log %+v, want it incomplete on sda and sdb", k)
	}
	passed := withoutIncomplete([]Passed{
		{Rule: "write-cache-disabled", Area: "write cache", Subjects: []string{"sda", "sdb"}},
		{Rule: "smart-failing", Area: "SMART", Subjects: []string{"sda", "sdb"}},
		{Rule: "trim-not-scheduled", Area: "TRIM", Subjects: []string{"sda"}},
	}, inc)
	// sda's controller and sdb's NVMe write cache feature (Get Features
	// 06h) were not read: neither is fine on write cache; SMART on
	// neither; TRIM on sda.
	if len(passed) != 1 || passed[0].Rule != "trim-not-scheduled" {
		t.Errorf("passed %+v", passed)
	}
}

// What a benchmark would measure besides the disks keeps a machine from
// READY: pressure, background work, and the hypervisor's steal, whose
// rule says benchmark figures include it.
func TestReadinessRules(t *testing.T) {
	for id, want := range map[string]bool{
		"io-pressure-high": true, "cpu-pressure-high": true, "zfs-background-work": true,
		"cpu-steal-high": true, "cpu-governor-powersave": false, "write-cache-disabled": false,
	} {
		if got := readinessRule(id); got != want {
			t.Errorf("readinessRule(%q) = %v, want %v", id, got, want)
		}
	}
}
