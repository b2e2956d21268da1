// Package multipath reads device-mapper multipath's own view of its maps,
// `multipath -ll`: each map's path groups and, for every path, the
// kernel's state (active or failed), the path checker's (ready, ghost,
// faulty, shaky…) and the SCSI device's (running, offline). sysfs only
// says which disks a map holds; whether a path carries I/O is in the
// kernel's multipath table status and the checker, and -ll prints both.
package multipath

import (
	"bytes"
	"context"
	"fmt"
	"regexp"
	"slices"
	"strings"

	"github.com/diskdoctor/diskdoctor/machine"
)

// argv lists every map with the path checker run on each path (-ll; -l
// leaves the checker state "undef"), multipath(8).
var argv = []string{"multipath", "-ll"}

// Argv is the command the doctor runs (a copy).
func Argv() []string { return slices.Clone(argv) }

// Bounds on what a listing may hold before it is refused: a recording is
// not trusted; a real listing is about 80 bytes per path.
const (
	MaxOutputBytes = 8 << 20
	MaxMaps        = 20000
	MaxPaths       = 4096 // per map
)

// Map is one multipath map of the listing.
type Map struct {
	Name            string // alias (mpatha) or, without user_friendly_names, the WWID
	WWID            string
	DM              string // dm-2; "" in listings that print none (multipath-tools 0.4.5)
	Vendor, Product string
	Size, Features  string
	Groups          []Group
	Paths           []Path
	// Lines are the map's lines as printed, for evidence.
	Lines []string
}

// Group is a path group: its selector, priority and state (active: I/O
// goes to it now; enabled: the next to take over; disabled).
type Group struct {
	Policy, Prio, Status string
	Line                 string
}

// Path is one path of a map.
type Path struct {
	HCTL    string // Host:Channel:Target:LUN, "#:#:#:#" for a path whose device is gone
	Dev     string // sdb, "-" when gone
	DevNo   string // 8:16
	DM      string // the kernel's state of the path in the map: active, failed (undef while unknown)
	Checker string // the path checker's: ready, ghost, faulty, shaky, i/o pending, i/o timeout, delayed, undef
	Online  string // the SCSI device's state: running, offline… ("" in listings that print none)
	Group   int    // index into Map.Groups, -1 before any group line
	Line    string
}

// Down: the path carries no I/O. The kernel failed it, the checker finds
// it faulty or shaky (the Red Hat DM Multipath guide, "Multipath Command
// Output": "If the path is down, the status is faulty or shaky"; "failed
// … is analogous to faulty"), the checker timed out, or the SCSI device
// is offline (online_status "offline": "this SCSI device has been
// disabled").
func (p *Path) Down() bool {
	switch {
	case p.DM == "failed":
		return true
	case p.Checker == "faulty" || p.Checker == "shaky" || p.Checker == "i/o timeout":
		return true
	}
	switch p.Online {
	case "offline", "transport-offline", "deleted", "cancel":
		return true
	}
	return false
}

// Active: the path is up and ready for I/O, through the kernel (dm state
// active) and by the checker (ready, or ghost: a passive path of an
// active/passive array that takes I/O after a failover). A path that is
// neither Active nor Down (i/o pending, delayed, undef) is unknown.
func (p *Path) Active() bool {
	return !p.Down() && p.DM == "active" && (p.Checker == "ready" || p.Checker == "ghost")
}

// Name is how the path is named in a finding: its device, or its SCSI
// address when the device is gone.
func (p *Path) Name() string {
	if p.Dev != "" && p.Dev != "-" {
		return p.Dev
	}
	return p.HCTL
}

var (
	// The map's header: "mpatha (3600…) dm-2 LIO-ORG,data-chunk2",
	// "3600… dm-5 LIO-ORG ,block0_sdb" (no alias), "mpath9 (3600…)" (no
	// dm name, multipath-tools 0.4.5). The WWID may hold spaces
	// ("1IET     00080001"), the product too.
	headerDM    = regexp.MustCompile(`^(.*?)\s+(dm-\d+)(?:\s+(.*))?$`)
	headerAlias = regexp.MustCompile(`^(\S+)\s+\(([^()]+)\)$`)
	aliasWWID   = regexp.MustCompile(`^(\S+)\s+\(([^()]+)\)$`)
	// An action printed before the header when the map changes
	// (libmultipath print.c: "create:", "reload:", "switchpg:"…).
	action = regexp.MustCompile(`^[a-z]+: `)
	hctl   = regexp.MustCompile(`^(\d+:\d+:\d+:\d+|#:#:#:#)$`)
	// Old listings' path group: "round-robin 0 [prio=1][active]".
	oldGroup = regexp.MustCompile(`^(.*?)\s*((?:\[[^\]]*\])+)$`)
	// Modern listings' attributes: policy='service-time 0' prio=50.
	attr = regexp.MustCompile(`(\w+)=('[^']*'|\S+)`)
)

// Parse reads Argv's output. Lines that belong to no map (a configuration
// warning multipath prints first, -v4 debugging) are skipped; a listing
// over the bounds is machine.ErrParse.
func Parse(b []byte) ([]*Map, error) {
	if len(b) > MaxOutputBytes {
		return nil, fmt.Errorf("%w: multipath -ll output of %d bytes (at most %d read)", machine.ErrParse, len(b), MaxOutputBytes)
	}
	var maps []*Map
	var cur *Map
	for _, raw := range bytes.Split(b, []byte("\n")) {
		line := strings.TrimRight(string(raw), " \t\r")
		if line == "" {
			continue
		}
		if m := header(line); m != nil {
			if len(maps) >= MaxMaps {
				return nil, fmt.Errorf("%w: multipath -ll lists more than %d maps", machine.ErrParse, MaxMaps)
			}
			cur = m
			maps = append(maps, cur)
			continue
		}
		if cur == nil {
			continue
		}
		ok, err := cur.add(line)
		if err != nil {
			return nil, err
		}
		if !ok {
			// Anything else ends the map: -v4 prints debugging between maps.
			cur = nil
		}
	}
	return maps, nil
}

// header reads a map's first line, nil when line is not one.
func header(line string) *Map {
	if line[0] == ' ' || line[0] == '\t' || strings.ContainsAny(line[:1], "|`\\[") || strings.Contains(line, " | ") || strings.HasPrefix(line, "size=") {
		return nil
	}
	line = action.ReplaceAllString(line, "")
	m := &Map{Lines: []string{line}}
	if g := headerDM.FindStringSubmatch(line); g != nil {
		m.DM = g[2]
		if a := aliasWWID.FindStringSubmatch(g[1]); a != nil {
			m.Name, m.WWID = a[1], a[2]
		} else {
			m.Name, m.WWID = g[1], g[1]
		}
		if strings.ContainsAny(m.Name, "() =") || strings.HasSuffix(m.Name, ":") {
			return nil
		}
		m.Vendor, m.Product, _ = strings.Cut(g[3], ",")
		m.Vendor, m.Product = strings.TrimSpace(m.Vendor), strings.TrimSpace(m.Product)
		return m
	}
	if g := headerAlias.FindStringSubmatch(line); g != nil && !strings.HasSuffix(g[1], ":") {
		m.Name, m.WWID = g[1], g[2]
		return m
	}
	return nil
}

// treeChars are what multipath draws its tree with: "|-+- ", "| `- "
// (libmultipath print.c) and, in listings before 0.4.9, "\_ ".
const treeChars = "|`-+\\_ "

// add reads a line of the map: its size line, a path group or a path.
// false when the line is none of them.
func (m *Map) add(line string) (bool, error) {
	if strings.HasPrefix(line, "size=") || strings.HasPrefix(line, "[size=") {
		m.Lines = append(m.Lines, line)
		m.sizeLine(line)
		return true, nil
	}
	prefix := line[:len(line)-len(strings.TrimLeft(line, treeChars))]
	rest := strings.TrimSpace(line[len(prefix):])
	if strings.TrimSpace(prefix) == "" || rest == "" {
		// Indented without a tree: -v4's "paths list" table, not the map.
		return false, nil
	}
	f := strings.Fields(rest)
	if hctl.MatchString(f[0]) {
		if len(m.Paths) >= MaxPaths {
			return false, fmt.Errorf("%w: multipath -ll map %s has more than %d paths", machine.ErrParse, m.Name, MaxPaths)
		}
		p, ok := path(f)
		if !ok {
			return false, nil
		}
		p.Group, p.Line = len(m.Groups)-1, line
		m.Paths = append(m.Paths, p)
		m.Lines = append(m.Lines, line)
		return true, nil
	}
	g := Group{Line: line}
	if strings.Contains(rest, "policy=") {
		for _, a := range attr.FindAllStringSubmatch(rest, -1) {
			v := strings.Trim(a[2], "'")
			switch a[1] {
			case "policy":
				g.Policy = v
			case "prio":
				g.Prio = v
			case "status":
				g.Status = v
			}
		}
	} else if o := oldGroup.FindStringSubmatch(rest); o != nil {
		// "round-robin 0 [prio=1][active]", "round-robin 0 [active]".
		g.Policy = o[1]
		for _, b := range strings.Split(strings.Trim(o[2], "[]"), "][") {
			if v, ok := strings.CutPrefix(b, "prio="); ok {
				g.Prio = v
			} else {
				g.Status = b
			}
		}
	} else {
		return false, nil
	}
	m.Groups = append(m.Groups, g)
	m.Lines = append(m.Lines, line)
	return true, nil
}

// sizeLine reads "size=1022M features='1 queue_if_no_path' hwhandler='1
// alua' wp=rw" or the old "[size=100G][features=1 queue_if_no_path]…".
func (m *Map) sizeLine(line string) {
	if strings.HasPrefix(line, "[") {
		for _, b := range strings.Split(strings.Trim(line, "[]"), "][") {
			k, v, _ := strings.Cut(b, "=")
			switch strings.TrimSpace(k) {
			case "size":
				m.Size = strings.TrimSpace(v)
			case "features":
				m.Features = strings.Trim(strings.TrimSpace(v), `"`)
			}
		}
		return
	}
	for _, a := range attr.FindAllStringSubmatch(line, -1) {
		switch a[1] {
		case "size":
			m.Size = a[2]
		case "features":
			m.Features = strings.Trim(a[2], "'")
		}
	}
}

// path reads a path's fields: "3:0:0:0 sdb 8:16 active ready running",
// "#:#:#:# - #:# active faulty running", the old "3:0:1:4 sdk 8:160
// [active][ready]". The checker state may hold a space ("i/o pending").
func path(f []string) (Path, bool) {
	if len(f) < 4 {
		return Path{}, false
	}
	p := Path{HCTL: f[0], Dev: f[1], DevNo: f[2]}
	states := f[3:]
	if len(states) == 1 && strings.HasPrefix(states[0], "[") {
		states = strings.Split(strings.Trim(states[0], "[]"), "][")
	}
	if !strings.Contains(p.DevNo, ":") || len(states) < 2 {
		return Path{}, false
	}
	p.DM = states[0]
	switch {
	case len(states) == 2:
		p.Checker = states[1]
	default:
		p.Checker = strings.Join(states[1:len(states)-1], " ")
		p.Online = states[len(states)-1]
	}
	return p, true
}

// Read runs Argv. A non-zero exit is an error: the listing may then lack
// maps.
func Read(ctx context.Context, h *machine.Host) ([]*Map, machine.CmdResult, error) {
	res, err := h.Run(ctx, argv...)
	if err != nil {
		return nil, res, err
	}
	if res.Exit != 0 {
		return nil, res, machine.ExitError(res)
	}
	maps, err := Parse(res.Stdout)
	return maps, res, err
}
