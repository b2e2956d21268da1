package raidctl

import (
	"os"
	"path/filepath"
	"testing"
)

func readTestdata(t testing.TB, name string) []byte {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func wantValue(t *testing.T, what string, v Value, text string, line int) {
	t.Helper()
	if !v.Set || v.Text != text || (line >= 0 && v.Line.N != line) {
		t.Errorf("%s = %+v, want %q at line %d", what, v, text, line)
	}
}

// The values below were read from the captures by hand.
func TestParseSmartArrayFailedBatteryOnCciss(t *testing.T) {
	inv, err := ParseSmartArray(readTestdata(t, "netdata/ssacli-P400i-unassigned.txt"))
	if err != nil {
		t.Fatal(err)
	}
	if len(inv.Controllers) != 1 {
		t.Fatalf("%d controllers, want 1", len(inv.Controllers))
	}
	c := inv.Controllers[0]
	if c.ID != "slot=0" {
		t.Errorf("ID %q", c.ID)
	}
	wantValue(t, "model", c.Model, "Smart Array P400i", 1)
	wantValue(t, "cache status", c.CacheStatus, "Temporarily Disabled", -1)
	wantValue(t, "cache detail", c.CacheStatusDetail, "Cache disabled; low batteries.", -1)
	wantValue(t, "ratio", c.CacheRatio, "25% Read / 75% Write", -1)
	wantValue(t, "battery", c.EnergyPack.Status, "Failed (Replace Batteries)", -1)
	if c.EnergyPack.Kind != "battery" {
		t.Errorf("energy pack kind %q", c.EnergyPack.Kind)
	}
	if len(c.Volumes) != 1 {
		t.Fatalf("%d volumes", len(c.Volumes))
	}
	v := c.Volumes[0]
	wantValue(t, "disk name", v.OSName, "/dev/cciss/c0d0", -1)
	wantValue(t, "wwn", v.WWN, "600508B1001038333220202020200004", -1)
	wantValue(t, "raid", v.RAID, "1", -1)
	if len(v.Drives) != 2 || v.Drives[0] != "1I:1:3" || v.Drives[1] != "1I:1:4" {
		t.Errorf("volume drives %v", v.Drives)
	}
	if len(c.Drives) != 4 {
		t.Fatalf("%d drives, want 4 (2 in the array, 2 unassigned)", len(c.Drives))
	}
	if c.Drives[2].ID != "1I:1:1" || c.Drives[2].Volume != "" {
		t.Errorf("unassigned drive %+v", c.Drives[2])
	}
	wantValue(t, "drive model", c.Drives[0].Model, "INTEL SSDSA2BZ10", -1)
}

func TestParseSmartArrayTwoControllersWithoutEnergyPack(t *testing.T) {
	inv, err := ParseSmartArray(readTestdata(t, "netdata/ssacli-P212_P410i.txt"))
	if err != nil {
		t.Fatal(err)
	}
	if len(inv.Controllers) != 2 {
		t.Fatalf("%d controllers", len(inv.Controllers))
	}
	p212, p410 := inv.Controllers[0], inv.Controllers[1]
	if p212.ID != "slot=5" || p410.ID != "slot=0" {
		t.Errorf("IDs %q %q", p212.ID, p410.ID)
	}
	wantValue(t, "ratio", p410.CacheRatio, "100% Read / 0% Write", 479)
	wantValue(t, "drive write cache", p410.DriveWriteCache, "Disabled", 480)
	if p410.EnergyPack.Status.Set || p410.EnergyPack.Kind != "" {
		t.Errorf("P410i has no energy pack line, got %+v", p410.EnergyPack)
	}
	if len(p410.Volumes) != 2 || p410.Volumes[0].OSName.Text != "/dev/sda" || p410.Volumes[1].OSName.Text != "/dev/sdb" {
		t.Fatalf("P410i volumes %+v", p410.Volumes)
	}
	if got := p410.Volumes[1].Drives; len(got) != 4 {
		t.Errorf("logical drive 2 drives %v", got)
	}
	if len(p212.Drives) != 12 || p212.Drives[0].Media.Text != "HDD" {
		t.Errorf("P212 drives %d, first %+v", len(p212.Drives), p212.Drives[0])
	}
}

func TestParseSmartArrayNoBatteryWriteCache(t *testing.T) {
	inv, err := ParseSmartArray(readTestdata(t, "netdata/ssacli-P408i-a.txt"))
	if err != nil {
		t.Fatal(err)
	}
	c := inv.Controllers[0]
	wantValue(t, "nbwc", c.NoBatteryWrite, "Enabled", -1)
	wantValue(t, "drive write cache policy", c.DriveWriteCache, "Enable", -1)
	wantValue(t, "battery", c.EnergyPack.Status, "OK", -1)
	if c.Volumes[0].OSName.Text != "/dev/sda" || c.Drives[0].Model.Text != "MTFDDAK960TCB" || c.Drives[0].Media.Text != "HDD" && c.Drives[0].Media.Text != "SSD" {
		t.Errorf("volume %+v drive %+v", c.Volumes[0].OSName, c.Drives[0])
	}
}

func TestParseSmartArraySSDMedia(t *testing.T) {
	inv, err := ParseSmartArray(readTestdata(t, "netdata/ssacli-P400ar.txt"))
	if err != nil {
		t.Fatal(err)
	}
	d := inv.Controllers[0].Drives[0]
	if d.ID != "1I:1:1" || d.Media.Text != "SSD" || d.Model.Text != "INTEL SSDSC2KB01" {
		t.Errorf("drive %+v", d)
	}
	wantValue(t, "serial without a space after the colon", d.Serial, "REDACTED", 157)
}

func TestParseSmartArrayRefusesOtherText(t *testing.T) {
	if inv, err := ParseSmartArray([]byte("Error: No controllers detected.\n")); err != nil || len(inv.Controllers) != 0 {
		t.Errorf("no controllers: %v %v", inv, err)
	}
	if _, err := ParseSmartArray([]byte("{\"Controllers\": []}")); err == nil {
		t.Error("JSON taken for ssacli output")
	}
	if _, err := ParseSmartArray(make([]byte, maxOutput+1)); err == nil {
		t.Error("oversized output accepted")
	}
}

func TestParseSmartArrayVolumeTasks(t *testing.T) {
	out := "Smart Array P420i in Slot 0 (Embedded)\n   Cache Status: OK\n\n   Array: A\n      Logical Drive: 1\n         Status: Recovering, 45% complete\n         Parity Initialization Status: In Progress\n"
	inv, err := ParseSmartArray([]byte(out))
	if err != nil {
		t.Fatal(err)
	}
	ts := inv.Controllers[0].Volumes[0].Tasks
	if len(ts) != 2 || ts[0].Kind != TaskRebuild || ts[0].Progress.Text != "45%" || ts[1].Kind != TaskInitialization {
		t.Errorf("tasks %+v", ts)
	}
}

func FuzzParseSmartArray(f *testing.F) {
	for _, n := range []string{"ssacli-P212_P410i.txt", "ssacli-P400i-unassigned.txt"} {
		f.Add(readTestdata(f, "netdata/"+n))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		inv, err := ParseSmartArray(b)
		if err == nil && inv == nil {
			t.Fatal("nil inventory without an error")
		}
	})
}

// Parsing cost per output, for docs/performance.md (make bench).
func BenchmarkParseControllers(b *testing.B) {
	ssa := readTestdata(b, "netdata/ssacli-P212_P410i.txt")
	ctl, drv := readTestdata(b, "netdata/megaraid-controllers-info.json"), readTestdata(b, "netdata/megaraid-drives-info.json")
	b.Run("ssacli-2-controllers", func(b *testing.B) {
		b.SetBytes(int64(len(ssa)))
		for b.Loop() {
			if _, err := ParseSmartArray(ssa); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("storcli-6-drives", func(b *testing.B) {
		b.SetBytes(int64(len(ctl) + len(drv)))
		for b.Loop() {
			if _, err := ParseStorcli(ctl, nil, drv); err != nil {
				b.Fatal(err)
			}
		}
	})
}
