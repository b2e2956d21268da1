package raidctl

// MegaCli's battery status and physical drive list (megacli.go reads the
// volumes and ties the three outputs together).

import "strings"

// mcBBUDetails are the GetBbuStatus "BBU Firmware Status:" flags that
// explain a pack's state when they are "Yes" (glensc issue39
// batteries.bbustatus: "Battery Replacement required : Yes" with an empty
// "Battery state:"), and their names as Details print them.
var mcBBUDetails = map[string]string{
	"learn cycle active":                         "Learn Cycle Active",
	"learn cycle requested":                      "Learn Cycle Requested",
	"battery pack missing":                       "Battery Pack Missing",
	"battery replacement required":               "Battery Replacement required",
	"pack is about to fail & should be replaced": "Pack is about to fail & should be replaced",
	"remaining capacity low":                     "Remaining Capacity Low",
}

// parseBBU reads -AdpBbuCmd -GetBbuStatus into each adapter's
// EnergyPack. Present is "Present" from the "BatteryType:" line (the
// controller reports a pack), "Absent" from "Battery Pack Missing: Yes"
// or from the firmware's "not present" (glensc issue32, MegaCli 8.07),
// and unset when GetBbuStatus failed without saying why (MegaCli 8.01).
func (p *mcParser) parseBBU(lines []mcLine) (bool, error) {
	var c *Controller
	seen := false
	for _, l := range lines {
		if n, ok := mcAdapter(l); ok {
			var err error
			if c, err = p.controller(n); err != nil {
				return seen, err
			}
			seen = true
			// "Adapter 0: Get BBU Status Failed." (glensc issue32): kept
			// as evidence of why nothing follows.
			if _, msg, ok := strings.Cut(l.raw, ":"); ok && !strings.HasSuffix(l.key, "for adapter") {
				if msg = strings.TrimSpace(msg); msg != "" {
					if err := p.detail(c, Value{Text: msg, Line: l.line(), Set: true}); err != nil {
						return seen, err
					}
				}
			}
			continue
		}
		if c == nil {
			continue
		}
		e := &c.EnergyPack
		// MegaCli 8.07 adds the firmware's reason under "FW error
		// description:" when there is no BBU (glensc issue32
		// bbustatus.MegaCli-8.07.10-1); 8.01 prints only the failure.
		s := strings.TrimSpace(l.raw)
		if strings.HasPrefix(strings.ToLower(s), "the required hardware component is not present") {
			e.Present = Value{Text: "Absent", Line: l.line(), Set: true}
			continue
		}
		if !l.hasKey {
			continue
		}
		switch l.key {
		case "batterytype", "battery type", "bbu type":
			if l.val == "" || e.Kind != "" {
				continue
			}
			e.Kind = mcPackKind(l.val)
			mcSet(&e.Present, "Present", l)
		case "battery state":
			mcSet(&e.Status, l.val, l)
		case "relative state of charge":
			mcSet(&e.Charge, l.val, l)
		case "charging status":
			// "None" is the idle charger; "Charging" and "Discharging"
			// say why the charge is not full (glensc issue39
			// batteries.bbustatus.3, in a learn cycle).
			if l.val != "" && !strings.EqualFold(l.val, "None") {
				if err := p.detail(c, Value{Text: "Charging Status: " + l.val, Line: l.line(), Set: true}); err != nil {
					return seen, err
				}
			}
		default:
			name, ok := mcBBUDetails[l.key]
			if !ok || !strings.EqualFold(l.val, "Yes") {
				continue
			}
			if err := p.detail(c, Value{Text: name + ": Yes", Line: l.line(), Set: true}); err != nil {
				return seen, err
			}
			if l.key == "battery pack missing" {
				e.Present = Value{Text: "Absent", Line: l.line(), Set: true}
			}
		}
	}
	return seen, nil
}

func (p *mcParser) detail(c *Controller, v Value) error {
	if err := p.count(); err != nil {
		return err
	}
	c.EnergyPack.Details = append(c.EnergyPack.Details, v)
	return nil
}

// mcPackKind: MegaRAID's CacheVault modules are supercapacitors with
// flash (CVPM02, CVPM05; "TMM" is the Transportable Memory Module of the
// same family), the rest (iBBU, iBBU08, BBU) lithium-ion batteries.
func mcPackKind(t string) string {
	u := strings.ToUpper(t)
	if strings.Contains(u, "CVPM") || strings.Contains(u, "CACHEVAULT") || strings.Contains(u, "TMM") {
		return "capacitor"
	}
	return "battery"
}

// mcDriveFields and mcVolumeFields are the -PDList and -LDInfo lines
// read as they are, by key.
var (
	mcDriveFields = map[string]func(*Drive) *Value{
		"device id":                func(d *Drive) *Value { return &d.DeviceID },
		"media error count":        func(d *Drive) *Value { return &d.MediaErrors },
		"other error count":        func(d *Drive) *Value { return &d.OtherErrors },
		"predictive failure count": func(d *Drive) *Value { return &d.Predictive },
		"firmware state":           func(d *Drive) *Value { return &d.Status },
		"wwn":                      func(d *Drive) *Value { return &d.WWN },
		"media type":               func(d *Drive) *Value { return &d.Media },
		"pd type":                  func(d *Drive) *Value { return &d.Interface },
	}
	mcVolumeFields = map[string]func(*Volume) *Value{
		"raid level":        func(v *Volume) *Value { return &v.RAID },
		"state":             func(v *Volume) *Value { return &v.Status },
		"size":              func(v *Volume) *Value { return &v.Size },
		"disk cache policy": func(v *Volume) *Value { return &v.DiskCache },
	}
)

// parsePDList reads -PDList: one Drive per "Enclosure Device ID:" block.
//
// Drive.Volume is not read from "Drive's position: DiskGroup: 0, Span: 0,
// Arm: 1": a disk group is not a virtual drive. One disk group can hold
// several volumes (MegaCli -CfgLdAdd -sz carves one out of a group's
// space), and -LDInfo does not print the group of a volume, so nothing in
// these outputs says which VD number a group's drives serve; the captures
// where the numbers coincide (glensc issue45: DG n and VD n for n 0..6)
// are not a rule. Volume is set only from -LDPDInfo's layout, where a
// drive's block follows its "Virtual Drive:" header (netdata
// mega-phys-drives-info.txt), whether that output comes as pdlist or as
// ldinfo.
func (p *mcParser) parsePDList(lines []mcLine) (bool, error) {
	var c *Controller
	var d *Drive
	var enc, slot string
	var inquiry mcLine
	vd := ""
	seen := false
	commit := func() error {
		if d == nil {
			return nil
		}
		dd := d
		d = nil
		dd.ID = enc + ":" + slot
		if inquiry.n > 0 {
			mcInquiry(dd, inquiry)
		}
		if p.drives[c][dd.ID] != nil {
			// -LDPDInfo lists a drive under each volume of its disk
			// group: one Drive, the first volume.
			return nil
		}
		if err := p.count(); err != nil {
			return err
		}
		c.Drives = append(c.Drives, dd)
		p.drives[c][dd.ID] = dd
		if strings.HasPrefix(strings.ToLower(dd.Status.Text), "rebuild") {
			if err := p.count(); err != nil {
				return err
			}
			c.Tasks = append(c.Tasks, Task{Kind: TaskRebuild, Line: dd.Status.Line})
		}
		return nil
	}
	begin := func() {
		d = &Drive{Volume: vd}
		enc, slot, inquiry = "", "", mcLine{}
	}
	for _, l := range lines {
		if n, ok := mcAdapter(l); ok {
			if err := commit(); err != nil {
				return seen, err
			}
			var err error
			if c, err = p.controller(n); err != nil {
				return seen, err
			}
			seen, vd = true, ""
			continue
		}
		if c == nil || !l.hasKey {
			continue
		}
		if id, _, ok := mcVDHeader(l); ok {
			if err := commit(); err != nil {
				return seen, err
			}
			vd = id
			continue
		}
		switch l.key {
		case "enclosure device id":
			if err := commit(); err != nil {
				return seen, err
			}
			begin()
			enc = l.val
			continue
		case "slot number":
			// A block without an enclosure line, or a second slot in one
			// block: a new drive.
			if d == nil || slot != "" {
				if err := commit(); err != nil {
					return seen, err
				}
				begin()
			}
			slot = l.val
			continue
		}
		if d == nil {
			continue
		}
		if field, ok := mcDriveFields[l.key]; ok {
			mcSet(field(d), l.val, l)
		} else if l.key == "inquiry data" && inquiry.n == 0 {
			inquiry = l
		}
	}
	if err := commit(); err != nil {
		return seen, err
	}
	return seen, nil
}

// mcInquiry reads "Inquiry Data:", which MegaCli prints as the drive's
// identify strings side by side, space-padded, after "Inquiry Data: ".
// For SATA drives ("PD Type: SATA") they are the ATA IDENTIFY strings:
// serial (20 characters, right-aligned), model (40), firmware (8):
//
//	Inquiry Data:       MK0311YHGXHPPAHitachi HDS723030ALA640                 MKAOA5C0   (glensc 3/pdlist)
//	Inquiry Data: BTWL420303WT600TGN  INTEL SSDSC2BB600G4                     D2010370   (glensc issue91)
//
// For SAS drives, and for any drive when PD Type is not printed (older
// MegaCli), they are the SCSI INQUIRY strings: vendor (8), product (16),
// revision (4), then the unit serial number:
//
//	Inquiry Data: SEAGATE ST3146356SS     HS093QN070RR              (glensc megacli)
//	Inquiry Data: ATA     ST9500620NS     FTA1            9XF1KAGA  (glensc pr74)
//
// "ATA" is the vendor SCSI-ATA translation gives every ATA drive, not its
// maker, and is left out of Model.
//
// Serial is left unset where the layout is not known to hold only the
// serial: a tail with blanks inside it, and IBM's relabelled drives
// ("IBM-ESXS" vendor), whose tail runs the serial into other fields
// ("6XS3H1JY0808B55C" after revision "B55C", glensc issue45). A string
// too short for its layout ("IBM-ESXSM", glensc issue123) is all Model.
func mcInquiry(d *Drive, l mcLine) {
	s, ok := strings.CutPrefix(l.raw, "Inquiry Data: ")
	if !ok {
		// "Inquiry Data:" with other spacing: no columns to trust.
		mcSet(&d.Model, strings.Join(strings.Fields(l.val), " "), l)
		return
	}
	if strings.EqualFold(d.Interface.Text, "SATA") && !strings.HasPrefix(s, "ATA     ") {
		// IDENTIFY's serial (20 characters), model (40) and firmware (8),
		// counted from the end: MegaCli keeps the padding, and a snapshot's
		// redaction may have changed the serial's length, never the
		// model's or the firmware's.
		if n := len(s); n > 48 {
			mcSet(&d.Serial, strings.TrimSpace(s[:n-48]), l)
			mcSet(&d.Model, strings.TrimSpace(s[n-48:n-8]), l)
			return
		}
	} else if len(s) >= 28 {
		vendor, product := strings.TrimSpace(s[:8]), strings.TrimSpace(s[8:24])
		model := product
		if vendor != "ATA" && vendor != "" {
			model = vendor + " " + product
		}
		mcSet(&d.Model, model, l)
		tail := strings.TrimSpace(s[28:])
		if vendor != "IBM-ESXS" && !strings.ContainsAny(tail, " \t") {
			mcSet(&d.Serial, tail, l)
		}
		return
	}
	mcSet(&d.Model, strings.Join(strings.Fields(s), " "), l)
}

// link joins the two sides of the volume-drive mapping that -LDPDInfo
// gives: a volume's drive list (ldinfo) and a drive's volume (pdlist).
func (p *mcParser) link() error {
	for _, c := range p.inv.Controllers {
		for _, v := range c.Volumes {
			for _, id := range v.Drives {
				if d := p.drives[c][id]; d != nil && d.Volume == "" {
					d.Volume = v.ID
				}
			}
		}
		for _, d := range c.Drives {
			if v := p.vols[c][d.Volume]; v != nil && d.Volume != "" {
				if err := p.member(v, d.ID); err != nil {
					return err
				}
			}
		}
	}
	return nil
}
