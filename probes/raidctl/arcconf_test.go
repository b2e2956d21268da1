package raidctl

import (
	"os"
	"path/filepath"
	"testing"
)

const arcDir = "testdata/arcconf/glensc"

func parseArc(t testing.TB, name string) *Controller {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(arcDir, name))
	if err != nil {
		t.Fatal(err)
	}
	inv, err := ParseArcconf(b)
	if err != nil {
		t.Fatal(err)
	}
	if len(inv.Controllers) != 1 {
		t.Fatalf("%s: %d controllers", name, len(inv.Controllers))
	}
	return inv.Controllers[0]
}

// The values below were read from the captures by hand.
func TestParseArcconfFailedBattery(t *testing.T) {
	c := parseArc(t, "issue105-getconfig")
	wantValue(t, "model", c.Model, "Adaptec 5405", 7)
	wantValue(t, "cache", c.CacheSize, "256 MB", 11)
	wantValue(t, "battery", c.EnergyPack.Status, "Failed", 33)
	if c.EnergyPack.Kind != "battery" {
		t.Errorf("kind %q", c.EnergyPack.Kind)
	}
	v := c.Volumes[0]
	wantValue(t, "configured", v.ConfiguredWrite, "WriteBack", 46)
	wantValue(t, "current", v.CurrentWrite, "WriteThrough", 45)
	wantValue(t, "target", v.TargetID, "0", 38)
	if v.ConfiguredWrite.Line.Text != "Write-cache setting                      : Enabled (write-back) when protected by battery/ZMM" {
		t.Errorf("evidence %q", v.ConfiguredWrite.Line.Text)
	}
	if len(v.Drives) != 4 || len(c.Drives) != 4 {
		t.Errorf("volume drives %v, %d drives (the enclosure is not one)", v.Drives, len(c.Drives))
	}
}

func TestParseArcconfWriteBackSettings(t *testing.T) {
	for _, tc := range []struct {
		file, conf, cur, kind, status, present string
	}{
		{"3-getconfig", "Always WriteBack", "WriteBack", "capacitor", "Optimal", ""},      // "Enabled (write-back)": WB
		{"issue75-getconfig", "WriteBack", "WriteBack", "capacitor", "Optimal", ""},       // "On when protected by battery/ZMM"
		{"issue47-getconfig", "Always WriteBack", "WriteBack", "capacitor", "", "Absent"}, // "ZMM not installed"
		{"issue55-arcconf-getconfig.out", "WriteThrough", "WriteThrough", "battery", "", "Absent"},
		{"issue128-getconfig", "WriteThrough", "WriteThrough", "capacitor", "", "Absent"}, // "Overall Backup Unit Status : Not Present"
		{"1-getconfig", "", "", "battery", "", "Absent"},                                  // "Write-cache mode : Not supported"
	} {
		c := parseArc(t, tc.file)
		v := c.Volumes[0]
		if v.ConfiguredWrite.Text != tc.conf || v.CurrentWrite.Text != tc.cur {
			t.Errorf("%s: policy %q/%q, want %q/%q", tc.file, v.ConfiguredWrite.Text, v.CurrentWrite.Text, tc.conf, tc.cur)
		}
		e := c.EnergyPack
		if e.Kind != tc.kind || e.Status.Text != tc.status || e.Present.Text != tc.present {
			t.Errorf("%s: energy pack %q %q %q, want %q %q %q", tc.file, e.Kind, e.Status.Text, e.Present.Text, tc.kind, tc.status, tc.present)
		}
	}
}

func TestParseArcconfRebuild(t *testing.T) {
	c := parseArc(t, "issue47-getconfig2")
	v := c.Volumes[0]
	wantValue(t, "status", v.Status, "Degraded", 42)
	if len(v.Drives) != 4 {
		t.Errorf("drives %v", v.Drives)
	}
	if len(c.Tasks) != 1 || c.Tasks[0].Kind != TaskRebuild || c.Tasks[0].Line.N != 140 {
		t.Errorf("tasks %+v", c.Tasks)
	}
	d := c.Drives[3]
	if d.ID != "0,3" || d.Volume != "0" || d.Status.Text != "Rebuilding" {
		t.Errorf("drive %+v", d)
	}
}

// The failed drive is the segment "Inconsistent (0,2)" of logical
// device 1.
func TestParseArcconfFailedMember(t *testing.T) {
	c := parseArc(t, "issue155-getconfig")
	wantValue(t, "status", c.Volumes[1].Status, "Degraded", 62)
	failed := c.Drives[2]
	if failed.ID != "0,2" || failed.Status.Text != "Failed" || failed.Volume != "1" {
		t.Errorf("failed drive %+v", failed)
	}
	// Older firmware names a segment "(0,4)", the drive's channel,device.
	if got := c.Volumes[0].Drives; len(got) != 4 || got[2] != "0,4" {
		t.Errorf("volume 0 drives %v", got)
	}
}

func TestParseArcconfSmartRAID(t *testing.T) {
	c := parseArc(t, "arcconf31000-getconfig")
	wantValue(t, "cache status", c.CacheStatus, "Ok", 60)
	wantValue(t, "nbwc", c.NoBatteryWrite, "Disabled", 65)
	wantValue(t, "backup", c.EnergyPack.Status, "Ok", 71)
	wantValue(t, "count", c.EnergyPack.Present, "1", 72)
	v := c.Volumes[0]
	wantValue(t, "disk name", v.OSName, "/dev/sda", 252)
	wantValue(t, "wwn", v.WWN, "600508B1001C50CDC910104454AF6DA9", -1)
	wantValue(t, "acceleration", v.Acceleration, "Controller Cache", 268)
	if len(v.Drives) != 2 || len(c.Volumes[1].Drives) != 12 {
		t.Errorf("drives %v %v", v.Drives, c.Volumes[1].Drives)
	}
}

func TestParseArcconfFlashModuleAndVerify(t *testing.T) {
	c := parseArc(t, "issue190-getconfig")
	if c.EnergyPack.Kind != "capacitor" || c.EnergyPack.Status.Text != "Ready" {
		t.Errorf("energy pack %+v", c.EnergyPack)
	}
	v := c.Volumes[0]
	if len(v.Tasks) != 1 || v.Tasks[0].Kind != TaskConsistencyCheck || v.Tasks[0].Progress.Text != "90%" {
		t.Errorf("tasks %+v", v.Tasks)
	}
}

func TestParseArcconfTwoControllers(t *testing.T) {
	b, err := os.ReadFile(filepath.Join(arcDir, "issue110-getconfig-1"))
	if err != nil {
		t.Fatal(err)
	}
	inv, err := ParseArcconf(b)
	if err != nil {
		t.Fatal(err)
	}
	wantValue(t, "found", inv.Found, "2", 1)
}

func TestParseArcconfGarbage(t *testing.T) {
	for _, in := range []string{"", "Controllers found: 0\n\nCommand completed successfully.\n"} {
		if inv, err := ParseArcconf([]byte(in)); err != nil || len(inv.Controllers) != 0 {
			t.Errorf("%q: %v %v", in, inv, err)
		}
	}
	if _, err := ParseArcconf([]byte("Invalid controller number.\n")); err == nil {
		t.Error("no error for a message")
	}
	if _, err := ParseArcconf([]byte("Controller information\nController information\n")); err == nil {
		t.Error("no error for two controllers in one output")
	}
}

// FuzzParseArcconf: no input panics ParseArcconf, and every set Value of
// what it returns has a line number inside its output.
func FuzzParseArcconf(f *testing.F) {
	names, _ := filepath.Glob(filepath.Join(arcDir, "*"))
	for _, name := range names {
		b, err := os.ReadFile(name)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b)
	}
	f.Add([]byte("Controller information\n   Controller Battery Information\n   Status : ZMM \nLogical device information\nLogical device number x\n   Segment 0 : ( )\n"))
	f.Fuzz(func(t *testing.T, b []byte) {
		inv, err := ParseArcconf(b)
		if err != nil {
			return
		}
		lines := len(mcSplit(b))
		in := func(v Value) {
			if v.Set && (v.Line.N < 1 || v.Line.N > lines) {
				t.Fatalf("%q at line %d of %d", v.Text, v.Line.N, lines)
			}
		}
		for _, c := range inv.Controllers {
			for _, x := range []Value{c.Model, c.Status, c.CacheSize, c.CacheStatus, c.EnergyPack.Status, c.EnergyPack.Present} {
				in(x)
			}
			for _, v := range c.Volumes {
				for _, x := range []Value{v.RAID, v.Status, v.ConfiguredWrite, v.CurrentWrite, v.OSName, v.TargetID} {
					in(x)
				}
			}
			for _, d := range c.Drives {
				for _, x := range []Value{d.Model, d.Serial, d.Status, d.Media, d.Interface, d.Predictive} {
					in(x)
				}
			}
		}
	})
}
