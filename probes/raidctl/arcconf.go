package raidctl

import (
	"bytes"
	"fmt"
	"strconv"
	"strings"
)

// ParseArcconf reads "arcconf GETCONFIG <n> AL" of Microchip (Adaptec)
// controllers: the aacraid series 2 to 8 and the SmartRAID/SmartHBA
// 3100 series print the same layout. Sections are titled at column 0
// between dashed rulers ("Controller information", "Logical device
// information", "Physical Device information", "Array Information");
// a controller's subsections ("Controller Battery Information",
// "Controller ZMM Information", "Controller Cache Backup Unit
// Information", "Green Backup Information") are titled at column 3;
// settings are "Key : value" padded to a column. A logical device starts
// at "Logical device number N" (column 0), a physical device at "Device
// #N" (column 6). The layout and the words are those of Microchip's
// "ARCCONF Command Line Utility User's Guide" and of real outputs
// (testdata/arcconf/, fixtures/arcconf-*).
//
// One output is one controller: the one GETCONFIG names. "Controllers
// found: N" is kept in Inventory.Found, so that the caller can say which
// controllers it did not read.
func ParseArcconf(b []byte) (*Inventory, error) {
	if err := tooLarge(b); err != nil {
		return nil, err
	}
	p := &arcParser{inv: &Inventory{Family: FamilyArcconf}, segments: map[*Volume][]arcSegment{},
		volArray: map[*Volume]string{}, location: map[*Drive]string{}, array: map[*Drive]string{}}
	for n, raw := range bytes.Split(b, []byte("\n")) {
		if err := p.line(n+1, strings.TrimRight(string(raw), "\r")); err != nil {
			return nil, err
		}
	}
	if p.ctl == nil {
		if text := strings.TrimSpace(string(b)); text != "" && !p.inv.Found.Set {
			return nil, fmt.Errorf("%w: no arcconf controller information", ErrParse)
		}
		return p.inv, nil
	}
	p.resolve()
	return p.inv, nil
}

// Sections of the output.
const (
	arcNone = iota
	arcController
	arcLogical
	arcPhysical
	arcOther // arrays, maxCache, connectors: not read
)

type arcParser struct {
	inv     *Inventory
	ctl     *Controller
	section int
	sub     string // the controller's subsection, lower case
	vol     *Volume
	drive   *Drive
	dropped bool // the current "Device #N" is not a drive (an enclosure)

	segments map[*Volume][]arcSegment
	volArray map[*Volume]string // SmartRAID: the array a logical device is carved from
	location map[*Drive]string
	array    map[*Drive]string
}

// arcSegment is one member of a logical device as its segment line names
// it: "Present (Controller:1,Enclosure:0,Slot:2)      WD-WXM1E74FEWAF".
type arcSegment struct {
	location string // "enclosure 0 slot 2", "connector 0 device 1"
	id       string // older firmware: "(0,1)", the drive's channel,device
	serial   string
}

func (p *arcParser) line(n int, line string) error {
	text := strings.TrimSpace(line)
	if text == "" || strings.Trim(text, "-") == "" {
		return nil
	}
	if key, value, ok := splitKV(text); ok && key == "Controllers found" {
		p.inv.Found = textValue(value, n, line)
		return nil
	}
	level := indent(line)
	lower := strings.ToLower(text)
	if level == 0 {
		return p.title(n, lower)
	}
	switch p.section {
	case arcController:
		p.controllerLine(n, line, text, level)
	case arcLogical:
		if p.vol != nil {
			p.volumeLine(n, line, text)
		}
	case arcPhysical:
		return p.physicalLine(n, line, text, level)
	}
	return nil
}

// title is a line at column 0: a section's title or a logical device.
func (p *arcParser) title(n int, lower string) error {
	p.vol, p.drive, p.sub = nil, nil, ""
	switch {
	case lower == "controller information":
		if p.ctl != nil {
			return fmt.Errorf("%w: a second controller in one GETCONFIG output", ErrParse)
		}
		// "c1": controller 1, which arcconf's commands take as "1".
		p.ctl = &Controller{ID: "c1"}
		p.inv.Controllers = append(p.inv.Controllers, p.ctl)
		p.section = arcController
	case p.ctl == nil:
		p.section = arcNone
	case lower == "logical device information":
		p.section = arcLogical
	case lower == "physical device information":
		p.section = arcPhysical
	case p.section == arcLogical && strings.HasPrefix(lower, "logical device number "):
		if len(p.ctl.Volumes) >= maxItems {
			return fmt.Errorf("%w: more than %d logical devices", ErrParse, maxItems)
		}
		id := strings.TrimSpace(lower[len("logical device number "):])
		v := &Volume{ID: clip(id)}
		if _, err := strconv.Atoi(id); err == nil {
			// aacraid exposes container N as SCSI target N on channel 0
			// (CONTAINER_TO_ID, Linux drivers/scsi/aacraid/aacraid.h).
			v.TargetID = Value{Text: v.ID, Line: Line{N: n, Text: clip("Logical device number " + id)}, Set: true}
		}
		p.ctl.Volumes = append(p.ctl.Volumes, v)
		p.vol = v
	default:
		p.section = arcOther
	}
	return nil
}

func (p *arcParser) controllerLine(n int, raw, text string, level int) {
	key, value, ok := splitKV(text)
	if !ok {
		if level <= 3 {
			p.sub = strings.ToLower(text)
		}
		return
	}
	c, v := p.ctl, textValue(value, n, raw)
	switch strings.ToLower(key) {
	case "controller status":
		c.Status = v
	case "controller model":
		c.Model = v
	case "controller serial number":
		c.Serial = v
	case "physical slot":
		c.Slot = v
	case "firmware":
		if strings.Contains(p.sub, "version") {
			c.Firmware = v
		}
	case "installed memory", "cache memory":
		// The cache memory's size: "0 MB" on a controller without one.
		c.CacheSize, c.CacheBoardPresent = v, v
	case "cache status":
		c.CacheStatus = v
	case "no-battery write cache":
		c.NoBatteryWrite = v
	case "status", "overall backup unit status", "backup power status":
		p.energyStatus(value, v)
	case "backup unit type":
		c.EnergyPack.Kind = "capacitor"
	case "battery/capacitor pack count":
		c.EnergyPack.Present = v
	case "capacity remaining":
		c.EnergyPack.Charge = v
	case "over temperature":
		if strings.EqualFold(value, "yes") {
			c.EnergyPack.Details = append(c.EnergyPack.Details, v)
		}
	}
}

// energyStatus reads the status of the cache's backup power: a battery
// (series 2 to 5: "Optimal", "Charging", "Failed", "Not Installed"), a
// ZMM (series 5Z and 6: "ZMM Optimal", "ZMM not installed"), an AFM
// flash module with its supercapacitor (series 7 and 8: "Ready", "Not
// Present") or a SmartRAID's "Backup Power Status". An absent module is
// not a failed one: it is said by Present, and Status stays unset.
func (p *arcParser) energyStatus(value string, v Value) {
	e := &p.ctl.EnergyPack
	switch {
	case strings.Contains(p.sub, "battery"):
		e.Kind = "battery"
	case strings.Contains(p.sub, "zmm"), strings.Contains(p.sub, "backup unit"):
		// The ZMM and the AFM are flash modules charged by a
		// supercapacitor.
		e.Kind = "capacitor"
	case strings.Contains(p.sub, "backup"):
	default:
		return // the status of something else (a maxCache pool)
	}
	s := strings.ToLower(value)
	if strings.HasPrefix(s, "zmm ") {
		v.Text = strings.TrimSpace(value[len("zmm "):])
		s = strings.ToLower(v.Text)
	}
	if strings.Contains(s, "not installed") || strings.Contains(s, "not present") {
		e.Present = Value{Text: "Absent", Line: v.Line, Set: true}
		return
	}
	e.Status = v
}

func (p *arcParser) volumeLine(n int, raw, text string) {
	key, value, ok := splitKV(text)
	if !ok {
		return
	}
	vol, v := p.vol, textValue(value, n, raw)
	k := strings.ToLower(key)
	switch {
	case k == "raid level":
		vol.RAID = v
	case k == "status of logical device":
		vol.Status = v
		// "Impacted ( Build/Verify with fix : 90 % )": the volume is
		// being built or verified.
		switch s := strings.ToLower(value); {
		case strings.Contains(s, "rebuild"):
			vol.Tasks = append(vol.Tasks, Task{Kind: TaskRebuild, Progress: progressValue(value, v), Line: v.Line})
		case strings.Contains(s, "verify"):
			vol.Tasks = append(vol.Tasks, Task{Kind: TaskConsistencyCheck, Progress: progressValue(value, v), Line: v.Line})
		case strings.Contains(s, "build") || strings.Contains(s, "clear"):
			vol.Tasks = append(vol.Tasks, Task{Kind: TaskInitialization, Progress: progressValue(value, v), Line: v.Line})
		}
	case k == "size":
		vol.Size = v
	case k == "read-cache setting" || k == "read-cache mode":
		vol.ReadPolicy = v
	case k == "write-cache setting":
		if w := arcWritePolicy(value, true); w != "" {
			v.Text = w
			vol.ConfiguredWrite = v
		}
	case k == "write-cache mode" || k == "write-cache status":
		if w := arcWritePolicy(value, false); w != "" {
			v.Text = w
			vol.CurrentWrite = v
		}
	case k == "caching":
		vol.Caching = v
	case k == "ld acceleration method":
		vol.Acceleration = v
	case k == "disk name":
		vol.OSName = v
	case k == "volume unique identifier":
		vol.WWN = v
	case k == "array":
		p.volArray[vol] = value
	case k == "parity initialization status":
		if s := strings.ToLower(value); strings.Contains(s, "in progress") || strings.Contains(s, "queued") {
			vol.Tasks = append(vol.Tasks, Task{Kind: TaskInitialization, Progress: progressValue(value, v), Line: v.Line})
		}
	case strings.HasPrefix(k, "segment ") || strings.Contains(k, ", segment ") || strings.HasPrefix(k, "device "):
		p.segment(vol, value)
	}
}

// arcWritePolicy names a logical device's write cache in the words the
// checks know. The setting "Enabled (write-back) when protected by
// battery" (newer: "On when protected by battery/ZMM") is arcconf's WBB,
// write-back that falls back to write-through without a working battery
// or module; a bare "Enabled (write-back)" ("Enabled") is WB, write-back
// whatever the battery does (the SETCACHE modes of the ARCCONF user's
// guide). The current state ("Write-cache mode", "Write-cache status")
// is write-back or write-through; "Not supported" is neither.
func arcWritePolicy(value string, setting bool) string {
	s := strings.ToLower(value)
	switch {
	case strings.Contains(s, "when protected"):
		return "WriteBack"
	case strings.HasPrefix(s, "enabled") || s == "on":
		if setting {
			return "Always WriteBack"
		}
		return "WriteBack"
	case strings.HasPrefix(s, "disabled") || s == "off":
		return "WriteThrough"
	}
	return ""
}

// segment records a member of vol: "Present (Controller:1,Enclosure:0,
// Slot:2)  WD-WXM1E74FEWAF", or on older firmware "Present (0,1)  <serial>".
// A member in rebuild is the drive's state too, which is where its task
// is read.
func (p *arcParser) segment(vol *Volume, value string) {
	open, end := strings.IndexByte(value, '('), strings.IndexByte(value, ')')
	if open < 0 || end < open {
		return
	}
	if len(p.segments[vol]) >= maxItems {
		return
	}
	inner := value[open+1 : end]
	id := ""
	if !strings.Contains(inner, ":") {
		id = strings.ReplaceAll(inner, " ", "")
	}
	p.segments[vol] = append(p.segments[vol], arcSegment{
		location: arcLocation(inner),
		id:       id,
		serial:   strings.TrimSpace(value[end+1:]),
	})
}

// arcLocation reduces the forms of a drive's place to one: a segment's
// "Controller:1,Enclosure:0,Slot:2" or "228936MB, SATA, SSD, Connector:0,
// Device:0", and a drive's "Reported Location : Enclosure 0, Slot 2" or
// "Connector 0, Device 0", all become "enclosure 0 slot 2" or "connector
// 0 device 0". A SmartRAID's "Enclosure Direct Attached, Slot 0(Connector
// 0:CN0)" keeps its slot.
func arcLocation(s string) string {
	var parts []string
	for _, f := range strings.Split(s, ",") {
		f = strings.ToLower(strings.TrimSpace(f))
		if i := strings.IndexByte(f, '('); i >= 0 {
			f = f[:i]
		}
		f = strings.Join(strings.Fields(strings.ReplaceAll(f, ":", " ")), " ")
		w := strings.Fields(f)
		if len(w) != 2 {
			continue
		}
		switch w[0] {
		case "enclosure", "slot", "connector", "device":
			parts = append(parts, f)
		}
	}
	return strings.Join(parts, " ")
}

func (p *arcParser) physicalLine(n int, raw, text string, level int) error {
	if strings.HasPrefix(text, "Device #") && level <= 6 {
		if len(p.ctl.Drives) >= maxItems {
			return fmt.Errorf("%w: more than %d physical devices", ErrParse, maxItems)
		}
		d := &Drive{ID: clip("#" + strings.TrimPrefix(text, "Device #"))}
		p.ctl.Drives = append(p.ctl.Drives, d)
		p.drive, p.dropped = d, false
		return nil
	}
	d := p.drive
	if d == nil || p.dropped {
		return nil
	}
	if strings.HasPrefix(text, "Device is a") {
		if !strings.Contains(text, "Hard drive") && !strings.Contains(text, "Solid") {
			// An enclosure services device or a tape: not a drive.
			p.ctl.Drives = p.ctl.Drives[:len(p.ctl.Drives)-1]
			p.dropped = true
		}
		return nil
	}
	key, value, ok := splitKV(text)
	if !ok {
		return nil
	}
	v := textValue(value, n, raw)
	switch strings.ToLower(key) {
	case "state":
		d.Status = v
		if strings.Contains(strings.ToLower(value), "rebuild") {
			p.ctl.Tasks = append(p.ctl.Tasks, Task{Kind: TaskRebuild, Line: v.Line})
		}
	case "model":
		d.Model = v
	case "serial number":
		d.Serial = v
	case "world-wide name":
		d.WWN = v
	case "reported channel,device(t:l)":
		// "0,2(2:0)": channel 0, device 2, which arcconf's own commands
		// take ("IDENTIFY 1 DEVICE 0 2").
		id := value
		if i := strings.IndexByte(id, '('); i >= 0 {
			id = id[:i]
		}
		if id = strings.TrimSpace(id); id != "" {
			d.ID = clip(id)
		}
	case "reported location":
		p.location[d] = arcLocation(value)
	case "array":
		p.array[d] = value
	case "transfer speed":
		if f := strings.Fields(value); len(f) > 0 {
			d.Interface = Value{Text: f[0], Line: v.Line, Set: true}
		}
	case "ssd":
		media := "HDD"
		if strings.EqualFold(value, "yes") {
			media = "SSD"
		}
		d.Media = Value{Text: media, Line: v.Line, Set: true}
	case "s.m.a.r.t. warnings", "predictive failures":
		d.Predictive = v
	case "media failures":
		d.MediaErrors = v
	case "hardware errors":
		d.OtherErrors = v
	}
	return nil
}

// resolve gives each logical device its drives: by the segment's
// location, by its serial number, or (SmartRAID) by the array both
// belong to.
func (p *arcParser) resolve() {
	c := p.ctl
	for _, vol := range c.Volumes {
		for _, s := range p.segments[vol] {
			for _, d := range c.Drives {
				loc := p.location[d]
				byLoc := s.location != "" && loc == s.location || s.id != "" && s.id == d.ID
				bySerial := s.serial != "" && strings.EqualFold(strings.TrimSpace(d.Serial.Text), s.serial)
				if byLoc || bySerial {
					p.member(vol, d)
					break
				}
			}
		}
		if a, ok := p.volArray[vol]; ok {
			for _, d := range c.Drives {
				if p.array[d] == a {
					p.member(vol, d)
				}
			}
		}
	}
}

func (p *arcParser) member(vol *Volume, d *Drive) {
	for _, id := range vol.Drives {
		if id == d.ID {
			return
		}
	}
	vol.Drives = append(vol.Drives, d.ID)
	if d.Volume == "" {
		d.Volume = vol.ID
	}
}
