package raidctl

import "testing"

// The values below were read from the captures by hand.
func TestParseStorcliControllerAndDrives(t *testing.T) {
	inv, err := ParseStorcli(readTestdata(t, "netdata/megaraid-controllers-info.json"), nil, readTestdata(t, "netdata/megaraid-drives-info.json"))
	if err != nil {
		t.Fatal(err)
	}
	if len(inv.Controllers) != 1 {
		t.Fatalf("%d controllers", len(inv.Controllers))
	}
	c := inv.Controllers[0]
	if c.ID != "/c0" {
		t.Errorf("ID %q", c.ID)
	}
	wantValue(t, "model", c.Model, "ServeRAID M5015 SAS/SATA Controller", 0)
	wantValue(t, "cache", c.CacheSize, "512MB", 0)
	wantValue(t, "bbu present", c.EnergyPack.Present, "Present", 0)
	wantValue(t, "bbu state", c.EnergyPack.Status, "Optimal", 0)
	if c.EnergyPack.Kind != "battery" {
		t.Errorf("kind %q", c.EnergyPack.Kind)
	}
	if len(c.Volumes) != 1 {
		t.Fatalf("volumes %+v", c.Volumes)
	}
	v := c.Volumes[0]
	if v.ID != "v0" || v.TargetID.Text != "0" {
		t.Errorf("volume %q target %q", v.ID, v.TargetID.Text)
	}
	wantValue(t, "current write", v.CurrentWrite, "WriteBack", 0)
	wantValue(t, "state", v.Status, "Optl", 0)
	if v.CurrentWrite.Line.Text != "/c0 VD LIST: Cache = RWBD" {
		t.Errorf("evidence %q", v.CurrentWrite.Line.Text)
	}
	if len(c.Drives) != 6 {
		t.Fatalf("%d drives, want 6", len(c.Drives))
	}
	d := c.Drives[0]
	if d.ID != "252:0" {
		t.Errorf("first drive %q", d.ID)
	}
	wantValue(t, "DID", d.DeviceID, "34", 0)
	wantValue(t, "media errors", d.MediaErrors, "0", 0)
	wantValue(t, "wwn", d.WWN, "5000C500E54F4EBB", 0)
	wantValue(t, "serial", d.Serial, "ZL2PVFA8", 0)
}

func TestParseStorcliHBAHasNoVolumes(t *testing.T) {
	inv, err := ParseStorcli(readTestdata(t, "netdata/mpt3sas-controllers-info.json"), nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(inv.Controllers) == 0 {
		t.Fatal("no controllers")
	}
	for _, c := range inv.Controllers {
		if len(c.Volumes) != 0 || c.EnergyPack.Status.Set {
			t.Errorf("%s: volumes %d, energy pack %+v", c.ID, len(c.Volumes), c.EnergyPack)
		}
	}
}

// vallWriteThroughFallback is "/call/vall show all J" in storcli's layout
// for one VD configured write-back and running write-through, with a
// consistency check running.
const vallWriteThroughFallback = `{
"Controllers":[
{
	"Command Status" : {"Controller" : 0, "Status" : "Success", "Description" : "None"},
	"Response Data" : {
		"/c0/v0" : [{"DG/VD" : "0/0", "TYPE" : "RAID1", "State" : "Optl", "Access" : "RW", "Consist" : "No", "Cache" : "RWTD", "Cac" : "-", "sCC" : "ON", "Size" : "446.625 GB", "Name" : ""}],
		"PDs for VD 0" : [
			{"EID:Slt" : "8:0", "DID" : 16, "State" : "Onln", "DG" : 0, "Size" : "446.625 GB", "Intf" : "SATA", "Med" : "SSD", "Model" : "SAMSUNG MZ7LH480HAHQ-00005"},
			{"EID:Slt" : "8:1", "DID" : 17, "State" : "Onln", "DG" : 0, "Size" : "446.625 GB", "Intf" : "SATA", "Med" : "SSD", "Model" : "SAMSUNG MZ7LH480HAHQ-00005"}
		],
		"VD0 Properties" : {"Write Cache(initial setting)" : "WriteBack", "Disk Cache Policy" : "Disk's Default", "Active Operations" : "Consistency Check (12%)", "OS Drive Name" : "/dev/sda", "SCSI NAA Id" : "600605b010e943702a3372bf4d29f6a7"}
	}
},
{
	"Command Status" : {"Controller" : 1, "Status" : "Failure", "Description" : "No VDs have been configured"}
}
]
}`

func TestParseStorcliVolumes(t *testing.T) {
	inv, err := ParseStorcli(nil, []byte(vallWriteThroughFallback), nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(inv.Controllers) != 1 {
		t.Fatalf("%d controllers (a failed entry is no controller)", len(inv.Controllers))
	}
	c := inv.Controllers[0]
	v := c.Volumes[0]
	wantValue(t, "configured", v.ConfiguredWrite, "WriteBack", 0)
	wantValue(t, "current", v.CurrentWrite, "WriteThrough", 0)
	wantValue(t, "os name", v.OSName, "/dev/sda", 0)
	wantValue(t, "naa", v.WWN, "600605b010e943702a3372bf4d29f6a7", 0)
	if len(v.Drives) != 2 || c.Drives[1].Volume != "v0" || c.Drives[1].DeviceID.Text != "17" {
		t.Errorf("drives %v %+v", v.Drives, c.Drives)
	}
	if len(v.Tasks) != 1 || v.Tasks[0].Kind != TaskConsistencyCheck || v.Tasks[0].Progress.Text != "12%" {
		t.Errorf("tasks %+v", v.Tasks)
	}
}

func TestParseStorcliRefusesOtherText(t *testing.T) {
	if _, err := ParseStorcli([]byte("Smart Array P410i in Slot 0"), nil, nil); err == nil {
		t.Error("text taken for storcli JSON")
	}
	if _, err := ParseStorcli([]byte(`{"Controllers":[{"Command Status":{"Controller":1e300,"Status":"Success"}}]}`), nil, nil); err != nil {
		t.Errorf("an out-of-range controller number is skipped, not an error: %v", err)
	}
}

func FuzzParseStorcli(f *testing.F) {
	f.Add(readTestdata(f, "netdata/megaraid-controllers-info.json"), []byte(vallWriteThroughFallback))
	f.Fuzz(func(t *testing.T, a, b []byte) {
		inv, err := ParseStorcli(a, b, a)
		if err == nil && inv == nil {
			t.Fatal("nil inventory without an error")
		}
	})
}
