package smart

import (
	"errors"
	"os"
	"path/filepath"
	"testing"

	smart "github.com/anatol/smart.go"
	"github.com/diskdoctor/diskdoctor/internal/testutil"
	"github.com/diskdoctor/diskdoctor/machine"
)

const samplesDir = "../../../shared/samples"

// Every smartctl sample of ../shared/samples parses, with what its README
// says it shows.
func TestParseSmartctlSamples(t *testing.T) {
	dir := filepath.Join(samplesDir, "smartctl")
	files, _ := filepath.Glob(filepath.Join(dir, "*.json"))
	if len(files) == 0 {
		t.Skipf("no smartctl samples at %s (the shared samples folder is absent)", dir)
	}
	check := map[string]func(t *testing.T, s *Info){
		"sata-hdd-hitachi-HDS721050DLE630-failing.json": func(t *testing.T, s *Info) {
			a, _ := s.Attr(5)
			if *s.Passed || !a.Failing() || a.Raw != 1975 || s.LinkCurGbps != 1.5 || s.LinkMaxGbps != 6 {
				t.Errorf("%+v %+v", s, a)
			}
		},
		"sata-ssd-samsung-840-crc-errors-xall.json": func(t *testing.T, s *Info) {
			a, _ := s.Attr(199)
			if !*s.Passed || a.Raw != 108 || *s.TempC != 33 {
				t.Errorf("%+v %+v", s, a)
			}
		},
		"nvme-samsung-MZWLL3T2HAJQ-critical-warning.json": func(t *testing.T, s *Info) {
			if *s.Passed || s.NVMe.CriticalWarning != 16 || len(s.NVMe.CriticalWarnings()) != 1 || *s.Exit != 8 {
				t.Errorf("%+v %+v", s, s.NVMe)
			}
		},
		"nvme-samsung-970evo-media-errors.json": func(t *testing.T, s *Info) {
			if !*s.Passed || s.NVMe.MediaErrors != 7 || s.NVMe.ErrLogEntries != 62 || s.NVMe.AvailableSpare != 99 {
				t.Errorf("%+v", s.NVMe)
			}
		},
		"nvme-intel-P4500-wear-75pct.json": func(t *testing.T, s *Info) {
			if s.NVMe.PercentUsed != 75 {
				t.Errorf("%+v", s.NVMe)
			}
		},
		"scsi-seagate-ST373453LC-grown-defects.json": func(t *testing.T, s *Info) {
			if s.SCSI == nil || *s.SCSI.GrownDefects != 260 || *s.SCSI.WriteUncorrected != 535 || *s.TempWarnC != 68 {
				t.Errorf("%+v", s.SCSI)
			}
		},
		"sata-ssd-crucial-m4-xall-truenas.json": func(t *testing.T, s *Info) {
			if !*s.WriteCache || !*s.TrimSupported {
				t.Errorf("write cache %v, trim %v", s.WriteCache, s.TrimSupported)
			}
			if s.TempC != nil || *s.TempWarnC != 70 || *s.TempCritC != 75 {
				t.Errorf("temperature 0 is no reading; limits from SCT: %v %v %v", s.TempC, s.TempWarnC, s.TempCritC)
			}
		},
		"sata-hdd-seagate-ST6000NM0115-megaraid.json": func(t *testing.T, s *Info) {
			if len(s.Notes) != 1 || !*s.Passed {
				t.Errorf("%+v", s)
			}
		},
	}
	for _, f := range files {
		t.Run(filepath.Base(f), func(t *testing.T) {
			b, err := os.ReadFile(f)
			testutil.Must(t, err)
			s, err := ParseJSON(b)
			if err != nil {
				t.Fatal(err)
			}
			if s.Passed == nil || s.Model == "" {
				t.Errorf("no verdict or model: %+v", s)
			}
			if c := check[filepath.Base(f)]; c != nil {
				c(t, s)
			}
		})
	}
}

func TestParseSmartctlMalformed(t *testing.T) {
	for name, c := range map[string]struct {
		in   string
		want error
	}{
		"empty":            {"", machine.ErrParse},
		"not json":         {"smartctl 7.3 2022-02-28 r5338\n=== START OF INFORMATION SECTION ===\n", machine.ErrParse},
		"truncated":        {`{"smartctl": {"exit_status": 0}, "ata_smart_attributes": {"table": [{"id": 5,`, machine.ErrParse},
		"no smartctl":      {`{"device": {"name": "/dev/sda"}}`, machine.ErrParse},
		"wrong types":      {`{"smartctl": {"exit_status": "zero"}}`, machine.ErrParse},
		"open failed":      {`{"smartctl": {"exit_status": 2, "messages": [{"string": "Smartctl open device: /dev/vda failed: Unable to detect device type", "severity": "error"}]}}`, machine.ErrNotAvailable},
		"permission":       {`{"smartctl": {"exit_status": 2, "messages": [{"string": "Smartctl open device: /dev/sda failed: Permission denied", "severity": "error"}]}}`, machine.ErrPermission},
		"no health data":   {`{"smartctl": {"exit_status": 4}, "device": {"protocol": "ATA"}, "model_name": "X"}`, machine.ErrNotAvailable},
		"nvme without log": {`{"smartctl": {"exit_status": 0}, "nvme_smart_health_information_log": {"media_errors": 3}}`, machine.ErrParse},
	} {
		t.Run(name, func(t *testing.T) {
			s, err := ParseJSON([]byte(c.in))
			if !errors.Is(err, c.want) {
				t.Errorf("got %v (%+v), want %v", err, s, c.want)
			}
		})
	}
}

func TestParseSmartctlMinimal(t *testing.T) {
	// A -x run whose SMART RETURN STATUS failed: exit bit 3 without a
	// smart_status object still says "failing".
	s, err := ParseJSON([]byte(`{"smartctl": {"exit_status": 24}, "device": {"protocol": "ATA"},
	 "ata_smart_attributes": {"table": [
	  {"id": 5, "name": "Reallocated_Sector_Ct", "value": 3, "worst": 3, "thresh": 36, "when_failed": "now", "flags": {"prefailure": true}, "raw": {"value": 4012, "string": "4012"}},
	  {"id": 197, "name": "Current_Pending_Sector", "value": 100, "worst": 100, "thresh": 0, "when_failed": "", "flags": {"prefailure": false}, "raw": {"value": 24, "string": "24"}},
	  {"id": 3, "name": "Spin_Up_Time", "value": 97, "worst": 90, "thresh": 97, "when_failed": "", "flags": {"prefailure": true}, "raw": {"value": 0, "string": "0"}},
	  {"id": 190, "name": "Airflow_Temperature_Cel", "value": 60, "worst": 40, "thresh": 45, "when_failed": "past", "flags": {"prefailure": false}, "raw": {"value": 40, "string": "40 (Min/Max 20/55)"}}]}}`))
	testutil.Must(t, err)
	if s.Passed == nil || *s.Passed {
		t.Error("exit bit 3 must mean failing")
	}
	var failing []int
	for _, a := range s.Attributes {
		if a.Failing() {
			failing = append(failing, a.ID)
		}
	}
	if len(failing) != 2 || failing[0] != 5 || failing[1] != 3 {
		t.Errorf("failing = %v, want [5 3] (when_failed now; prefail value at threshold)", failing)
	}
	if v, ok := TemperatureFromRaw("40 (Min/Max 20/55)"); !ok || v != 40 {
		t.Errorf("temperature from raw: %d %v", v, ok)
	}
	if _, ok := TemperatureFromRaw("167504969753"); ok {
		t.Error("a packed raw value is no temperature")
	}
}

func TestSMARTInfoFromLibrary(t *testing.T) {
	s := FromATA(map[int]ATAAttrRaw{
		5:   {ID: 5, Name: "Reallocated_Sector_Ct", Flags: smart.AtaAttributeFlagPrefailure, Value: 100, Worst: 100, Raw: 8},
		9:   {ID: 9, Name: "Power_On_Hours", Value: 90, Raw: 12000},
		194: {ID: 194, Name: "Temperature_Celsius", Value: 60, Temp: testutil.Ptr(40)},
		1:   {ID: 1, Name: "Raw_Read_Error_Rate", Flags: smart.AtaAttributeFlagPrefailure, Value: 50, Raw: 0},
	}, map[int]int{5: 10, 1: 51})
	if *s.Passed || s.Attributes[0].ID != 1 || !s.Attributes[0].Failing() || *s.TempC != 40 || *s.PowerOnHours != 12000 {
		t.Errorf("%+v", s)
	}
	l := &smart.NvmeSMARTLog{CritWarning: 1, Temperature: 350, AvailSpare: 4, SpareThresh: 10, PercentUsed: 97}
	l.MediaErrors.Val[0] = 183
	n := FromNVMe(l, 358, 0, true)
	if *n.Passed || *n.TempC != 77 || *n.TempWarnC != 85 || n.TempCritC != nil || n.NVMe.MediaErrors != 183 || n.NVMe.CriticalWarnings()[0] != criticalWarningBits[0] {
		t.Errorf("%+v %+v", n, n.NVMe)
	}
}

func TestReadSmartctlRecorded(t *testing.T) {
	dir := t.TempDir()
	testutil.WriteFile(t, dir+"/sys/.keep", "")
	testutil.WriteFile(t, dir+"/commands/manifest.yaml", "- argv: [smartctl, -x, -n, standby, -j, /dev/sda]\n  stdout: sda.json\n  exit: 4\n- argv: [smartctl, -x, -n, standby, -j, /dev/vda]\n  stdout: vda.json\n  exit: 2\n")
	testutil.WriteFile(t, dir+"/commands/sda.json", `{"smartctl": {"exit_status": 4}, "smart_status": {"passed": true}}`)
	testutil.WriteFile(t, dir+"/commands/vda.json", `{"smartctl": {"exit_status": 2, "messages": [{"string": "/dev/vda: Unable to detect device type", "severity": "error"}]}}`)
	h, err := machine.Recorded(dir)
	testutil.Must(t, err)
	s, err := Read(t.Context(), h, "sda", false)
	if err != nil || !*s.Passed || s.Source != "smartctl -x -n standby -j /dev/sda" {
		t.Errorf("sda: %+v %v", s, err)
	}
	if _, err := Read(t.Context(), h, "vda", false); !errors.Is(err, machine.ErrNotAvailable) {
		t.Errorf("vda: %v", err)
	}
	if _, err := Read(t.Context(), h, "sdb", false); !errors.Is(err, machine.ErrToolMissing) {
		t.Errorf("sdb (not recorded): %v", err)
	}
	if _, err := ReadLive(t.Context(), h, "sda", false); !errors.Is(err, machine.ErrNotAvailable) {
		t.Errorf("smart.go on a recording: %v", err)
	}
}

// smart.go on the live machine: a device that is not there, or one that
// speaks neither ATA nor NVMe (a loop device), is an error, never a hang.
func TestReadSMARTLiveErrors(t *testing.T) {
	h := machine.Live()
	if _, err := ReadLive(t.Context(), h, "no-such-disk-diskdoctor", false); !errors.Is(err, machine.ErrNotAvailable) {
		t.Errorf("missing device: %v", err)
	}
	for _, nvme := range []bool{false, true} {
		if _, err := os.Stat("/dev/loop0"); err != nil {
			t.Skip("no /dev/loop0")
		}
		if s, err := ReadLive(t.Context(), h, "loop0", nvme); err == nil {
			t.Errorf("SMART from a loop device (nvme %v): %+v", nvme, s)
		}
	}
}
