package raidctl

import (
	"bytes"
	"errors"
	"fmt"
	"sort"
	"strconv"
	"strings"
)

// MegaCli's outputs are "Key : value" lines grouped under adapter
// headers. The three commands ParseMegaCli reads, as their captures in
// testdata/megacli show them:
//
//	MegaCli64 -LDInfo -Lall -aALL -NoLog       "Adapter 0 -- Virtual Drive Information:", then one
//	                                           "Virtual Drive: 0 (Target Id: 0)" block per volume
//	MegaCli64 -AdpBbuCmd -GetBbuStatus -aALL   "BBU status for Adapter: 0", then the pack's lines
//	MegaCli64 -PDList -aALL -NoLog             "Adapter #0", then one "Enclosure Device ID:" block
//	                                           per physical drive
//
// Older MegaCli versions print "Virtual Disk: 0 (target id: 0)" and
// "Key:value" without padding (glensc megacli.ldinfo.1, issue65), and pad
// keys with tabs (glensc issue39 "Learn Cycle Requested\t"): keys are
// compared case-insensitively with their runs of blanks collapsed.

// Bounds on what ParseMegaCli accepts: an output is refused over
// MaxMegaCliOutput bytes, and a parse that would hold more controllers,
// volumes, drives or tasks than MaxMegaCliItems (each, over the whole
// inventory) fails, so hostile input cannot grow memory without limit. A
// real MegaCli output is a few kilobytes per drive (the 12-drive glensc
// megacli.pdlist.1 is 11 KB) and a MegaRAID controller addresses at most
// a few hundred drives.
const (
	MaxMegaCliOutput = 8 << 20
	MaxMegaCliItems  = 4096
)

// Errors of ParseMegaCli, for errors.Is.
var (
	// ErrMegaCliTooLarge: an output is over MaxMegaCliOutput bytes.
	ErrMegaCliTooLarge = errors.New("MegaCli output too large")
	// ErrMegaCliTooMany: more than MaxMegaCliItems controllers, or
	// volumes, drives, volume members, tasks and energy-pack details
	// together.
	ErrMegaCliTooMany = errors.New("too many items in MegaCli output")
	// ErrMegaCliUnrecognized: a non-blank output without one adapter
	// header of MegaCli ("Adapter #0", "Adapter 0 -- ...", "Adapter 0:
	// ...", "BBU status for Adapter: 0"): not MegaCli's output, or cut
	// before its first header. The other outputs are still parsed.
	ErrMegaCliUnrecognized = errors.New("not a MegaCli output")
)

// ParseMegaCli reads the outputs of MegaCli64 -LDInfo -Lall -aALL
// -NoLog (ldinfo), -AdpBbuCmd -GetBbuStatus -aALL -NoLog (bbu) and
// -PDList -aALL -NoLog (pdlist) into one Inventory of Family
// FamilyMegaCli, one Controller per adapter number ("a0"), sorted by
// number. Any output may be nil (its command failed): the others are
// parsed. Tool and Cmds are left to the caller, which knows what it ran.
//
// Every Value's Line.N is the 1-based line of the output its field
// belongs to: volumes' of ldinfo, the energy pack's of bbu, drives' and
// Controller.Tasks' of pdlist. A key printed with an empty value ("WWN:
// ", "Battery state: ") leaves its Value unset. When a key repeats in one
// block the first wins (GetBbuStatus prints "Relative State of Charge"
// twice on some firmware: netdata mega-bbu-info-old.txt).
//
// Errors: an output over MaxMegaCliOutput (ErrMegaCliTooLarge) or too
// many items (ErrMegaCliTooMany) give a nil Inventory. A non-blank output
// that is not MegaCli's gives the Inventory of the others with an error
// wrapping ErrMegaCliUnrecognized that names it. Otherwise the error is
// nil, even for three nil outputs (an Inventory without controllers).
//
// Not read: the LDInfo volume name, strip size, access policy; the BBU's
// voltage, temperature and gas gauge; drives' sizes, temperature, SAS
// addresses and "Drive's position" (see parsePDList for why it does not
// map drives to volumes); "CacheCade Virtual Drive" blocks (an SSD cache
// in front of volumes, not a volume the host sees: glensc issue91).
func ParseMegaCli(ldinfo, bbu, pdlist []byte) (*Inventory, error) {
	for _, o := range []struct {
		name string
		b    []byte
	}{{"LDInfo", ldinfo}, {"GetBbuStatus", bbu}, {"PDList", pdlist}} {
		if len(o.b) > MaxMegaCliOutput {
			return nil, fmt.Errorf("%s: %d bytes, more than %d: %w", o.name, len(o.b), MaxMegaCliOutput, ErrMegaCliTooLarge)
		}
	}
	p := &mcParser{
		inv:     &Inventory{Family: FamilyMegaCli},
		byID:    map[int]*Controller{},
		num:     map[*Controller]int{},
		vols:    map[*Controller]map[string]*Volume{},
		drives:  map[*Controller]map[string]*Drive{},
		members: map[*Volume]map[string]bool{},
	}
	var errs []error
	for _, o := range []struct {
		name  string
		b     []byte
		parse func([]mcLine) (bool, error)
	}{{"LDInfo", ldinfo, p.parseLDInfo}, {"GetBbuStatus", bbu, p.parseBBU}, {"PDList", pdlist, p.parsePDList}} {
		lines := mcSplit(o.b)
		ok, err := o.parse(lines)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", o.name, err)
		}
		if !ok && !mcBlank(lines) {
			errs = append(errs, fmt.Errorf("%s: %w", o.name, ErrMegaCliUnrecognized))
		}
	}
	if err := p.link(); err != nil {
		return nil, err
	}
	sort.SliceStable(p.inv.Controllers, func(i, j int) bool {
		return p.num[p.inv.Controllers[i]] < p.num[p.inv.Controllers[j]]
	})
	return p.inv, errors.Join(errs...)
}

// mcLine is one line of an output: its 1-based number, the raw text (a
// trailing CR removed), and the key and value when it has a colon.
type mcLine struct {
	n      int
	raw    string
	key    string // lower case, blanks collapsed: "learn cycle requested"
	val    string // trimmed
	hasKey bool
}

func mcSplit(b []byte) []mcLine {
	var out []mcLine
	for n := 1; len(b) > 0; n++ {
		i := bytes.IndexByte(b, '\n')
		var l []byte
		if i < 0 {
			l, b = b, nil
		} else {
			l, b = b[:i], b[i+1:]
		}
		l = bytes.TrimSuffix(l, []byte("\r"))
		ln := mcLine{n: n, raw: string(l)}
		if k, v, ok := strings.Cut(ln.raw, ":"); ok {
			ln.key = strings.ToLower(strings.Join(strings.Fields(k), " "))
			ln.val = strings.TrimSpace(v)
			ln.hasKey = ln.key != ""
		}
		out = append(out, ln)
	}
	return out
}

func mcBlank(lines []mcLine) bool {
	for _, l := range lines {
		if strings.TrimSpace(l.raw) != "" {
			return false
		}
	}
	return true
}

func (l mcLine) line() Line { return Line{N: l.n, Text: l.raw} }

// mcSet fills v from l's value unless v is set already (the first wins) or
// the value is empty.
func mcSet(v *Value, text string, l mcLine) {
	if v.Set || text == "" {
		return
	}
	*v = Value{Text: text, Line: l.line(), Set: true}
}

type mcParser struct {
	inv  *Inventory
	byID map[int]*Controller
	num  map[*Controller]int
	// Indexes by ID, so that a hostile output repeating one header
	// cannot make each repetition scan every volume or drive.
	vols    map[*Controller]map[string]*Volume
	drives  map[*Controller]map[string]*Drive
	members map[*Volume]map[string]bool
	items   int // volumes, drives, members, tasks, details: against MaxMegaCliItems
}

func (p *mcParser) count() error {
	p.items++
	if p.items > MaxMegaCliItems {
		return ErrMegaCliTooMany
	}
	return nil
}

func (p *mcParser) controller(n int) (*Controller, error) {
	if c := p.byID[n]; c != nil {
		return c, nil
	}
	if len(p.inv.Controllers) >= MaxMegaCliItems {
		return nil, ErrMegaCliTooMany
	}
	c := &Controller{ID: "a" + strconv.Itoa(n)}
	p.byID[n] = c
	p.num[c] = n
	p.vols[c] = map[string]*Volume{}
	p.drives[c] = map[string]*Drive{}
	p.inv.Controllers = append(p.inv.Controllers, c)
	return c, nil
}

// mcAdapter recognizes the adapter headers of the three outputs and
// returns the adapter number: "Adapter #0" (PDList, LDPDInfo), "Adapter 0
// -- Virtual Drive Information:" (LDInfo), "Adapter 0: Get BBU Status
// Failed." and "Adapter 0: No Virtual Drive Configured." (a command that
// found nothing), "BBU status for Adapter: 0" (GetBbuStatus; "BBU
// Capacity Info for Adapter: 0" in -AdpBbuCmd's full output, netdata
// mega-bbu-info-old.txt).
func mcAdapter(l mcLine) (int, bool) {
	s := strings.TrimSpace(l.raw)
	if l.hasKey && strings.HasSuffix(l.key, "for adapter") {
		return mcNum(l.val)
	}
	rest, ok := strings.CutPrefix(s, "Adapter ")
	if !ok {
		return 0, false
	}
	rest = strings.TrimPrefix(rest, "#")
	end := 0
	for end < len(rest) && rest[end] >= '0' && rest[end] <= '9' {
		end++
	}
	n, ok := mcNum(rest[:end])
	if !ok {
		return 0, false
	}
	tail := strings.TrimSpace(rest[end:])
	if tail == "" || strings.HasPrefix(tail, "--") || strings.HasPrefix(tail, ":") {
		return n, true
	}
	return 0, false
}

// mcNum parses a small decimal number (at most 6 digits, so a hostile
// "Adapter 99999999999999999999" is not a header rather than an
// overflow).
func mcNum(s string) (int, bool) {
	if s == "" || len(s) > 6 {
		return 0, false
	}
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return 0, false
		}
	}
	n, err := strconv.Atoi(s)
	return n, err == nil
}

// mcVDHeader recognizes "Virtual Drive: 0 (Target Id: 0)" and the older
// "Virtual Disk: 0 (target id: 0)" (glensc megacli.ldinfo.1, issue65,
// pr74), returning the VD number and the target id ("" when not
// printed).
func mcVDHeader(l mcLine) (id, target string, ok bool) {
	if !l.hasKey || (l.key != "virtual drive" && l.key != "virtual disk") {
		return "", "", false
	}
	num, rest, _ := strings.Cut(l.val, " ")
	if _, ok := mcNum(num); !ok {
		return "", "", false
	}
	if _, t, ok := strings.Cut(rest, ":"); ok {
		t = strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(t), ")"))
		if _, ok := mcNum(t); ok {
			target = t
		}
	}
	return num, target, true
}

// mcTaskKinds are the LDInfo "Ongoing Progresses:" entries, each
// "  Check Consistency        : Completed 36%, Taken 42 min.": the kind
// of work and the task it is. Reconstruction is MegaCli's name for
// -LDRecon, which adds drives to a volume or changes its RAID level: the
// model's expansion.
var mcTaskKinds = map[string]string{
	"check consistency":         TaskConsistencyCheck,
	"rebuild":                   TaskRebuild,
	"background initialization": TaskInitialization,
	"initialization":            TaskInitialization,
	"reconstruction":            TaskExpansion,
}

// mcProgress finds "45%" in "Completed 45%, Taken 2 min.".
func mcProgress(v string) string {
	for _, f := range strings.FieldsFunc(v, func(r rune) bool { return r == ' ' || r == ',' }) {
		if p, ok := strings.CutSuffix(f, "%"); ok {
			if _, ok := mcNum(p); ok {
				return f
			}
		}
	}
	return ""
}

// parseLDInfo reads -LDInfo -Lall: one Volume per "Virtual Drive:" block.
// It also reads -LDPDInfo's layout, where each volume's block goes on with
// "PD: 0 Information" blocks of its drives (netdata
// mega-phys-drives-info.txt): their "enclosure:slot" go to Volume.Drives,
// and nothing else of theirs is read here.
func (p *mcParser) parseLDInfo(lines []mcLine) (bool, error) {
	var c *Controller
	var v *Volume
	var pol struct{ def, cur mcLine }
	inPD := false
	enc := ""
	seen := false
	flush := func() {
		if v != nil {
			mcPolicies(v, pol.def, pol.cur)
		}
		v, pol.def, pol.cur, inPD, enc = nil, mcLine{}, mcLine{}, false, ""
	}
	for _, l := range lines {
		if n, ok := mcAdapter(l); ok {
			flush()
			var err error
			if c, err = p.controller(n); err != nil {
				return seen, err
			}
			seen = true
			continue
		}
		if c == nil || !l.hasKey {
			continue
		}
		if id, target, ok := mcVDHeader(l); ok {
			flush()
			if v = p.vols[c][id]; v == nil {
				if err := p.count(); err != nil {
					return seen, err
				}
				v = &Volume{ID: id}
				c.Volumes = append(c.Volumes, v)
				p.vols[c][id] = v
			}
			mcSet(&v.TargetID, target, l)
			continue
		}
		if l.key == "cachecade virtual drive" {
			flush()
			continue
		}
		if v == nil {
			continue
		}
		switch {
		case l.key == "pd" || l.key == "physical disk":
			// "PD: 0 Information" (-LDPDInfo), "Physical Disk: 0"
			// (-CfgDsply): the volume's own lines are over.
			inPD = true
			continue
		case l.key == "enclosure device id":
			inPD, enc = true, l.val
			continue
		case inPD && l.key == "slot number":
			if l.val != "" {
				if err := p.member(v, enc+":"+l.val); err != nil {
					return seen, err
				}
			}
			continue
		case inPD:
			continue
		}
		if field, ok := mcVolumeFields[l.key]; ok {
			mcSet(field(v), l.val, l)
			continue
		}
		switch l.key {
		case "default cache policy":
			if pol.def.n == 0 {
				pol.def = l
			}
		case "current cache policy":
			if pol.cur.n == 0 {
				pol.cur = l
			}
		default:
			if kind, ok := mcTaskKinds[l.key]; ok {
				if err := p.count(); err != nil {
					return seen, err
				}
				t := Task{Kind: kind, Line: l.line()}
				mcSet(&t.Progress, mcProgress(l.val), l)
				v.Tasks = append(v.Tasks, t)
			}
		}
	}
	flush()
	return seen, nil
}

// mcPolicies reads "WriteBack, ReadAdaptive, Direct, No Write Cache if
// Bad BBU": the write policy, the read policy, the I/O policy and what
// the controller does with a bad BBU. "Write Cache OK if Bad BBU" keeps
// write-back on a failed or missing battery (glensc issue39
// batteries.ldinfo.1): CacheBadBBU is set only then, from the current
// policy, or the default one when no current policy was printed.
func mcPolicies(v *Volume, def, cur mcLine) {
	field := func(l mcLine, i int) string {
		f := strings.Split(l.val, ",")
		if i < len(f) {
			return strings.TrimSpace(f[i])
		}
		return ""
	}
	if def.n > 0 {
		mcSet(&v.ConfiguredWrite, field(def, 0), def)
		mcSet(&v.ReadPolicy, field(def, 1), def)
	}
	if cur.n > 0 {
		mcSet(&v.CurrentWrite, field(cur, 0), cur)
	}
	for _, l := range []mcLine{cur, def} {
		if l.n == 0 {
			continue
		}
		for _, f := range strings.Split(l.val, ",") {
			if f = strings.TrimSpace(f); strings.EqualFold(f, "Write Cache OK if Bad BBU") {
				mcSet(&v.CacheBadBBU, f, l)
			}
		}
		break
	}
}

// member adds drive id to v.Drives once.
func (p *mcParser) member(v *Volume, id string) error {
	m := p.members[v]
	if m == nil {
		m = map[string]bool{}
		p.members[v] = m
	}
	if m[id] {
		return nil
	}
	if err := p.count(); err != nil {
		return err
	}
	m[id] = true
	v.Drives = append(v.Drives, id)
	return nil
}

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
