package checks

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/diskdoctor/diskdoctor/machine"
)

// The kernel-log check on a recorded machine: ata2's resets and medium
// errors are sdb's (through its sysfs path), counted once per incident,
// with the age of the last message from /proc/uptime.
func TestKernelLogCheckRecorded(t *testing.T) {
	h, err := machine.Recorded("../fixtures/sata-hdd-pending-sectors")
	if err != nil {
		t.Fatalf("load fixture: %v", err)
	}
	env := newEnv(h, Options{ProbeTimeout: time.Second})
	obs := kernelLogCheck(context.Background(), env)
	by := map[string]*Observation{}
	for _, o := range obs {
		by[o.Subject] = o
	}
	sdb, sda, host := by["sdb"], by["sda"], by["host"]
	if sdb == nil || sda == nil || host == nil {
		t.Fatalf("observations: %v", by)
	}
	f := factMap(sdb)
	if f["klog_medium_errors"] != 3 || f["klog_io_errors"] != 3 || f["klog_resets"] != 6 || f["klog_timeouts"] != 6 || f["klog_critical_events"] != 6 {
		t.Errorf("sdb counts: %v", f)
	}
	if f["klog_boot_only"] != false || f["klog_link_downgraded"] != false || f["klog_link_gbps"] != 6.0 {
		t.Errorf("sdb: boot_only %v downgraded %v link %v", f["klog_boot_only"], f["klog_link_downgraded"], f["klog_link_gbps"])
	}
	if age, ok := f["klog_last_age_s"].(float64); !ok || age < 300 || age > 400 {
		t.Errorf("age of the last message: %v (uptime 36522.87, last line 36191.2)", f["klog_last_age_s"])
	}
	ev := sdb.EvidenceOf("klog_events")
	if len(ev) == 0 || !strings.Contains(ev[0].Value, "{ UNC }") {
		t.Errorf("first evidence should be the worst category: %v", ev)
	}
	for _, e := range ev {
		if strings.Contains(e.Value, "hard resetting link") && !strings.Contains(e.Source, "6 times") {
			t.Errorf("six resets must be one evidence entry with a count: %v", e)
		}
	}
	if factMap(sda)["klog_events"] != 0 {
		t.Errorf("sda: %v", factMap(sda))
	}
	if factMap(host)["uptime_s"] != 36523.0 {
		t.Errorf("uptime %v", factMap(host)["uptime_s"])
	}
}

// Without dmesg (refused in the blind VM) there are no kernel-log facts;
// the skipped entry comes from Env.KernelLog.
func TestKernelLogCheckRefused(t *testing.T) {
	h, err := machine.Recorded("../fixtures/blind-vm")
	if err != nil {
		t.Fatalf("load fixture: %v", err)
	}
	env := newEnv(h, Options{ProbeTimeout: time.Second})
	if obs := kernelLogCheck(context.Background(), env); len(obs) != 0 {
		t.Errorf("observations without a log: %v", obs)
	}
	if len(env.skipped()) == 0 {
		t.Error("no skipped entry for the refused dmesg")
	}
}
