package snapshot

import (
	"bytes"
	"regexp"
	"strings"
	"testing"

	"github.com/diskdoctor/diskdoctor/machine"
)

// Made-up serials and WWNs in the forms the controllers print them.
const (
	ssaCtrlSerial  = "PDNLH0BRH8R1VE"
	ssaCacheSerial = "PBKUD0BRH8R1JH"
	ssaHostSerial  = "CZJ1234567"
	ssaLDUnique    = "600508B1001C158B69C0104DA29E6FF7" // the logical drive's wwid, naa. and lower case in sysfs
	ssaDriveSerial = "S0K1ABCD0000K633XYZ1"
	ssaDriveWWID   = "5000C500A1B2C3D4"
	ssaPortSAS     = "5001438014623D00"
	ssaDriveUnique = "33BF2C5DD81EC5C8"

	storCtrlSerial = "SV04616189"
	storCtrlSAS    = "500605b002e04f10"
	storDriveSN    = "ZL2ABCDE"
	storDriveWWN   = "5000C500D1234567" // the drive's ID_WWN, lower case, in udev
	storPortSAS    = "5000c500d1234565"
	storVDNAA      = "600605b010e943702a3372bf4d29f6a7"

	megaAdpSerial   = "SV12345678"
	megaDriveWWN    = "5000C500A1B2C3E4"
	megaDriveSAS    = "5000c500a1b2c3e5"
	megaDriveSerial = "S0M0XYZ1"
	megaBBUSerial   = "98765"

	smartSerial = "WFK0ABCD"
	smartLUID   = "5000c500e1f2a3b4"
	smartSAS    = "5000c500e1f2a3b5"
	smartHBASAS = "500605b002e04f11"
)

var controllerOutputs = map[string]string{
	"ssacli.txt": "\nSmart Array P440ar in Slot 0 (Embedded)\n   Bus Interface: PCI\n   Slot: 0\n" +
		"   Serial Number: " + ssaCtrlSerial + "\n   Cache Serial Number: " + ssaCacheSerial + "\n" +
		"   Host Serial Number: " + ssaHostSerial + "\n   Controller Status: OK\n\n" +
		"   Port Name: 1I\n         Port ID: 0\n         SAS Address: " + ssaPortSAS + "\n\n" +
		"   Array: A\n      Logical Drive: 1\n         Size: 558.9 GB\n         Fault Tolerance: 1\n" +
		"         Unique Identifier: " + ssaLDUnique + "\n         Disk Name: /dev/sda\n" +
		"         Logical Drive Label: A299BE7D" + ssaCtrlSerial + "4E47\n\n" +
		"      physicaldrive 1I:1:1\n         Port: 1I\n         Box: 1\n         Bay: 1\n         Status: OK\n" +
		"         Interface Type: SAS\n         Size: 600 GB\n         Firmware Revision: HPD5\n" +
		"         Serial Number: " + ssaDriveSerial + "\n         WWID: " + ssaDriveWWID + "\n" +
		"         Model: HP      EG0600FBVFP\n         Drive Unique ID: " + ssaDriveUnique + "\n",
	"storcli-c.json": `{
"Controllers":[
{
	"Command Status" : {
		"Controller" : 0,
		"Status" : "Success"
	},
	"Response Data" : {
		"Basics" : {
			"Controller" : 0,
			"Model" : "PERC H730P Mini",
			"Serial Number" : "` + storCtrlSerial + `",
			"SAS Address" : " ` + storCtrlSAS + `"
		}
	}
}
]
}
`,
	"storcli-v.json": `{"Controllers":[{"Response Data":{"VD0 Properties":{"Strip Size":"256 KB","SCSI NAA Id" : "` + storVDNAA + `","OS Drive Name":"/dev/sdb"}}}]}` + "\n",
	"storcli-d.json": `{
"Controllers":[
{
	"Response Data" : {
		"Drive /c0/e32/s0 - Detailed Information" : {
			"Drive /c0/e32/s0 Device attributes" : {
				"SN" : "        ` + storDriveSN + `",
				"WWN" : "` + storDriveWWN + `",
				"Manufacturer Id" : "SEAGATE ",
				"Model Number" : "ST4000NM0245    "
			},
			"Drive /c0/e32/s0 Policies/Settings" : {
				"Port Information" : [
					{
						"Port" : 0,
						"Status" : "Active",
						"Linkspeed" : "12.0Gb/s",
						"SAS address" : "0x` + storPortSAS + `"
					}
				]
			}
		}
	}
}
]
}
`,
	"megacli-pd.txt": "Adapter #0\n\nEnclosure Device ID: 32\nSlot Number: 1\nWWN: " + megaDriveWWN + "\n" +
		"SAS Address(0): 0x" + megaDriveSAS + "\nSAS Address(1): 0x0\n" +
		"Inquiry Data: SEAGATE ST600MM0006     LS0A" + megaDriveSerial + "\n" +
		"Device Speed: 6.0Gb/s \n",
	"megacli-adp.txt": "Adapter #0\n\nProduct Name    : PERC H710P Mini\nSerial No       : " + megaAdpSerial + "\n",
	"megacli-bbu.txt": "BBU status for Adapter: 0\n\nBatteryType: BBU\n  Manufacture Name: LS1121001A\n  Serial Number: " + megaBBUSerial + "\n",
	"smart-mr.json": `{
  "device": {"name": "/dev/sdb", "type": "megaraid,0", "protocol": "SCSI"},
  "serial_number": "` + smartSerial + `",
  "logical_unit_id": "0x` + smartLUID + `",
  "scsi_sas_port_0": {
    "phy_0": {
      "sas_address": "0x` + smartSAS + `",
      "attached_sas_address": "0x` + smartHBASAS + `"
    }
  }
}
`,
}

// TestRedactsControllerOutputs (issue #23): the RAID controllers' own
// outputs (ssacli text, storcli JSON, MegaCli text, smartctl through a
// controller) keep none of the serials and WWNs of the controller, its
// cache, the host and the drives, and a value the host also shows (a
// sysfs wwid, udev's ID_SERIAL_SHORT and ID_WWN) gets the same token in
// both.
func TestRedactsControllerOutputs(t *testing.T) {
	files := map[string]string{
		"sys/block/sda/device/wwid": "naa." + strings.ToLower(ssaLDUnique) + "\n",
		"run/udev/data/b8:16":       "E:ID_SERIAL_SHORT=" + storDriveSN + "\nE:ID_WWN=0x" + strings.ToLower(storDriveWWN) + "\nE:ID_BUS=scsi\n",
		"proc/sys/kernel/osrelease": "6.1.0-26-amd64\n",
		"commands/manifest.yaml": "- argv: [ssacli, ctrl, all, show, config, detail]\n  stdout: ssacli.txt\n" +
			"- argv: [storcli64, /call, show, all, J]\n  stdout: storcli-c.json\n" +
			"- argv: [storcli64, /call/vall, show, all, J]\n  stdout: storcli-v.json\n" +
			"- argv: [storcli64, /call/eall/sall, show, all, J]\n  stdout: storcli-d.json\n" +
			"- argv: [MegaCli64, -PDList, -aALL, -NoLog]\n  stdout: megacli-pd.txt\n" +
			"- argv: [MegaCli64, -AdpAllInfo, -aALL, -NoLog]\n  stdout: megacli-adp.txt\n" +
			"- argv: [MegaCli64, -AdpBbuCmd, -GetBbuStatus, -aALL, -NoLog]\n  stdout: megacli-bbu.txt\n" +
			"- argv: [smartctl, -x, -j, -d, 'megaraid,0', /dev/sdb]\n  stdout: smart-mr.json\n",
	}
	for name, out := range controllerOutputs {
		files["commands/"+name] = out
	}
	root := writeTree(t, files)
	h, err := machine.Recorded(root)
	if err != nil {
		t.Fatal(err)
	}
	rec := NewRecorder()
	th := h.WithTracer(rec)
	ctx := t.Context()
	for _, p := range []string{"/sys/block/sda/device/wwid", "/run/udev/data/b8:16", "/proc/sys/kernel/osrelease"} {
		if _, err := th.ReadFile(ctx, p); err != nil {
			t.Fatal(err)
		}
	}
	for _, argv := range [][]string{
		{"ssacli", "ctrl", "all", "show", "config", "detail"},
		{"storcli64", "/call", "show", "all", "J"},
		{"storcli64", "/call/vall", "show", "all", "J"},
		{"storcli64", "/call/eall/sall", "show", "all", "J"},
		{"MegaCli64", "-PDList", "-aALL", "-NoLog"},
		{"MegaCli64", "-AdpAllInfo", "-aALL", "-NoLog"},
		{"MegaCli64", "-AdpBbuCmd", "-GetBbuStatus", "-aALL", "-NoLog"},
		{"smartctl", "-x", "-j", "-d", "megaraid,0", "/dev/sdb"},
	} {
		if _, err := th.Run(ctx, argv...); err != nil {
			t.Fatalf("%v: %v", argv, err)
		}
	}
	got, err := rec.Collect(ctx, h, CollectOptions{Redact: true})
	if err != nil {
		t.Fatal(err)
	}
	stream := tarStream(t, archiveOf(t, got))
	for _, v := range []string{
		ssaCtrlSerial, ssaCacheSerial, ssaHostSerial, ssaLDUnique, ssaDriveSerial, ssaDriveWWID, ssaPortSAS, ssaDriveUnique,
		storCtrlSerial, storCtrlSAS, storDriveSN, storDriveWWN, storPortSAS, storVDNAA,
		megaAdpSerial, megaDriveWWN, megaDriveSAS, megaDriveSerial, megaBBUSerial,
		smartSerial, smartLUID, smartSAS, smartHBASAS,
	} {
		for _, s := range []string{v, strings.ToLower(v), strings.ToUpper(v)} {
			if i := bytes.Index(stream, []byte(s)); i >= 0 {
				t.Errorf("%q left in the archive: …%q…", s, stream[max(0, i-60):min(len(stream), i+len(s)+20)])
			}
		}
	}
	// What identifies nothing stays: the parsers of these outputs read it.
	for _, s := range []string{"Disk Name: /dev/sda", "SEAGATE ST600MM0006     LS0A", `"Model Number" : "ST4000NM0245    "`, "Manufacture Name: LS1121001A", "PERC H730P Mini"} {
		if !bytes.Contains(stream, []byte(s)) {
			t.Errorf("%q missing from the redacted archive", s)
		}
	}

	out := map[string]string{}
	for _, c := range got.Commands {
		out[strings.Join(c.Argv, " ")] = string(c.Stdout)
	}
	var udevData, wwid string
	for _, e := range got.Entries {
		switch e.Path {
		case "run/udev/data/b8:16":
			udevData = string(e.Data)
		case "sys/block/sda/device/wwid":
			wwid = string(e.Data)
		}
	}
	token := func(re, s string) string {
		t.Helper()
		m := regexp.MustCompile(re).FindStringSubmatch(s)
		if m == nil {
			t.Errorf("%s not in %q", re, s)
			return "?"
		}
		return m[1]
	}
	drives := out["storcli64 /call/eall/sall show all J"]
	if a, b := token(`"SN" : "\s*((?:SERIAL|WWN)\d{4})"`, drives), token(`ID_SERIAL_SHORT=(\S+)`, udevData); a != b {
		t.Errorf("storcli's SN is %s, udev's ID_SERIAL_SHORT %s", a, b)
	}
	if a, b := token(`"WWN" : "((?:SERIAL|WWN)\d{4})"`, drives), token(`ID_WWN=0x(\S+)`, udevData); a != b {
		t.Errorf("storcli's WWN is %s, udev's ID_WWN %s", a, b)
	}
	if a, b := token(`Unique Identifier: ((?:SERIAL|WWN)\d{4})`, out["ssacli ctrl all show config detail"]), token(`naa\.(\S+)`, wwid); a != b {
		t.Errorf("ssacli's Unique Identifier is %s, the sysfs wwid %s", a, b)
	}
}

func TestControllerCommand(t *testing.T) {
	for argv, want := range map[string]bool{
		"ssacli ctrl all show config detail": true, "hpacucli ctrl all show config detail": true,
		"storcli64 /call show all J": true, "perccli64 /call show all J": true,
		"MegaCli64 -PDList -aALL -NoLog": true, "megacli -PDList -aALL -NoLog": true,
		"smartctl -x -j -d megaraid,3 /dev/sda": true, "smartctl -x -j -d cciss,0 /dev/sg1": true,
		"smartctl -x -j --device=sat+megaraid,1 /dev/sda": true,
		"smartctl -x -j /dev/sda":                         false, "dmesg": false, "": false,
	} {
		if got := controllerCommand(strings.Fields(argv)); got != want {
			t.Errorf("controllerCommand(%q) = %v", argv, got)
		}
	}
}

func TestControllerLine(t *testing.T) {
	for line, want := range map[string]string{
		`   Cache Serial Number: PBKUD0BRH8R1JH`:              "PBKUD0BRH8R1JH serial",
		`"SAS address" : "0x5000c500d1234565"`:                "5000c500d1234565 wwn",
		`"SCSI NAA Id" : "600605b010e943702a3372bf4d29f6a7",`: "600605b010e943702a3372bf4d29f6a7 wwn",
		`SAS Address(0): 0x5000c500a1b2c3d5`:                  "5000c500a1b2c3d5 wwn",
		`attached SAS address = 0x500605b002e04f11`:           "500605b002e04f11 wwn",
		`"Port" : 0, "SN" : "ZL2ABCDE"`:                       "ZL2ABCDE serial",
		`Serial No       : SV12345678`:                        "SV12345678 serial",
		`         Disk Name: /dev/sda`:                        "",
		`"Model Number" : "ST4000NM0245    "`:                 "",
	} {
		s := newSecrets()
		s.controllerLine(strings.TrimSpace(line))
		var got []string
		for v, k := range s.kind {
			got = append(got, v+" "+k)
		}
		if strings.Join(got, ",") != want {
			t.Errorf("%q: %q, want %q", line, got, want)
		}
	}
}
