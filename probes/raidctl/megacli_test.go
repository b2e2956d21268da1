package raidctl

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// The expectations below were written from the captures' text (line
// numbers as `cat -n` shows them), not from the parser's output.

const mcDir = "testdata/megacli"

func mcRead(t testing.TB, name string) []byte {
	t.Helper()
	if name == "" {
		return nil
	}
	b, err := os.ReadFile(filepath.Join(mcDir, name))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// mcLineOf is line n of a capture as the parser keeps it (the CR of a
// CRLF or of MegaCli's leading "\r   " line removed from its end only).
func mcLineOf(t *testing.T, b []byte, n int) string {
	t.Helper()
	lines := strings.Split(string(b), "\n")
	if n < 1 || n > len(lines) {
		t.Fatalf("no line %d", n)
	}
	return strings.TrimSuffix(lines[n-1], "\r")
}

// check: what names a field, src is the output its line comes from.
type check struct {
	what string
	get  func(*Inventory) Value
	text string
	n    int    // 0: the Value must be unset
	src  string // "ldinfo", "bbu", "pdlist"
}

func vol(c, v int, f func(*Volume) Value) func(*Inventory) Value {
	return func(inv *Inventory) Value {
		if c >= len(inv.Controllers) || v >= len(inv.Controllers[c].Volumes) {
			return Value{Text: "<no volume>", Set: true}
		}
		return f(inv.Controllers[c].Volumes[v])
	}
}

func pack(c int, f func(*EnergyPack) Value) func(*Inventory) Value {
	return func(inv *Inventory) Value {
		if c >= len(inv.Controllers) {
			return Value{Text: "<no controller>", Set: true}
		}
		return f(&inv.Controllers[c].EnergyPack)
	}
}

// drv finds a drive by its enclosure:slot ID.
func drv(id string, f func(*Drive) Value) func(*Inventory) Value {
	return func(inv *Inventory) Value {
		for _, c := range inv.Controllers {
			for _, d := range c.Drives {
				if d.ID == id {
					return f(d)
				}
			}
		}
		return Value{Text: "<no drive " + id + ">", Set: true}
	}
}

func mcParseFiles(t *testing.T, ld, bbu, pd string) (*Inventory, map[string][]byte) {
	t.Helper()
	src := map[string][]byte{"ldinfo": mcRead(t, ld), "bbu": mcRead(t, bbu), "pdlist": mcRead(t, pd)}
	inv, err := ParseMegaCli(src["ldinfo"], src["bbu"], src["pdlist"])
	if err != nil {
		t.Fatalf("ParseMegaCli: %v", err)
	}
	if inv.Family != FamilyMegaCli {
		t.Errorf("Family %q", inv.Family)
	}
	return inv, src
}

func runChecks(t *testing.T, inv *Inventory, src map[string][]byte, checks []check) {
	t.Helper()
	for _, c := range checks {
		v := c.get(inv)
		if c.n == 0 {
			if v.Set {
				t.Errorf("%s: want unset, got %q (line %d)", c.what, v.Text, v.Line.N)
			}
			continue
		}
		if !v.Set || v.Text != c.text || v.Line.N != c.n {
			t.Errorf("%s: got %q at line %d (set %v), want %q at line %d", c.what, v.Text, v.Line.N, v.Set, c.text, c.n)
			continue
		}
		if raw := mcLineOf(t, src[c.src], c.n); v.Line.Text != raw {
			t.Errorf("%s: Line.Text %q, want %s line %d %q", c.what, v.Line.Text, c.src, c.n, raw)
		}
	}
}

func ids[T any](xs []T, id func(T) string) []string {
	var out []string
	for _, x := range xs {
		out = append(out, id(x))
	}
	return out
}

func TestParseMegaCliCaptures(t *testing.T) {
	tests := []struct {
		name        string
		ld, bbu, pd string
		volumes     []string // volume IDs of a0
		drives      []string // drive IDs of a0, nil: not checked
		kind        string   // energy pack kind
		checks      []check
	}{
		{
			// An optimal iBBU with write-back, a SATA drive in
			// Unconfigured(bad), and SATA inquiry strings.
			name: "glensc 3: optimal BBU, a bad unconfigured drive",
			ld:   "glensc/3-ldinfo", bbu: "glensc/3-bucmd", pd: "glensc/3-pdlist",
			volumes: []string{"0"},
			drives:  []string{"15:1", "15:2", "15:3", "15:4", "15:5", "15:6", "15:7", "15:8", "15:9", "15:10", "15:11", "15:12"},
			kind:    "battery",
			checks: []check{
				{"TargetID", vol(0, 0, func(v *Volume) Value { return v.TargetID }), "0", 4, "ldinfo"},
				{"RAID", vol(0, 0, func(v *Volume) Value { return v.RAID }), "Primary-5, Secondary-0, RAID Level Qualifier-3", 6, "ldinfo"},
				{"Size", vol(0, 0, func(v *Volume) Value { return v.Size }), "24.555 TB", 7, "ldinfo"},
				{"Status", vol(0, 0, func(v *Volume) Value { return v.Status }), "Optimal", 8, "ldinfo"},
				{"ConfiguredWrite", vol(0, 0, func(v *Volume) Value { return v.ConfiguredWrite }), "WriteBack", 12, "ldinfo"},
				{"ReadPolicy", vol(0, 0, func(v *Volume) Value { return v.ReadPolicy }), "ReadAhead", 12, "ldinfo"},
				{"CurrentWrite", vol(0, 0, func(v *Volume) Value { return v.CurrentWrite }), "WriteBack", 13, "ldinfo"},
				{"CacheBadBBU", vol(0, 0, func(v *Volume) Value { return v.CacheBadBBU }), "", 0, "ldinfo"},
				{"DiskCache", vol(0, 0, func(v *Volume) Value { return v.DiskCache }), "Disk's Default", 15, "ldinfo"},
				{"Present", pack(0, func(e *EnergyPack) Value { return e.Present }), "Present", 4, "bbu"},
				// "Battery state: " is printed empty (line 25).
				{"pack Status", pack(0, func(e *EnergyPack) Value { return e.Status }), "", 0, "bbu"},
				{"Charge", pack(0, func(e *EnergyPack) Value { return e.Charge }), "96 %", 39, "bbu"},
				{"15:1 DeviceID", drv("15:1", func(d *Drive) Value { return d.DeviceID }), "4", 7, "pdlist"},
				{"15:1 OtherErrors", drv("15:1", func(d *Drive) Value { return d.OtherErrors }), "1", 10, "pdlist"},
				{"15:1 Serial", drv("15:1", func(d *Drive) Value { return d.Serial }), "MK0311YHGXHPPA", 20, "pdlist"},
				{"15:1 Model", drv("15:1", func(d *Drive) Value { return d.Model }), "Hitachi HDS723030ALA640", 20, "pdlist"},
				{"15:10 Status", drv("15:10", func(d *Drive) Value { return d.Status }), "Unconfigured(bad)", 296, "pdlist"},
				{"15:10 Serial", drv("15:10", func(d *Drive) Value { return d.Serial }), "W1F3ZE1T", 299, "pdlist"},
				{"15:10 Model", drv("15:10", func(d *Drive) Value { return d.Model }), "ST3000DM001-1CH166", 299, "pdlist"},
				{"15:11 Status", drv("15:11", func(d *Drive) Value { return d.Status }), "Hotspare, Spun down", 328, "pdlist"},
				{"15:10 Interface", drv("15:10", func(d *Drive) Value { return d.Interface }), "SATA", 292, "pdlist"},
			},
		},
		{
			// A battery that needs replacing: "No Write Cache if Bad
			// BBU" has dropped the volume to write-through.
			name: "glensc issue39: failed battery, write-through fallback",
			ld:   "glensc/issue39-batteries.ldinfo", bbu: "glensc/issue39-batteries.bbustatus", pd: "glensc/issue39-batteries.pdlist",
			volumes: []string{"0"},
			kind:    "battery",
			checks: []check{
				{"ConfiguredWrite", vol(0, 0, func(v *Volume) Value { return v.ConfiguredWrite }), "WriteBack", 12, "ldinfo"},
				{"CurrentWrite", vol(0, 0, func(v *Volume) Value { return v.CurrentWrite }), "WriteThrough", 13, "ldinfo"},
				{"CacheBadBBU", vol(0, 0, func(v *Volume) Value { return v.CacheBadBBU }), "", 0, "ldinfo"},
				{"Details[0]", detail(0, 0), "Battery Replacement required: Yes", 20, "bbu"},
				{"Details[1]", detail(0, 1), "Remaining Capacity Low: Yes", 21, "bbu"},
				{"Details[2]", detail(0, 2), "", 0, "bbu"},
				{"Charge", pack(0, func(e *EnergyPack) Value { return e.Charge }), "97 %", 39, "bbu"},
			},
		},
		{
			// "Write Cache OK if Bad BBU", and SAS inquiry strings.
			name: "glensc issue39.1: write cache OK if bad BBU, SAS drives",
			ld:   "glensc/issue39-batteries.ldinfo.1", bbu: "glensc/issue39-batteries.bbustatus.1", pd: "glensc/issue39-batteries.pdlist.1",
			volumes: []string{"0"},
			drives:  []string{"252:0", "252:1"},
			kind:    "battery",
			checks: []check{
				{"CacheBadBBU", vol(0, 0, func(v *Volume) Value { return v.CacheBadBBU }), "Write Cache OK if Bad BBU", 15, "ldinfo"},
				{"ReadPolicy", vol(0, 0, func(v *Volume) Value { return v.ReadPolicy }), "ReadAdaptive", 14, "ldinfo"},
				{"pack Status", pack(0, func(e *EnergyPack) Value { return e.Status }), "Operational", 8, "bbu"},
				{"Charge", pack(0, func(e *EnergyPack) Value { return e.Charge }), "67 %", 41, "bbu"},
				{"Details", detail(0, 0), "", 0, "bbu"},
				{"252:0 Model", drv("252:0", func(d *Drive) Value { return d.Model }), "SEAGATE ST600MM0026", 30, "pdlist"},
				{"252:0 Serial", drv("252:0", func(d *Drive) Value { return d.Serial }), "S0M03T5C", 30, "pdlist"},
				{"252:0 WWN", drv("252:0", func(d *Drive) Value { return d.WWN }), "5000C5005F23ECE8", 9, "pdlist"},
				{"252:0 Interface", drv("252:0", func(d *Drive) Value { return d.Interface }), "SAS", 15, "pdlist"},
				{"252:0 Media", drv("252:0", func(d *Drive) Value { return d.Media }), "Hard Disk Device", 39, "pdlist"},
				{"252:0 Status", drv("252:0", func(d *Drive) Value { return d.Status }), "Online, Spun Up", 21, "pdlist"},
				{"252:1 Model", drv("252:1", func(d *Drive) Value { return d.Model }), "TOSHIBA AL13SEB600", 80, "pdlist"},
			},
		},
		{
			// A learn cycle: charging, "Non Operational".
			name: "glensc issue39.3: learn cycle",
			bbu:  "glensc/issue39-batteries.bbustatus.3",
			kind: "battery",
			checks: []check{
				{"pack Status", pack(0, func(e *EnergyPack) Value { return e.Status }), "Non Operational", 8, "bbu"},
				{"Details[0]", detail(0, 0), "Charging Status: Charging", 12, "bbu"},
				{"Details[1]", detail(0, 1), "Learn Cycle Requested: Yes", 15, "bbu"},
				{"Details[2]", detail(0, 2), "Learn Cycle Active: Yes", 16, "bbu"},
				{"Details[3]", detail(0, 3), "", 0, "bbu"},
				{"Charge", pack(0, func(e *EnergyPack) Value { return e.Charge }), "100 %", 41, "bbu"},
			},
		},
		{
			// MegaCli 8.07 says why GetBbuStatus failed: no BBU.
			name: "glensc issue32 8.07: no BBU",
			bbu:  "glensc/issue32-bbustatus.MegaCli-8.07.10-1",
			checks: []check{
				{"Present", pack(0, func(e *EnergyPack) Value { return e.Present }), "Absent", 4, "bbu"},
				{"Details[0]", detail(0, 0), "Get BBU Status Failed.", 1, "bbu"},
			},
		},
		{
			// MegaCli 8.01 does not say why: presence unknown.
			name: "glensc issue32 8.01: BBU status failed",
			bbu:  "glensc/issue32-bbustatus.MegaCli-8.01.06-1",
			checks: []check{
				{"Present", pack(0, func(e *EnergyPack) Value { return e.Present }), "", 0, "bbu"},
				{"Details[0]", detail(0, 0), "Get BBU Status Failed.", 1, "bbu"},
			},
		},
		{
			// Seven volumes on seven disk groups, IBM-relabelled SAS
			// drives: Drive.Volume stays empty (no DG-to-VD mapping).
			name: "glensc issue45: seven volumes, iBBU08",
			ld:   "glensc/issue45-MegaCli64-ldinfo.out", bbu: "glensc/issue45-MegaCli64-adpbbucmd.out", pd: "glensc/issue45-MegaCli64-list.out",
			volumes: []string{"0", "1", "2", "3", "4", "5", "6"},
			kind:    "battery",
			checks: []check{
				{"v6 TargetID", vol(0, 6, func(v *Volume) Value { return v.TargetID }), "6", 124, "ldinfo"},
				{"v6 RAID", vol(0, 6, func(v *Volume) Value { return v.RAID }), "Primary-0, Secondary-0, RAID Level Qualifier-0", 126, "ldinfo"},
				{"v1 Status", vol(0, 1, func(v *Volume) Value { return v.Status }), "Optimal", 31, "ldinfo"},
				{"pack Status", pack(0, func(e *EnergyPack) Value { return e.Status }), "Optimal", 8, "bbu"},
				{"Present", pack(0, func(e *EnergyPack) Value { return e.Present }), "Present", 4, "bbu"},
				{"Charge", pack(0, func(e *EnergyPack) Value { return e.Charge }), "98 %", 32, "bbu"},
				{"Model", drv("252:0", func(d *Drive) Value { return d.Model }), "IBM-ESXS ST9900805SS", 30, "pdlist"},
				{"Serial", drv("252:0", func(d *Drive) Value { return d.Serial }), "", 0, "pdlist"},
			},
		},
		{
			// Write-through although configured write-back; a drive
			// with media errors and predictive failures.
			name: "glensc issue123: media errors, predictive failures",
			ld:   "glensc/issue123-ldinfo", pd: "glensc/issue123-pdlist",
			volumes: []string{"0"},
			checks: []check{
				{"CurrentWrite", vol(0, 0, func(v *Volume) Value { return v.CurrentWrite }), "WriteThrough", 13, "ldinfo"},
				{"ReadPolicy", vol(0, 0, func(v *Volume) Value { return v.ReadPolicy }), "ReadAheadNone", 12, "ldinfo"},
				{"DiskCache", vol(0, 0, func(v *Volume) Value { return v.DiskCache }), "Enabled", 16, "ldinfo"},
				{"MediaErrors", drv("252:2", func(d *Drive) Value { return d.MediaErrors }), "71", 110, "pdlist"},
				{"Predictive", drv("252:2", func(d *Drive) Value { return d.Predictive }), "423", 112, "pdlist"},
				{"Model", drv("252:2", func(d *Drive) Value { return d.Model }), "IBM-ESXSM", 127, "pdlist"},
				{"Serial", drv("252:2", func(d *Drive) Value { return d.Serial }), "", 0, "pdlist"},
			},
		},
		{
			name: "glensc issue49: media and other errors",
			pd:   "glensc/issue49-pdlist",
			checks: []check{
				{"MediaErrors", drv("252:5", func(d *Drive) Value { return d.MediaErrors }), "94", 138, "pdlist"},
				{"OtherErrors", drv("252:5", func(d *Drive) Value { return d.OtherErrors }), "12", 139, "pdlist"},
				{"Predictive", drv("252:5", func(d *Drive) Value { return d.Predictive }), "4", 140, "pdlist"},
				{"252:2 MediaErrors", drv("252:2", func(d *Drive) Value { return d.MediaErrors }), "8", 60, "pdlist"},
			},
		},
		{
			// A CacheCade SSD cache is not a volume; Intel SATA SSDs.
			name: "glensc issue91: CacheCade, SATA SSDs",
			ld:   "glensc/issue91-9924032.txt", bbu: "glensc/issue91-9924031.txt", pd: "glensc/issue91-9924033.txt",
			volumes: []string{"0"},
			kind:    "battery",
			checks: []check{
				{"pack Status", pack(0, func(e *EnergyPack) Value { return e.Status }), "Operational", 9, "bbu"},
				{"Charge", pack(0, func(e *EnergyPack) Value { return e.Charge }), "98 %", 45, "bbu"},
				{"Serial", drv("32:0", func(d *Drive) Value { return d.Serial }), "BTWL420303WT600TGN", 25, "pdlist"},
				{"Model", drv("32:0", func(d *Drive) Value { return d.Model }), "INTEL SSDSC2BB600G4", 25, "pdlist"},
				{"Media", drv("32:0", func(d *Drive) Value { return d.Media }), "Solid State Device", 33, "pdlist"},
				// "WWN: " printed empty.
				{"WWN", drv("32:0", func(d *Drive) Value { return d.WWN }), "", 0, "pdlist"},
			},
		},
		{
			// An old PDList without PD Type: SCSI inquiry layout.
			name:   "glensc megacli: old PDList",
			pd:     "glensc/megacli",
			drives: []string{"8:0", "8:1"},
			checks: []check{
				{"8:0 Model", drv("8:0", func(d *Drive) Value { return d.Model }), "MAXTOR ATLAS10K5_147SAS", 18, "pdlist"},
				{"8:0 Serial", drv("8:0", func(d *Drive) Value { return d.Serial }), "J498LV8K", 18, "pdlist"},
				{"8:1 Model", drv("8:1", func(d *Drive) Value { return d.Model }), "SEAGATE ST3146356SS", 35, "pdlist"},
				{"8:1 Serial", drv("8:1", func(d *Drive) Value { return d.Serial }), "3QN070RR", 35, "pdlist"},
				{"8:1 Status", drv("8:1", func(d *Drive) Value { return d.Status }), "Online", 31, "pdlist"},
				{"8:1 Interface", drv("8:1", func(d *Drive) Value { return d.Interface }), "", 0, "pdlist"},
			},
		},
		{
			// "Virtual Disk: 0 (target id: 0)", unpadded "Key:value",
			// SATA drives through SAT ("ATA" vendor).
			name: "glensc pr74: old LDInfo, ATA vendor",
			ld:   "glensc/pr74-ldinfo", pd: "glensc/pr74-pdlist",
			volumes: []string{"0"},
			checks: []check{
				{"TargetID", vol(0, 0, func(v *Volume) Value { return v.TargetID }), "0", 2, "ldinfo"},
				{"Size", vol(0, 0, func(v *Volume) Value { return v.Size }), "1429248MB", 5, "ldinfo"},
				{"Status", vol(0, 0, func(v *Volume) Value { return v.Status }), "Optimal", 6, "ldinfo"},
				{"Model", drv("32:0", func(d *Drive) Value { return d.Model }), "ST9500620NS", 17, "pdlist"},
				{"Serial", drv("32:0", func(d *Drive) Value { return d.Serial }), "9XF1KAGA", 17, "pdlist"},
				{"OtherErrors", drv("32:0", func(d *Drive) Value { return d.OtherErrors }), "556475", 8, "pdlist"},
			},
		},
		{
			name:    "glensc megacli.ldinfo.1: two old-style volumes",
			ld:      "glensc/megacli.ldinfo.1",
			volumes: []string{"0", "1"},
			checks: []check{
				{"v1 TargetID", vol(0, 1, func(v *Volume) Value { return v.TargetID }), "1", 18, "ldinfo"},
				{"v1 Status", vol(0, 1, func(v *Volume) Value { return v.Status }), "Optimal", 22, "ldinfo"},
				{"v1 Size", vol(0, 1, func(v *Volume) Value { return v.Size }), "272.25 GB", 21, "ldinfo"},
			},
		},
		{
			name:    "glensc megacli.ldinfo.jbod: no virtual drive",
			ld:      "glensc/megacli.ldinfo.jbod",
			volumes: nil,
		},
		{
			name: "glensc issue85: WD SATA serial",
			pd:   "glensc/issue85-pdlist",
			checks: []check{
				{"Serial", drv("32:0", func(d *Drive) Value { return d.Serial }), "WD-WMAW30959975", 28, "pdlist"},
				{"Model", drv("32:0", func(d *Drive) Value { return d.Model }), "WDC WD1003FBYX-01Y7B1", 28, "pdlist"},
				{"OtherErrors", drv("32:0", func(d *Drive) Value { return d.OtherErrors }), "16548", 13, "pdlist"},
				{"WWN", drv("32:0", func(d *Drive) Value { return d.WWN }), "", 0, "pdlist"},
			},
		},
		{
			// -AdpBbuCmd's full output: the first "Relative State of
			// Charge" (line 39) wins over the capacity section's (48).
			name: "netdata bbu old",
			bbu:  "netdata/mega-bbu-info-old.txt",
			kind: "battery",
			checks: []check{
				{"pack Status", pack(0, func(e *EnergyPack) Value { return e.Status }), "Optimal", 7, "bbu"},
				{"Present", pack(0, func(e *EnergyPack) Value { return e.Present }), "Present", 3, "bbu"},
				{"Charge", pack(0, func(e *EnergyPack) Value { return e.Charge }), "100 %", 39, "bbu"},
				{"Details", detail(0, 0), "", 0, "bbu"},
			},
		},
		{
			name: "netdata bbu recent",
			bbu:  "netdata/mega-bbu-info-recent.txt",
			kind: "battery",
			checks: []check{
				{"pack Status", pack(0, func(e *EnergyPack) Value { return e.Status }), "Optimal", 7, "bbu"},
				{"Charge", pack(0, func(e *EnergyPack) Value { return e.Charge }), "71 %", 31, "bbu"},
			},
		},
		{
			// -LDPDInfo's layout given as the PDList: every drive
			// follows "Virtual Drive: 0", so its Volume is "0".
			name:   "netdata LDPDInfo as pdlist",
			pd:     "netdata/mega-phys-drives-info.txt",
			drives: []string{"32:0", "32:2", "32:1", "32:3", "32:5", "32:4", "32:6", "32:7"},
			checks: []check{
				{"Serial", drv("32:0", func(d *Drive) Value { return d.Serial }), "S1YHNXAG804005", 59, "pdlist"},
				{"Model", drv("32:0", func(d *Drive) Value { return d.Model }), "SAMSUNG MZ7LM960HCHP-00003", 59, "pdlist"},
				{"WWN", drv("32:0", func(d *Drive) Value { return d.WWN }), "5002538c4002e713", 39, "pdlist"},
				{"DeviceID", drv("32:0", func(d *Drive) Value { return d.DeviceID }), "0", 38, "pdlist"},
				{"7 Status", drv("32:7", func(d *Drive) Value { return d.Status }), "Online, Spun Up", 403, "pdlist"},
			},
		},
		{
			name:    "netdata LDPDInfo as ldinfo",
			ld:      "netdata/mega-phys-drives-info.txt",
			volumes: []string{"0"},
			checks: []check{
				{"Status", vol(0, 0, func(v *Volume) Value { return v.Status }), "Optimal", 11, "ldinfo"},
				{"Size", vol(0, 0, func(v *Volume) Value { return v.Size }), "3.491 TB", 7, "ldinfo"},
				{"RAID", vol(0, 0, func(v *Volume) Value { return v.RAID }), "Primary-1, Secondary-0, RAID Level Qualifier-0", 6, "ldinfo"},
			},
		},
		{
			name:   "netdata no drives",
			pd:     "netdata/mega-phys-drives-info-no-drives.txt",
			drives: []string{},
		},
		{
			// glensc 3 edited (testdata/megacli/README.md): a degraded
			// volume rebuilding, a consistency check, a background
			// initialization, a reconstruction.
			name: "synthetic: degraded volumes and their tasks",
			ld:   "synthetic/degraded-ldinfo", pd: "synthetic/degraded-pdlist",
			volumes: []string{"0", "1", "2", "3"},
			checks: []check{
				{"v0 Status", vol(0, 0, func(v *Volume) Value { return v.Status }), "Degraded", 8, "ldinfo"},
				{"v0 CurrentWrite", vol(0, 0, func(v *Volume) Value { return v.CurrentWrite }), "WriteThrough", 13, "ldinfo"},
				{"v0 task", vol(0, 0, task(0)), "45%", 17, "ldinfo"},
				{"v1 task", vol(0, 1, task(0)), "45%", 39, "ldinfo"},
				{"v2 Status", vol(0, 2, func(v *Volume) Value { return v.Status }), "Partially Degraded", 52, "ldinfo"},
				{"v2 task", vol(0, 2, task(0)), "3%", 61, "ldinfo"},
				{"v3 Status", vol(0, 3, func(v *Volume) Value { return v.Status }), "Offline", 74, "ldinfo"},
				{"v3 task", vol(0, 3, task(0)), "0%", 83, "ldinfo"},
				{"v3 second task", vol(0, 3, task(1)), "", 0, "ldinfo"},
				{"15:2 Status", drv("15:2", func(d *Drive) Value { return d.Status }), "Rebuild", 48, "pdlist"},
				{"15:3 Status", drv("15:3", func(d *Drive) Value { return d.Status }), "Failed", 79, "pdlist"},
				{"15:3 MediaErrors", drv("15:3", func(d *Drive) Value { return d.MediaErrors }), "112", 71, "pdlist"},
			},
		},
		{
			name: "synthetic: CacheVault",
			bbu:  "synthetic/cachevault-bbu",
			kind: "capacitor",
			checks: []check{
				{"Present", pack(0, func(e *EnergyPack) Value { return e.Present }), "Present", 4, "bbu"},
			},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			inv, src := mcParseFiles(t, tc.ld, tc.bbu, tc.pd)
			if len(inv.Controllers) != 1 || inv.Controllers[0].ID != "a0" {
				t.Fatalf("controllers %v", ids(inv.Controllers, func(c *Controller) string { return c.ID }))
			}
			c := inv.Controllers[0]
			if tc.ld != "" {
				if got := ids(c.Volumes, func(v *Volume) string { return v.ID }); !slices.Equal(got, tc.volumes) {
					t.Errorf("volumes %q, want %q", got, tc.volumes)
				}
			}
			if tc.drives != nil {
				if got := ids(c.Drives, func(d *Drive) string { return d.ID }); !slices.Equal(got, tc.drives) && !(len(got) == 0 && len(tc.drives) == 0) {
					t.Errorf("drives %q, want %q", got, tc.drives)
				}
			}
			if tc.bbu != "" && c.EnergyPack.Kind != tc.kind {
				t.Errorf("energy pack kind %q, want %q", c.EnergyPack.Kind, tc.kind)
			}
			runChecks(t, inv, src, tc.checks)
		})
	}
}

func detail(c, i int) func(*Inventory) Value {
	return pack(c, func(e *EnergyPack) Value {
		if i < len(e.Details) {
			return e.Details[i]
		}
		return Value{}
	})
}

// task gives a volume's i-th task as a Value: its progress, with the
// task's own line (they must agree).
func task(i int) func(*Volume) Value {
	return func(v *Volume) Value {
		if i >= len(v.Tasks) {
			return Value{}
		}
		t := v.Tasks[i]
		if t.Line != t.Progress.Line {
			return Value{Text: "<task line differs from progress line>", Set: true}
		}
		return t.Progress
	}
}

func TestParseMegaCliTaskKinds(t *testing.T) {
	inv, _ := mcParseFiles(t, "synthetic/degraded-ldinfo", "", "synthetic/degraded-pdlist")
	c := inv.Controllers[0]
	want := []string{TaskRebuild, TaskConsistencyCheck, TaskInitialization, TaskExpansion}
	for i, v := range c.Volumes {
		if len(v.Tasks) != 1 || v.Tasks[0].Kind != want[i] {
			t.Errorf("volume %s tasks %+v, want one %s", v.ID, v.Tasks, want[i])
		}
	}
	// The drive in Rebuild (slot 2, firmware state at PDList line 48)
	// is the controller's rebuild task.
	if len(c.Tasks) != 1 || c.Tasks[0].Kind != TaskRebuild || c.Tasks[0].Line.N != 48 || c.Tasks[0].Line.Text != "Firmware state: Rebuild" {
		t.Errorf("controller tasks %+v", c.Tasks)
	}
}

func TestParseMegaCliVolumeMembers(t *testing.T) {
	// -LDPDInfo as the LDInfo and as the PDList: the volume lists its
	// drives, the drives name their volume.
	ld := mcRead(t, "netdata/mega-phys-drives-info.txt")
	inv, err := ParseMegaCli(ld, nil, ld)
	if err != nil {
		t.Fatal(err)
	}
	c := inv.Controllers[0]
	want := []string{"32:0", "32:2", "32:1", "32:3", "32:5", "32:4", "32:6", "32:7"}
	if len(c.Volumes) != 1 || !slices.Equal(c.Volumes[0].Drives, want) {
		t.Fatalf("volume drives %v, want %v", c.Volumes, want)
	}
	for _, d := range c.Drives {
		if d.Volume != "0" {
			t.Errorf("drive %s volume %q", d.ID, d.Volume)
		}
	}
	// The LDInfo alone gives the members; a PDList without -LDPDInfo's
	// layout then gets its Volume from them.
	pd := bytes.ReplaceAll(ld, []byte("Virtual Drive: 0 (Target Id: 0)"), []byte("Virtual Drive Gone"))
	inv, err = ParseMegaCli(ld, nil, pd)
	if err != nil {
		t.Fatal(err)
	}
	for _, d := range inv.Controllers[0].Drives {
		if d.Volume != "0" {
			t.Errorf("linked drive %s volume %q", d.ID, d.Volume)
		}
	}
	// A plain PDList with "Drive's position: DiskGroup: n" maps no drive.
	inv, _ = mcParseFiles(t, "glensc/issue45-MegaCli64-ldinfo.out", "", "glensc/issue45-MegaCli64-list.out")
	for _, d := range inv.Controllers[0].Drives {
		if d.Volume != "" {
			t.Errorf("issue45 drive %s volume %q from a disk group", d.ID, d.Volume)
		}
	}
	for _, v := range inv.Controllers[0].Volumes {
		if len(v.Drives) != 0 {
			t.Errorf("issue45 volume %s drives %v", v.ID, v.Drives)
		}
	}
}

func TestParseMegaCliAdapters(t *testing.T) {
	// Two adapters, the second printed first, across the outputs: one
	// Controller each, sorted by number, each with its own fields.
	ld := "Adapter 1 -- Virtual Drive Information:\nVirtual Drive: 0 (Target Id: 0)\nState               : Degraded\n\n" +
		"Adapter 0 -- Virtual Drive Information:\nVirtual Drive: 0 (Target Id: 0)\nState               : Optimal\n"
	bbu := "BBU status for Adapter: 0\n\nBatteryType: CVPM02\nBattery State: Optimal\n\nAdapter 1: Get BBU Status Failed.\n\nFW error description: \n The required hardware component is not present.  \n"
	pd := "Adapter #0\n\nEnclosure Device ID: 252\nSlot Number: 0\nFirmware state: Online, Spun Up\n\nAdapter #1\n\nEnclosure Device ID: 252\nSlot Number: 0\nFirmware state: Failed\n"
	inv, err := ParseMegaCli([]byte(ld), []byte(bbu), []byte(pd))
	if err != nil {
		t.Fatal(err)
	}
	if got := ids(inv.Controllers, func(c *Controller) string { return c.ID }); !slices.Equal(got, []string{"a0", "a1"}) {
		t.Fatalf("controllers %v", got)
	}
	a0, a1 := inv.Controllers[0], inv.Controllers[1]
	if a0.Volumes[0].Status.Text != "Optimal" || a1.Volumes[0].Status.Text != "Degraded" || a1.Volumes[0].Status.Line.N != 3 {
		t.Errorf("volume states %+v %+v", a0.Volumes[0].Status, a1.Volumes[0].Status)
	}
	if a0.EnergyPack.Kind != "capacitor" || a0.EnergyPack.Status.Text != "Optimal" || a1.EnergyPack.Present.Text != "Absent" || a1.EnergyPack.Present.Line.N != 9 {
		t.Errorf("packs %+v %+v", a0.EnergyPack, a1.EnergyPack)
	}
	if a0.Drives[0].Status.Text != "Online, Spun Up" || a1.Drives[0].Status.Text != "Failed" || a1.Drives[0].Status.Line.N != 11 {
		t.Errorf("drives %+v %+v", a0.Drives[0], a1.Drives[0])
	}
}

func TestParseMegaCliBatteryMissing(t *testing.T) {
	b := bytes.Replace(mcRead(t, "glensc/3-bucmd"), []byte("Battery Pack Missing         : No"), []byte("Battery Pack Missing         : Yes"), 1)
	inv, err := ParseMegaCli(nil, b, nil)
	if err != nil {
		t.Fatal(err)
	}
	e := inv.Controllers[0].EnergyPack
	if e.Present.Text != "Absent" || e.Present.Line.N != 19 {
		t.Errorf("Present %+v", e.Present)
	}
	if len(e.Details) != 1 || e.Details[0].Text != "Battery Pack Missing: Yes" {
		t.Errorf("Details %+v", e.Details)
	}
}

func TestParseMegaCliHostile(t *testing.T) {
	for _, tc := range []struct {
		name         string
		ld, bbu, pd  []byte
		wantErr      error
		controllers  int
		nilInventory bool
		unrecognized []string // outputs the error names
	}{
		{name: "all nil"},
		{name: "empty and blank", ld: []byte{}, bbu: []byte("\r\n  \n"), pd: []byte("\n")},
		{name: "garbage", ld: []byte("\x00\xff:::\n:"), bbu: []byte("Exit Code: 0x00"), pd: []byte("Enclosure Device ID: 1\nSlot Number: 2\n"),
			wantErr: ErrMegaCliUnrecognized, unrecognized: []string{"LDInfo", "GetBbuStatus", "PDList"}},
		{name: "one bad output, others parsed", ld: mcRead(t, "glensc/3-ldinfo"), bbu: []byte("Segmentation fault\n"),
			wantErr: ErrMegaCliUnrecognized, controllers: 1, unrecognized: []string{"GetBbuStatus"}},
		{name: "truncated mid-line", ld: []byte("Adapter 0 -- Virtual Drive Information:\nVirtual Drive: 0 (Target Id"),
			bbu: []byte("BBU status for Adapter: 0\nBatteryTy"), pd: []byte("Adapter #0\nEnclosure Device ID: 252\nSlot Num"), controllers: 1},
		{name: "huge adapter number", pd: []byte("Adapter #99999999999999999999999\n"), wantErr: ErrMegaCliUnrecognized, unrecognized: []string{"PDList"}},
		{name: "too large", pd: make([]byte, MaxMegaCliOutput+1), wantErr: ErrMegaCliTooLarge, nilInventory: true},
		{name: "too many drives", pd: []byte("Adapter #0\n" + strings.Repeat("Slot Number: 1\n", 3) + mcSlots(MaxMegaCliItems+1)),
			wantErr: ErrMegaCliTooMany, nilInventory: true},
		{name: "too many controllers", ld: []byte(mcAdapters(MaxMegaCliItems + 1)), wantErr: ErrMegaCliTooMany, nilInventory: true},
		{name: "too many volumes", ld: []byte("Adapter 0 -- Virtual Drive Information:\n" + mcVDs(MaxMegaCliItems+1)), wantErr: ErrMegaCliTooMany, nilInventory: true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			inv, err := ParseMegaCli(tc.ld, tc.bbu, tc.pd)
			if tc.wantErr == nil && err != nil || tc.wantErr != nil && !errors.Is(err, tc.wantErr) {
				t.Fatalf("err %v, want %v", err, tc.wantErr)
			}
			if tc.nilInventory {
				if inv != nil {
					t.Errorf("inventory %+v with %v", inv, err)
				}
				return
			}
			if inv == nil || inv.Family != FamilyMegaCli {
				t.Fatalf("inventory %+v", inv)
			}
			if len(inv.Controllers) != tc.controllers {
				t.Errorf("%d controllers, want %d", len(inv.Controllers), tc.controllers)
			}
			for _, name := range []string{"LDInfo", "GetBbuStatus", "PDList"} {
				named := err != nil && strings.Contains(err.Error(), name+":")
				if named != slices.Contains(tc.unrecognized, name) {
					t.Errorf("error %v naming %s: %v", err, name, named)
				}
			}
		})
	}
}

func mcSlots(n int) string {
	var b strings.Builder
	for i := range n {
		b.WriteString("Enclosure Device ID: 252\nSlot Number: ")
		b.WriteString(strings.Repeat("1", 1+i%7) + string(rune('a'+i%26)) + itoa(i) + "\n")
	}
	return b.String()
}

func mcAdapters(n int) string {
	var b strings.Builder
	for i := range n {
		b.WriteString("Adapter #" + itoa(i) + "\n")
	}
	return b.String()
}

func mcVDs(n int) string {
	var b strings.Builder
	for i := range n {
		b.WriteString("Virtual Drive: " + itoa(i) + " (Target Id: " + itoa(i) + ")\n")
	}
	return b.String()
}

func itoa(i int) string {
	if i == 0 {
		return "0"
	}
	var d []byte
	for ; i > 0; i /= 10 {
		d = append([]byte{byte('0' + i%10)}, d...)
	}
	return string(d)
}

func TestParseMegaCliRepeatedHeaders(t *testing.T) {
	// One header repeated many times makes one volume and one drive,
	// not a volume or drive each time.
	ld := "Adapter 0 -- Virtual Drive Information:\n" + strings.Repeat("Virtual Drive: 0 (Target Id: 0)\nState: Optimal\nPD: 0 Information\nEnclosure Device ID: 1\nSlot Number: 1\n", 20000)
	pd := "Adapter #0\n" + strings.Repeat("Enclosure Device ID: 1\nSlot Number: 1\nFirmware state: Online\n", 20000)
	inv, err := ParseMegaCli([]byte(ld), nil, []byte(pd))
	if err != nil {
		t.Fatal(err)
	}
	c := inv.Controllers[0]
	if len(c.Volumes) != 1 || len(c.Drives) != 1 || !slices.Equal(c.Volumes[0].Drives, []string{"1:1"}) || c.Drives[0].Volume != "0" {
		t.Errorf("volumes %+v drives %+v", c.Volumes, c.Drives)
	}
}
