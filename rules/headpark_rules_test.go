package rules

import (
	"strings"
	"testing"
)

// hdd-head-parking on facts built in the test. The parking case carries
// the counts of a WD20SPZX in Napsty/check_smart pull request 91
// (Load_Cycle_Count 1239994 at Power_On_Hours 38056, 32.6 per hour); the
// healthy twin the counts of a drive that parks only now and then (16,993
// at 36,055 hours, 0.5 per hour).
func TestHDDHeadParking(t *testing.T) {
	hdd := map[string]any{"rotational": true, "model": "WDC WD20SPZX-22CRAT0", "smart_model": "WDC WD20SPZX-22CRAT0", "dev_path": "/dev/sda"}
	with := func(extra map[string]any) map[string]any { return merged(hdd, extra) }
	tests := []struct {
		name  string
		facts map[string]any
		want  string
	}{
		{"a million cycles at 38,056 hours", with(map[string]any{"smart_load_cycles": uint64(1239994), "smart_load_cycles_per_hour": 32.6}), Warning},
		{"16,993 cycles at 36,055 hours", with(map[string]any{"smart_load_cycles": uint64(16993), "smart_load_cycles_per_hour": 0.5}), ""},
		{"over the 300,000 rating at a low rate", with(map[string]any{"smart_load_cycles": uint64(310000), "smart_load_cycles_per_hour": 4.1}), Warning},
		{"APM 127", with(map[string]any{"smart_load_cycles": uint64(900), "smart_load_cycles_per_hour": 0.2, "smart_apm_enabled": true, "smart_apm_level": 127}), Warning},
		{"APM 128", with(map[string]any{"smart_load_cycles": uint64(39785), "smart_load_cycles_per_hour": 9.1, "smart_apm_enabled": true, "smart_apm_level": 128}), ""},
		{"an SSD's counter", with(map[string]any{"rotational": false, "smart_load_cycles": uint64(500000), "smart_load_cycles_per_hour": 50.0}), ""},
		{"no attribute 193", with(map[string]any{"smart_load_cycles": nil, "smart_load_cycles_per_hour": nil}), ""},
		// hdparm -B where smartctl gave no ata_apm; smartctl's stays first.
		{"hdparm -B 127, smartctl silent", with(map[string]any{"smart_load_cycles": uint64(900), "hdparm_apm_enabled": true, "hdparm_apm_level": 127}), Warning},
		{"hdparm -B 254, smartctl silent", with(map[string]any{"smart_load_cycles": uint64(900), "hdparm_apm_enabled": true, "hdparm_apm_level": 254}), ""},
		{"hdparm -B off", with(map[string]any{"smart_load_cycles": uint64(900), "hdparm_apm_enabled": false}), ""},
		{"smartctl 128 over hdparm 127", with(map[string]any{"smart_load_cycles": uint64(900), "smart_apm_enabled": true, "smart_apm_level": 128, "hdparm_apm_enabled": true, "hdparm_apm_level": 127}), ""},
		{"smartctl APM off over hdparm 127", with(map[string]any{"smart_load_cycles": uint64(900), "smart_apm_enabled": false, "hdparm_apm_enabled": true, "hdparm_apm_level": 127}), ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			wantSeverity(t, "server", "auto", device("sda", tt.facts), "hdd-head-parking", tt.want)
		})
	}
}

// "Every few seconds" is said only where the load cycle count shows it;
// an APM level below 128 alone says what the drive is allowed to do.
func TestHDDHeadParkingTitleFromTheCount(t *testing.T) {
	hdd := map[string]any{"rotational": true, "model": "WDC WD2500BMVS-11F9S0", "dev_path": "/dev/sdb"}
	for _, c := range []struct {
		facts map[string]any
		often bool
	}{
		{map[string]any{"hdparm_apm_enabled": true, "hdparm_apm_level": 120}, false},
		{map[string]any{"smart_load_cycles": uint64(900), "smart_load_cycles_per_hour": 0.2, "smart_apm_enabled": true, "smart_apm_level": 127}, false},
		{map[string]any{"smart_load_cycles": uint64(1239994), "smart_load_cycles_per_hour": 32.6}, true},
	} {
		fs := findingsOf(judge(t, device("sdb", merged(hdd, c.facts))), "hdd-head-parking")
		if len(fs) != 1 || strings.Contains(fs[0].Title, "every few seconds") != c.often {
			t.Errorf("%v: %v, want 'every few seconds' %v", c.facts, fs, c.often)
		}
	}
}
