package raidctl

import (
	"bytes"
	"fmt"
	"strings"
)

// ParseSmartArray reads "ssacli ctrl all show config detail" (hpssacli and
// hpacucli print the same layout). The output is indented by level: a
// controller header at column 0 ("Smart Array P410i in Slot 0
// (Embedded)"), its settings at 3, sections at 3 ("Array: A",
// "Unassigned", "Port Name: 1I", enclosures), logical and physical drives
// at 6 and their settings at 9. The layout and the values are those of
// HPE's "Smart Storage Administrator User Guide" and of real outputs
// (fixtures/hpe-smartarray-*).
func ParseSmartArray(b []byte) (*Inventory, error) {
	if err := tooLarge(b); err != nil {
		return nil, err
	}
	p := &ssaParser{inv: &Inventory{Family: FamilySmartArray}}
	for n, raw := range bytes.Split(b, []byte("\n")) {
		if err := p.line(n+1, strings.TrimRight(string(raw), "\r")); err != nil {
			return nil, err
		}
	}
	if len(p.inv.Controllers) == 0 {
		if text := strings.TrimSpace(string(b)); text != "" && !strings.Contains(text, "No controllers detected") {
			return nil, fmt.Errorf("%w: no Smart Array controller header", ErrParse)
		}
	}
	return p.inv, nil
}

// Sections of a controller's output.
const (
	ssaController = iota // the controller's own settings
	ssaOther             // ports, enclosures, the drive summary: not read
	ssaArray             // "Array: A": its logical and physical drives
	ssaUnassigned        // "Unassigned", "HBA Drives": drives in no array
)

type ssaParser struct {
	inv     *Inventory
	ctl     *Controller
	section int
	array   []*Volume // the logical drives of the current array
	vol     *Volume   // the logical drive whose settings follow
	drive   *Drive    // the physical drive whose settings follow
}

func (p *ssaParser) line(n int, line string) error {
	text := strings.TrimSpace(line)
	if text == "" {
		return nil
	}
	level := indent(line)
	switch {
	case level == 0:
		return p.header(n, text)
	case p.ctl == nil:
		return nil
	case level <= 3:
		p.vol, p.drive = nil, nil
		p.sectionLine(n, line, text)
	case level <= 6:
		p.vol, p.drive = nil, nil
		return p.item(n, line, text)
	case level <= 9:
		p.setting(n, line, text)
	}
	return nil
}

// header starts a controller: "<model> in Slot <n>[ (Embedded)]".
func (p *ssaParser) header(n int, text string) error {
	i := strings.Index(text, " in Slot ")
	if i <= 0 {
		p.ctl = nil // an error or a warning line of the tool: not a controller
		return nil
	}
	if len(p.inv.Controllers) >= maxItems {
		return fmt.Errorf("%w: more than %d controllers", ErrParse, maxItems)
	}
	slot := strings.Fields(text[i+len(" in Slot "):])
	c := &Controller{Model: textValue(text[:i], n, text)}
	if len(slot) > 0 {
		c.Slot = textValue(slot[0], n, text)
		c.ID = "slot=" + c.Slot.Text
	}
	p.inv.Controllers = append(p.inv.Controllers, c)
	p.ctl, p.section, p.array = c, ssaController, nil
	return nil
}

func (p *ssaParser) sectionLine(n int, raw, text string) {
	key, value, isKV := splitKV(text)
	switch {
	case isKV && key == "Array":
		p.section, p.array = ssaArray, nil
	case text == "Unassigned" || text == "HBA Drives" || text == "Unassigned Drives":
		p.section, p.array = ssaUnassigned, nil
	case isKV && key != "Port Name" && p.section == ssaController:
		p.controllerSetting(n, raw, key, value)
	default:
		p.section = ssaOther
	}
}

func (p *ssaParser) controllerSetting(n int, raw, key, value string) {
	c := p.ctl
	v := textValue(value, n, raw)
	switch key {
	case "Slot":
		c.Slot = v
		c.ID = "slot=" + v.Text
	case "Serial Number":
		c.Serial = v
	case "Firmware Version":
		c.Firmware = v
	case "Controller Status":
		c.Status = v
	case "Cache Board Present":
		c.CacheBoardPresent = v
	case "Total Cache Size":
		c.CacheSize = v
	case "Cache Status":
		c.CacheStatus = v
	case "Cache Status Details":
		c.CacheStatusDetail = v
	case "Cache Ratio":
		c.CacheRatio = v
	case "No-Battery Write Cache":
		c.NoBatteryWrite = v
	case "Drive Write Cache", "Configured Drive Write Cache Policy":
		c.DriveWriteCache = v
	case "Cache Backup Power Source":
		switch {
		case strings.Contains(value, "Capacitor"):
			c.EnergyPack.Kind = "capacitor"
		case strings.Contains(value, "Batter"):
			c.EnergyPack.Kind = "battery"
		}
	case "Battery/Capacitor Count", "Battery Pack Count":
		c.EnergyPack.Present = v
	case "Battery/Capacitor Status", "Battery Status":
		c.EnergyPack.Status = v
	}
}

// item is a line at level 6: a logical drive, a physical drive (the
// detailed entry, not the one-line summary "physicaldrive 1I:1:1 (port
// 1I:box 1:bay 1, SATA HDD, 250 GB, OK)" of a cage's drive list), or a
// setting of the array itself.
func (p *ssaParser) item(n int, raw, text string) error {
	c := p.ctl
	switch {
	case p.section == ssaArray && strings.HasPrefix(text, "Logical Drive:"):
		if len(c.Volumes) >= maxItems {
			return fmt.Errorf("%w: more than %d logical drives", ErrParse, maxItems)
		}
		v := &Volume{ID: strings.TrimSpace(strings.TrimPrefix(text, "Logical Drive:"))}
		c.Volumes = append(c.Volumes, v)
		p.array = append(p.array, v)
		p.vol = v
	case (p.section == ssaArray || p.section == ssaUnassigned) && strings.HasPrefix(text, "physicaldrive ") && !strings.Contains(text, "("):
		if len(c.Drives) >= maxItems {
			return fmt.Errorf("%w: more than %d physical drives", ErrParse, maxItems)
		}
		d := &Drive{ID: strings.TrimSpace(strings.TrimPrefix(text, "physicaldrive "))}
		if p.section == ssaArray {
			// A physical drive serves every logical drive carved from its
			// array; it is listed after them.
			for _, v := range p.array {
				v.Drives = append(v.Drives, d.ID)
			}
			if len(p.array) > 0 {
				d.Volume = p.array[0].ID
			}
		}
		c.Drives = append(c.Drives, d)
		p.drive = d
	}
	return nil
}

func (p *ssaParser) setting(n int, raw, text string) {
	key, value, ok := splitKV(text)
	if !ok {
		return
	}
	v := textValue(value, n, raw)
	switch {
	case p.vol != nil:
		ssaVolumeSetting(p.vol, key, value, v)
	case p.drive != nil:
		p.driveSetting(key, value, v)
	}
}

func ssaVolumeSetting(vol *Volume, key, value string, v Value) {
	switch key {
	case "Fault Tolerance":
		vol.RAID = v
	case "Size":
		vol.Size = v
	case "Status":
		vol.Status = v
		if kind := ssaVolumeTask(value); kind != "" {
			vol.Tasks = append(vol.Tasks, Task{Kind: kind, Progress: progressValue(value, v), Line: v.Line})
		}
	case "Caching":
		vol.Caching = v
	case "LD Acceleration Method":
		vol.Acceleration = v
	case "Unique Identifier":
		vol.WWN = v
	case "Disk Name":
		vol.OSName = v
	case "Parity Initialization Status":
		if strings.Contains(value, "In Progress") || strings.Contains(value, "Queued") {
			vol.Tasks = append(vol.Tasks, Task{Kind: TaskInitialization, Progress: progressValue(value, v), Line: v.Line})
		}
	}
}

// ssaVolumeTask is the background work a logical drive's status names
// ("Recovering, 45% complete", "Expanding, 10% complete", "Transforming").
func ssaVolumeTask(status string) string {
	s := strings.ToLower(status)
	switch {
	case strings.Contains(s, "recovering") || strings.Contains(s, "rebuild"):
		return TaskRebuild
	case strings.Contains(s, "expanding") || strings.Contains(s, "transforming") || strings.Contains(s, "queued for expansion"):
		return TaskExpansion
	}
	return ""
}

func progressValue(text string, v Value) Value {
	if pct := percent(text); pct != "" {
		return Value{Text: pct, Line: v.Line, Set: true}
	}
	return Value{}
}

func (p *ssaParser) driveSetting(key, value string, v Value) {
	d := p.drive
	switch key {
	case "Status":
		d.Status = v
		if strings.Contains(strings.ToLower(value), "rebuilding") {
			p.ctl.Tasks = append(p.ctl.Tasks, Task{Kind: TaskRebuild, Line: v.Line})
		}
	case "Model":
		// "ATA     INTEL SSDSC2KB01": the SCSI vendor field, then the model.
		v.Text = strings.Join(strings.Fields(value), " ")
		if f := strings.Fields(value); len(f) > 1 && (f[0] == "ATA" || f[0] == "HP" || f[0] == "HPE") {
			v.Text = strings.Join(f[1:], " ")
		}
		d.Model = v
	case "Serial Number":
		d.Serial = v
	case "WWID":
		d.WWN = v
	case "Interface Type":
		d.Interface = v
		media := "HDD"
		if strings.Contains(value, "Solid State") {
			media = "SSD"
		}
		d.Media = Value{Text: media, Line: v.Line, Set: true}
	}
}
