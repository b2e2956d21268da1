package raidctl

import (
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/diskdoctor/diskdoctor/internal/parse"
)

// ParseStorcli reads the JSON outputs of storcli or perccli (Dell's build
// of it): "/call show all J" (ctls), "/call/vall show all J" (vols) and
// "/call/eall/sall show all J" (drives). Any of them may be nil (that
// command failed); each is {"Controllers": [{"Command Status": {...},
// "Response Data": {...}}]}, one entry per controller. The keys are those
// of Broadcom's "StorCLI Reference Manual" (the VD cache code: R/NR read
// ahead, WB/WT/AWB write policy, C/D cached or direct I/O) and of real
// outputs (fixtures/megaraid-*).
func ParseStorcli(ctls, vols, drives []byte) (*Inventory, error) {
	inv := &Inventory{Family: FamilyStorcli}
	byNum := map[int]*Controller{}
	get := func(num int) (*Controller, error) {
		if c := byNum[num]; c != nil {
			return c, nil
		}
		if len(inv.Controllers) >= maxItems {
			return nil, fmt.Errorf("%w: more than %d controllers", ErrParse, maxItems)
		}
		c := &Controller{ID: "/c" + strconv.Itoa(num)}
		byNum[num] = c
		inv.Controllers = append(inv.Controllers, c)
		return c, nil
	}
	for _, part := range []struct {
		b    []byte
		read func(*Controller, map[string]any) error
	}{{ctls, storcliController}, {vols, storcliVolumes}, {drives, storcliDrives}} {
		if part.b == nil {
			continue
		}
		entries, err := storcliEntries(part.b)
		if err != nil {
			return nil, err
		}
		for _, e := range entries {
			c, err := get(e.num)
			if err != nil {
				return nil, err
			}
			if err := part.read(c, e.data); err != nil {
				return nil, err
			}
		}
	}
	sort.SliceStable(inv.Controllers, func(i, j int) bool { return parse.NaturalLess(inv.Controllers[i].ID, inv.Controllers[j].ID) })
	return inv, nil
}

type storcliEntry struct {
	num  int
	data map[string]any
}

// storcliEntries are the controllers that answered; an entry whose status
// is not "Success" (no such controller, no VDs on it) says nothing.
func storcliEntries(b []byte) ([]storcliEntry, error) {
	if err := tooLarge(b); err != nil {
		return nil, err
	}
	var doc struct {
		Controllers []struct {
			Status map[string]any `json:"Command Status"`
			Data   map[string]any `json:"Response Data"`
		} `json:"Controllers"`
	}
	if err := json.Unmarshal(b, &doc); err != nil {
		return nil, fmt.Errorf("%w: %v", ErrParse, err)
	}
	if len(doc.Controllers) > maxItems {
		return nil, fmt.Errorf("%w: more than %d controllers", ErrParse, maxItems)
	}
	var out []storcliEntry
	for _, c := range doc.Controllers {
		num, ok := jsonInt(c.Status["Controller"])
		if !ok || num < 0 || num > maxItems || jsonText(c.Status["Status"]) != "Success" {
			continue
		}
		out = append(out, storcliEntry{num, c.Data})
	}
	return out, nil
}

func jsonText(v any) string {
	switch x := v.(type) {
	case string:
		return x
	case float64:
		return strconv.FormatFloat(x, 'f', -1, 64)
	case bool:
		return strconv.FormatBool(x)
	}
	return ""
}

func jsonInt(v any) (int, bool) {
	f, ok := v.(float64)
	if !ok || f != float64(int(f)) {
		return 0, false
	}
	return int(f), true
}

// jv is a JSON member as a Value: its evidence names the object it sits
// in, since JSON has no lines to cite.
func jv(obj map[string]any, where, key string) Value {
	v, ok := obj[key]
	if !ok {
		return Value{}
	}
	t := jsonText(v)
	return Value{Text: clip(strings.TrimSpace(t)), Line: Line{Text: clip(where + ": " + key + " = " + strings.TrimSpace(t))}, Set: true}
}

func jsonObj(v any) map[string]any { m, _ := v.(map[string]any); return m }

func jsonList(v any) []map[string]any {
	l, _ := v.([]any)
	out := make([]map[string]any, 0, len(l))
	for _, e := range l {
		if m, ok := e.(map[string]any); ok {
			out = append(out, m)
		}
	}
	return out
}

func storcliController(c *Controller, d map[string]any) error {
	basics, version, status, hw := jsonObj(d["Basics"]), jsonObj(d["Version"]), jsonObj(d["Status"]), jsonObj(d["HwCfg"])
	c.Model = jv(basics, c.ID+" Basics", "Model")
	c.Serial = jv(basics, c.ID+" Basics", "Serial Number")
	c.Firmware = jv(version, c.ID+" Version", "Firmware Version")
	c.Status = jv(status, c.ID+" Status", "Controller Status")
	c.CacheSize = jv(hw, c.ID+" HwCfg", "On Board Memory Size")
	c.CacheBoardPresent = c.CacheSize
	c.EnergyPack.Present = jv(hw, c.ID+" HwCfg", "BBU")
	// A CacheVault is a supercapacitor with flash, a BBU a battery; a
	// controller has one of them (its first entry is the pack).
	for _, key := range []string{"Cachevault_Info", "BBU_Info"} {
		if packs := jsonList(d[key]); len(packs) > 0 {
			c.EnergyPack.Kind = map[string]string{"Cachevault_Info": "capacitor", "BBU_Info": "battery"}[key]
			c.EnergyPack.Status = jv(packs[0], c.ID+" "+key, "State")
		}
	}
	// The VD list gives each volume's current policy; the vall output adds
	// the configured one and the OS name.
	for _, e := range jsonList(d["VD LIST"]) {
		v, err := storcliVolume(c, jsonText(e["DG/VD"]))
		if err != nil {
			return err
		}
		storcliVDRow(c, v, e, c.ID+" VD LIST")
	}
	for _, e := range jsonList(d["PD LIST"]) {
		if err := storcliDriveRow(c, e, c.ID+" PD LIST"); err != nil {
			return err
		}
	}
	return nil
}

// storcliVolume finds or adds the volume of "DG/VD" ("0/0") or "v0".
func storcliVolume(c *Controller, ref string) (*Volume, error) {
	id := ref
	if i := strings.IndexByte(ref, '/'); i >= 0 {
		id = ref[i+1:]
	}
	id = "v" + strings.TrimPrefix(strings.TrimSpace(id), "v")
	for _, v := range c.Volumes {
		if v.ID == id {
			return v, nil
		}
	}
	if len(c.Volumes) >= maxItems {
		return nil, fmt.Errorf("%w: more than %d virtual drives", ErrParse, maxItems)
	}
	v := &Volume{ID: id, TargetID: Value{Text: strings.TrimPrefix(id, "v"), Set: true, Line: Line{Text: c.ID + "/" + id}}}
	c.Volumes = append(c.Volumes, v)
	return v, nil
}

// storcliVDRow reads one row of a VD table: type, state, size and the
// cache code ("RWBD", "NRWTD", "RAWBC").
func storcliVDRow(c *Controller, v *Volume, e map[string]any, where string) {
	v.RAID = jv(e, where, "TYPE")
	v.Status = jv(e, where, "State")
	v.Size = jv(e, where, "Size")
	code := jv(e, where, "Cache")
	if !code.Set {
		return
	}
	s := strings.ToUpper(code.Text)
	write := ""
	switch {
	case strings.Contains(s, "AWB"):
		write = "Always WriteBack"
	case strings.Contains(s, "WB"):
		write = "WriteBack"
	case strings.Contains(s, "WT"):
		write = "WriteThrough"
	}
	if write != "" {
		v.CurrentWrite = Value{Text: write, Line: code.Line, Set: true}
	}
	read := "ReadAhead"
	if strings.HasPrefix(s, "NR") {
		read = "No ReadAhead"
	}
	v.ReadPolicy = Value{Text: read, Line: code.Line, Set: true}
}

func storcliVolumes(c *Controller, d map[string]any) error {
	for _, k := range slices.Sorted(maps.Keys(d)) {
		switch {
		case strings.HasPrefix(k, c.ID+"/v"):
			for _, e := range jsonList(d[k]) {
				v, err := storcliVolume(c, strings.TrimPrefix(k, c.ID+"/"))
				if err != nil {
					return err
				}
				storcliVDRow(c, v, e, k)
			}
		case strings.HasPrefix(k, "VD") && strings.HasSuffix(k, " Properties"):
			v, err := storcliVolume(c, strings.TrimSuffix(strings.TrimPrefix(k, "VD"), " Properties"))
			if err != nil {
				return err
			}
			storcliVDProperties(v, jsonObj(d[k]), k)
		case strings.HasPrefix(k, "PDs for VD "):
			v, err := storcliVolume(c, strings.TrimPrefix(k, "PDs for VD "))
			if err != nil {
				return err
			}
			for _, e := range jsonList(d[k]) {
				id := jsonText(e["EID:Slt"])
				if id != "" && len(v.Drives) < maxItems {
					v.Drives = append(v.Drives, id)
				}
				if err := storcliDriveRow(c, e, k); err != nil {
					return err
				}
				if dr := findDrive(c, id); dr != nil {
					dr.Volume = v.ID
				}
			}
		}
	}
	return nil
}

func storcliVDProperties(v *Volume, p map[string]any, where string) {
	v.ConfiguredWrite = jv(p, where, "Write Cache(initial setting)")
	v.DiskCache = jv(p, where, "Disk Cache Policy")
	v.OSName = jv(p, where, "OS Drive Name")
	v.WWN = jv(p, where, "SCSI NAA Id")
	if ops := jv(p, where, "Active Operations"); ops.Set && !strings.EqualFold(ops.Text, "None") {
		if kind := storcliTask(ops.Text); kind != "" {
			v.Tasks = append(v.Tasks, Task{Kind: kind, Progress: progressValue(ops.Text, ops), Line: ops.Line})
		}
	}
}

// storcliTask is the kind of a VD's "Active Operations" ("Consistency
// Check (12%)", "Background Initialization", "Rebuild", "Reconstruction").
func storcliTask(op string) string {
	s := strings.ToLower(op)
	switch {
	case strings.Contains(s, "consisten"):
		return TaskConsistencyCheck
	case strings.Contains(s, "rebuild"):
		return TaskRebuild
	case strings.Contains(s, "init"):
		return TaskInitialization
	case strings.Contains(s, "reconstruct") || strings.Contains(s, "migrat") || strings.Contains(s, "expan"):
		return TaskExpansion
	case strings.Contains(s, "patrol"):
		return TaskPatrolRead
	}
	return ""
}

func findDrive(c *Controller, id string) *Drive {
	for _, d := range c.Drives {
		if d.ID == id {
			return d
		}
	}
	return nil
}

// storcliDriveRow reads one row of a drive table ("EID:Slt" "252:0", DID,
// State "Onln"/"Rbld"/"UBad"/"Offln", Intf, Med, Model).
func storcliDriveRow(c *Controller, e map[string]any, where string) error {
	id := strings.TrimSpace(jsonText(e["EID:Slt"]))
	if id == "" {
		return nil
	}
	d := findDrive(c, id)
	if d == nil {
		if len(c.Drives) >= maxItems {
			return fmt.Errorf("%w: more than %d drives", ErrParse, maxItems)
		}
		d = &Drive{ID: id}
		c.Drives = append(c.Drives, d)
	}
	d.DeviceID = jv(e, where, "DID")
	d.Status = jv(e, where, "State")
	d.Interface = jv(e, where, "Intf")
	d.Media = jv(e, where, "Med")
	d.Model = jv(e, where, "Model")
	if strings.EqualFold(d.Status.Text, "Rbld") && !hasTask(c.Tasks, TaskRebuild, d.Status.Line) {
		c.Tasks = append(c.Tasks, Task{Kind: TaskRebuild, Line: d.Status.Line})
	}
	return nil
}

func hasTask(ts []Task, kind string, l Line) bool {
	for _, t := range ts {
		if t.Kind == kind && t.Line == l {
			return true
		}
	}
	return false
}

// storcliDrives reads "/call/eall/sall show all J": "Drive /c0/e252/s0"
// (the row) and "Drive /c0/e252/s0 - Detailed Information" (error counts,
// serial, WWN).
func storcliDrives(c *Controller, d map[string]any) error {
	for _, k := range slices.Sorted(maps.Keys(d)) {
		if !strings.HasPrefix(k, "Drive /") {
			continue
		}
		name, detailed := strings.CutSuffix(k, " - Detailed Information")
		if !detailed {
			for _, e := range jsonList(d[k]) {
				if err := storcliDriveRow(c, e, k); err != nil {
					return err
				}
			}
			continue
		}
		detail := jsonObj(d[k])
		state, attrs := jsonObj(detail[name+" State"]), jsonObj(detail[name+" Device attributes"])
		drv := findDrive(c, storcliDriveID(name))
		if drv == nil {
			continue // a detail without its row: nothing to attach it to
		}
		drv.MediaErrors = jv(state, name+" State", "Media Error Count")
		drv.OtherErrors = jv(state, name+" State", "Other Error Count")
		drv.Predictive = jv(state, name+" State", "Predictive Failure Count")
		drv.Serial = jv(attrs, name+" Device attributes", "SN")
		drv.WWN = jv(attrs, name+" Device attributes", "WWN")
		if m := jv(attrs, name+" Device attributes", "Model Number"); m.Set {
			drv.Model = m
		}
	}
	return nil
}

// storcliDriveID turns "Drive /c0/e252/s0" into "252:0"; a drive without
// an enclosure ("Drive /c0/s3") is ":3", as storcli's own EID:Slt prints it.
func storcliDriveID(name string) string {
	var eid, slot string
	for _, part := range strings.Split(strings.TrimPrefix(name, "Drive "), "/") {
		switch {
		case strings.HasPrefix(part, "e"):
			eid = part[1:]
		case strings.HasPrefix(part, "s"):
			slot = part[1:]
		}
	}
	return eid + ":" + slot
}
