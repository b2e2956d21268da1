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
