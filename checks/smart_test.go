package checks

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/diskdoctor/diskdoctor/machine"
	"github.com/diskdoctor/diskdoctor/probes/smart"
)

func intp(v int) *int { return &v }

func boolp(v bool) *bool { return &v }

func u64p(v uint64) *uint64 { return &v }

func TestSMARTObservationReasons(t *testing.T) {
	attr := func(id int, name string, val, thresh int, raw uint64, prefail bool) smart.Attr {
		return smart.Attr{ID: id, Name: name, Value: val, Worst: val, Thresh: thresh, Raw: raw, Prefail: prefail}
	}
	tests := []struct {
		name       string
		s          *smart.Info
		crit, warn []string // substrings, in order
	}{
		{"healthy", &smart.Info{Passed: boolp(true), Attributes: []smart.Attr{attr(5, "Reallocated_Sector_Ct", 100, 10, 0, true), attr(199, "UDMA_CRC_Error_Count", 200, 0, 3, false)}}, nil, nil},
		{"failed health", &smart.Info{Passed: boolp(false)}, []string{"overall health FAILED"}, nil},
		{"prefail at threshold", &smart.Info{Passed: boolp(true), Attributes: []smart.Attr{attr(3, "Spin_Up_Time", 21, 21, 0, true)}}, []string{"3 Spin_Up_Time (value 21, threshold 21)"}, nil},
		{"old-age attribute below threshold is not prefail", &smart.Info{Passed: boolp(true), Attributes: []smart.Attr{attr(190, "Airflow_Temperature_Cel", 40, 45, 60, false)}}, nil, nil},
		{"pending and reallocated", &smart.Info{Passed: boolp(true), Attributes: []smart.Attr{attr(5, "Reallocated_Sector_Ct", 199, 140, 16, true), attr(197, "Current_Pending_Sector", 200, 0, 24, false)}}, nil, []string{"16 reallocated", "24 sectors pending"}},
		{"vendor-packed raw is no count", &smart.Info{Passed: boolp(true), Attributes: []smart.Attr{attr(187, "Reported_Uncorrect", 100, 0, 1<<40, false)}}, nil, nil},
		{"wear 91 %", &smart.Info{Passed: boolp(true), Attributes: []smart.Attr{attr(177, "Wear_Leveling_Count", 9, 0, 3100, true)}}, nil, []string{"91 % of rated endurance"}},
		{"SandForce wear range delta is no endurance", &smart.Info{Passed: boolp(true), Attributes: []smart.Attr{attr(177, "Wear_Range_Delta", 0, 0, 1, false)}}, nil, nil},
		{"wear attribute id on a hard disk", &smart.Info{Passed: boolp(true), Attributes: []smart.Attr{attr(202, "Data_Address_Mark_Errs", 5, 0, 0, false)}}, nil, nil},
		{"nvme spare below threshold, bit not set", &smart.Info{Passed: boolp(true), NVMe: &smart.NVMeHealth{AvailableSpare: 6, SpareThreshold: 10}}, []string{"available spare 6 % below its threshold 10 %"}, nil},
		{"nvme bits", &smart.Info{Passed: boolp(false), NVMe: &smart.NVMeHealth{CriticalWarning: 5, AvailableSpare: 6, SpareThreshold: 10, MediaErrors: 3}}, []string{"FAILED", "available spare below threshold, reliability degraded"}, []string{"3 media"}},
		{"nvme worn", &smart.Info{Passed: boolp(true), NVMe: &smart.NVMeHealth{AvailableSpare: 100, SpareThreshold: 10, PercentUsed: 100, ErrLogEntries: 4871}}, nil, []string{"100 % of rated endurance"}},
		{"scsi", &smart.Info{Passed: boolp(true), SCSI: &smart.SCSIHealth{GrownDefects: u64p(0), ReadUncorrected: u64p(0), WriteUncorrected: u64p(2)}}, nil, []string{"2 uncorrected"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			o := SMARTObservation("sda", tt.s)
			check := func(fact string, want []string) {
				got, _ := factMap(o)[fact].([]string)
				if len(got) != len(want) {
					t.Fatalf("%s = %q, want %d entries like %q", fact, got, len(want), want)
				}
				for i := range want {
					if !strings.Contains(got[i], want[i]) {
						t.Errorf("%s[%d] = %q, want it to contain %q", fact, i, got[i], want[i])
					}
				}
			}
			check("smart_critical", tt.crit)
			check("smart_warnings", tt.warn)
		})
	}
}

// One of a count is said in the singular: "1 sectors pending
// reallocation" is not English.
func TestSMARTWarningsSingular(t *testing.T) {
	attr := func(id int, name string) smart.Attr {
		return smart.Attr{ID: id, Name: name, Value: 100, Worst: 100, Raw: 1}
	}
	for _, c := range []struct {
		s    *smart.Info
		want []string
	}{
		{&smart.Info{Passed: boolp(true), Attributes: []smart.Attr{attr(5, "Reallocated_Sector_Ct"), attr(197, "Current_Pending_Sector"), attr(198, "Offline_Uncorrectable"), attr(187, "Reported_Uncorrect")}},
			[]string{"1 reallocated sector", "1 sector pending reallocation", "1 offline uncorrectable sector", "1 uncorrectable error reported"}},
		{&smart.Info{Passed: boolp(true), SCSI: &smart.SCSIHealth{GrownDefects: u64p(1), ReadUncorrected: u64p(1)}},
			[]string{"1 grown defect", "1 uncorrected read/write/verify error"}},
		{&smart.Info{Passed: boolp(true), NVMe: &smart.NVMeHealth{AvailableSpare: 100, SpareThreshold: 10, MediaErrors: 1}},
			[]string{"1 media and data integrity error"}},
	} {
		got, _ := factMap(SMARTObservation("sda", c.s))["smart_warnings"].([]string)
		if strings.Join(got, "|") != strings.Join(c.want, "|") {
			t.Errorf("smart_warnings = %q, want %q", got, c.want)
		}
	}
}

func TestSMARTTemperatureFacts(t *testing.T) {
	o := SMARTObservation("nvme0n1", &smart.Info{Source: "smartctl -x -j /dev/nvme0n1", Passed: boolp(true), TempC: intp(86), TempWarnC: intp(85), TempCritC: intp(90)})
	if o.Get("smart_temp_c") != 86 || o.Get("smart_temp_warn_c") != 85 || o.Get("smart_temp_crit_c") != 90 {
		t.Errorf("%v", factMap(o))
	}
	if ev := o.EvidenceOf("smart_temp_c"); len(ev) != 1 || ev[0].Source != "smartctl -x -j /dev/nvme0n1" {
		t.Errorf("evidence %v", ev)
	}
}

// The check against recorded machines: a virtio disk is a skipped entry,
// an unrecorded smartctl is "not installed", a recorded one gives facts.
func TestSmartCheckRecorded(t *testing.T) {
	for _, c := range []struct {
		fixture, dev string
		skip         string
	}{
		{"blind-vm", "vda", "virtio disk has no SMART"},
		{"hpe-microserver-writethrough", "sda", "smartctl: not recorded"},
		{"sata-hdd-pending-sectors", "", ""},
	} {
		t.Run(c.fixture, func(t *testing.T) {
			h, err := machine.Recorded("../fixtures/" + c.fixture)
			if err != nil {
				t.Fatalf("load fixture: %v", err)
			}
			env := newEnv(h, Options{ProbeTimeout: time.Second})
			obs := smartCheck(context.Background(), env)
			if c.skip == "" {
				var sdb *Observation
				for _, o := range obs {
					if o.Subject == "sdb" {
						sdb = o
					}
				}
				if sdb == nil || factMap(sdb)["smart_pending"] != uint64(24) || factMap(sdb)["smart_passed"] != true {
					t.Fatalf("sdb: %+v", sdb)
				}
				return
			}
			found := false
			for _, s := range env.skipped() {
				if s.Check == "smartctl -x -n standby -j" && strings.Contains(s.Reason, c.skip) {
					for _, d := range s.Subjects {
						found = found || d == c.dev
					}
				}
			}
			if !found {
				t.Errorf("no skipped entry %q for %s: %+v", c.skip, c.dev, env.skipped())
			}
		})
	}
}

// A disk that smartctl -n standby left asleep is a fact on the device,
// with no health figures and no concern: not a failure, not a skipped
// probe (issue #10 item 15).
func TestSMARTObservationStandby(t *testing.T) {
	exit := 2
	s := &smart.Info{Source: "smartctl -x -n standby -j /dev/sdb", Protocol: "ATA", Standby: "STANDBY", Exit: &exit, Notes: []string{"Device is in STANDBY mode, exit(2)"}}
	o := SMARTObservation("sdb", s)
	if o.Get("smart_standby") != "STANDBY" || o.Get("smart_passed") != nil {
		t.Errorf("facts %v", factMap(o))
	}
	if ev := o.EvidenceOf("smart_standby"); len(ev) != 1 || !strings.Contains(ev[0].Value, "not woken") {
		t.Errorf("evidence %v", ev)
	}
	if c, _ := o.Get("smart_critical").([]string); len(c) != 0 {
		t.Errorf("critical %v", c)
	}
	if w, _ := o.Get("smart_warnings").([]string); len(w) != 0 {
		t.Errorf("warnings %v", w)
	}
}

// A drive answered from an older recording's smartctl -x -j (no -n
// standby, issue #26) has its standby state unknown, not absent: that
// argv may have woken it. A current answer leaves no standby fact.
func TestSMARTObservationStandbyUnknownFromPredecessor(t *testing.T) {
	passed := true
	o := SMARTObservation("sda", &smart.Info{Source: "smartctl -x -j /dev/sda", Protocol: "ATA", Passed: &passed, StandbyUnknown: true})
	if v, ok := o.Lookup("smart_standby"); !ok || v != nil {
		t.Errorf("smart_standby %v (set %v), want unknown", v, ok)
	}
	if o.Get("smart_passed") != true {
		t.Errorf("facts %v", factMap(o))
	}
	o = SMARTObservation("sda", &smart.Info{Source: "smartctl -x -n standby -j /dev/sda", Protocol: "ATA", Passed: &passed})
	if _, ok := o.Lookup("smart_standby"); ok {
		t.Error("a current answer sets smart_standby")
	}
}

// A drive that reports only its link's maximum (behind a USB bridge) has
// no current speed: no 0 Gb/s fact, and no empty field in the evidence.
func TestSMARTLinkCurrentNotReported(t *testing.T) {
	o := SMARTObservation("sdb", &smart.Info{Source: "smartctl.json", Passed: boolp(true), LinkMax: "3.0 Gb/s", LinkMaxGbps: 3})
	if v := o.Get("smart_link_cur_gbps"); v != nil {
		t.Errorf("smart_link_cur_gbps = %v, want nil", v)
	}
	for _, ev := range o.EvidenceOf("smart_link_max_gbps") {
		if strings.HasSuffix(strings.TrimSpace(ev.Value), "current") {
			t.Errorf("evidence %q ends in an empty field", ev.Value)
		}
	}
}
