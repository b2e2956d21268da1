package zfs

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"math"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/diskdoctor/diskdoctor/internal/parse"
	"github.com/diskdoctor/diskdoctor/machine"
)

// The zpool and zfs commands the doctor runs, exact argv (docs/fixtures.md
// lists them for people who record a machine by hand).
var (
	// statusArgv: -P full vdev paths (so members map to block devices),
	// -t per-vdev TRIM state ("(2% trimmed, started at …)").
	statusArgv = []string{"zpool", "status", "-P", "-t"}
	// iostatArgv: one interval of latency statistics, scripted (-H:
	// tab-separated, no headers), exact values (-p: bytes, ns), full paths
	// (-P), every vdev (-v), latency columns (-l). -y drops the since-boot
	// report, so the command takes the interval (1 s) to answer.
	iostatArgv = []string{"zpool", "iostat", "-H", "-p", "-P", "-v", "-l", "-y", "1", "1"}
	// autotrimArgv reads the autotrim property of every pool.
	autotrimArgv = []string{"zpool", "get", "-H", "-o", "name,value", "autotrim"}
	// getArgv reads the write-path properties of every filesystem and volume.
	getArgv = []string{"zfs", "get", "-H", "-p", "-t", "filesystem,volume", "-o", "name,property,value", "compression,sync,logbias,recordsize"}
)

// StatusArgv is `zpool status -P -t` as the doctor runs it (a copy).
func StatusArgv() []string { return slices.Clone(statusArgv) }

// IostatArgv is `zpool iostat -H -p -P -v -l -y 1 1` as the doctor runs it
// (a copy).
func IostatArgv() []string { return slices.Clone(iostatArgv) }

// AutotrimArgv is `zpool get -H -o name,value autotrim` as the doctor runs
// it (a copy).
func AutotrimArgv() []string { return slices.Clone(autotrimArgv) }

// GetArgv is the `zfs get` of the write-path properties as the doctor runs
// it (a copy).
func GetArgv() []string { return slices.Clone(getArgv) }

// Autotrim runs `zpool get -H -o name,value autotrim` and returns the
// value per pool.
func Autotrim(ctx context.Context, h *machine.Host) (map[string]string, machine.CmdResult, error) {
	res, err := h.Run(ctx, autotrimArgv...)
	if err != nil {
		return nil, res, err
	}
	if res.Exit != 0 {
		return nil, res, machine.ExitError(res)
	}
	return ParseZpoolGet(res.Stdout), res, nil
}

// ParseZpoolGet reads tab-separated "name<TAB>value" lines.
func ParseZpoolGet(b []byte) map[string]string {
	out := map[string]string{}
	sc := bufio.NewScanner(bytes.NewReader(b))
	for sc.Scan() {
		f := strings.Split(sc.Text(), "\t")
		if len(f) >= 2 && f[0] != "" && !strings.ContainsAny(f[0], " ") {
			out[f[0]] = strings.TrimSpace(f[len(f)-1])
		}
	}
	return out
}

// Status is the parsed output of `zpool status` (plain, -P and -t
// forms; OpenZFS 0.8-2.x, ZFS on Linux, illumos and Solaris layouts).
type Status struct {
	Pools []*Pool
}

// Pool is one pool of `zpool status`.
type Pool struct {
	Name   string
	State  string // ONLINE, DEGRADED, FAULTED, UNAVAIL, SUSPENDED, …
	Status string // the "status:" paragraph, joined
	Action string
	Scan   Scan
	// Errors is the "errors:" line ("No known data errors", "3 data errors, use '-v' for a list").
	Errors string
	// DataErrors is the number of data errors; -1 when not stated.
	DataErrors int
	Vdevs      []*Vdev // every config row below the pool's own row, in order
	// Lines are the raw lines of the pool's block, for evidence.
	StateLine string
	// NonNativeBlockSize: the status paragraph is ZPOOL_STATUS_NON_NATIVE_ASHIFT's
	// "One or more devices are configured to use a non-native block size"
	// (cmd/zpool/zpool_main.c, status_callback).
	NonNativeBlockSize bool
}

// Scan is the "scan:" paragraph.
type Scan struct {
	Lines    []string // raw, trimmed
	Function string   // scrub, resilver, rebuild, or "" (none requested)
	// InProgress: a scrub or resilver is running now (paused counts as not running).
	InProgress bool
	Paused     bool
	Canceled   bool
	Since      string // "Sat Nov 29 18:40:12 2026" for one in progress
	// Percent done, issue rate in bytes/s, "to go" estimate, bytes repaired
	// or resilvered so far; zero/"" when not stated.
	Percent     float64
	HasPercent  bool
	IssuedRate  float64
	ScannedRate float64
	RateText    string // "335M/s" as printed
	ToGo        string
	Done        string // "247G resilvered"
}

// Vdev is one row of the config section below the pool row.
type Vdev struct {
	Name  string // as printed: "mirror-0", "/dev/disk/by-id/ata-…-part1", "sda", a GUID
	Depth int    // 1 for top-level vdevs and class headers' children, 2 for their members, …
	// Class is the allocation class of the section: data, logs, cache,
	// spares, special, dedup.
	Class string
	// TopLevel is the name of the top-level vdev it belongs to ("raidz1-0",
	// or its own name for a single-disk top-level vdev).
	TopLevel string
	// Leaf: no rows nested below it (a disk, partition or file).
	Leaf  bool
	State string
	// Read, Write and Cksum error counters; -1 when not printed (spares, headers).
	Read, Write, Cksum int64
	// Was is the path of a missing device ("was /dev/sdb1").
	Was string
	// Note is what follows the counters: "cannot open", "(resilvering)", the
	// trim state, "was …".
	Note string
	// Resilvering: "(resilvering)" or "(repairing)" is printed for it.
	Resilvering bool
	Trim        Trim
	// BlockConfigured and BlockNative are the bytes of "block size: 512B
	// configured, 4096B native", which zpool status prints for a leaf
	// whose ashift is below the device's physical sector size (OpenZFS
	// cmd/zpool/zpool_main.c, print_status_config; restored for FreeBSD by
	// openzfs/zfs#11088); 0 when not printed.
	BlockConfigured, BlockNative int64
	Line                         string // the raw row, trimmed
}

// Trim is a leaf vdev's TRIM state as `zpool status -t` prints it.
type Trim struct {
	// State: active, suspended, complete, untrimmed, unsupported, or "" when
	// not printed.
	State   string
	Percent int
	Since   string // the "started at"/"completed at" time as printed
	Text    string // "(2% trimmed, started at Sat Nov 29 17:21:04 2026)"
}

var (
	statusPercentRE = regexp.MustCompile(`([0-9]+(?:\.[0-9]+)?)% done`)
	statusIssuedRE  = regexp.MustCompile(`issued at ([0-9.]+[KMGTPE]?)(?:B)?/s`)
	// ZFS on Linux 0.7 and older print one rate and "HHhMMm to go"
	// (zpool_main.c print_scan_status: "%s scanned out of %s at %s/s,
	// %lluh%um to go").
	statusScannedRE = regexp.MustCompile(`scanned (?:out of [0-9.]+[KMGTPE]? )?at ([0-9.]+[KMGTPE]?)(?:B)?/s`)
	statusToGoRE    = regexp.MustCompile(`([0-9]+ days [0-9:]+|[0-9:]+[0-9]|[0-9]+h[0-9]+m) to go|(no estimated completion time)`)
	statusDoneRE    = regexp.MustCompile(`([0-9.]+[KMGTPE]?B?) (resilvered|repaired)`)
	statusSinceRE   = regexp.MustCompile(`in progress since (.+)$`)
	dataErrorsRE    = regexp.MustCompile(`^([0-9]+) data errors`)
	blockSizeRE     = regexp.MustCompile(`block size: ([0-9]{1,10})B configured, ([0-9]{1,10})B native`)
	trimRE          = regexp.MustCompile(`\(([0-9]+)% trimmed, (?:(suspended), )?(started|completed) at ([^)]*)\)`)
)

// ParseStatus reads `zpool status` text. Unknown lines are skipped; an
// input with no "pool:" line is ErrParse ("no pools available" is a valid
// answer with zero pools).
func ParseStatus(b []byte) (*Status, error) {
	st := &Status{}
	text := string(b)
	if strings.Contains(text, "no pools available") && !strings.Contains(text, "pool:") {
		return st, nil
	}
	ps := statusParser{st: st}
	for _, raw := range strings.Split(strings.ReplaceAll(text, "\r\n", "\n"), "\n") {
		ps.line(strings.TrimRight(raw, " \t"))
	}
	if len(st.Pools) == 0 {
		return nil, fmt.Errorf("%w: no pool in zpool status output", machine.ErrParse)
	}
	for _, p := range st.Pools {
		p.Scan.parse()
		p.NonNativeBlockSize = strings.Contains(strings.Join(strings.Fields(p.Status), " "), "configured to use a non-native block size")
	}
	return st, nil
}

// statusParser is ParseStatus's state between lines.
type statusParser struct {
	st      *Status
	p       *Pool  // the pool being read; nil before the first "pool:"
	section string // the header key being continued: status, action, scan, config
	// The config table: the vdevs above the current row, the pool row's
	// indent (-1 before it) and the class of the rows (data, logs, ...).
	stack      []*Vdev
	baseIndent int
	class      string
}

func (ps *statusParser) line(line string) {
	trimmed := strings.TrimSpace(line)
	if key, val, ok := headerLine(line); ok {
		ps.section = key
		ps.header(key, val, trimmed)
		return
	}
	p := ps.p
	if p == nil || trimmed == "" {
		return
	}
	switch ps.section {
	case "status":
		p.Status += " " + trimmed
	case "action":
		p.Action += " " + trimmed
	case "scan", "scrub":
		p.Scan.Lines = append(p.Scan.Lines, trimmed)
	case "config":
		ps.configRow(line, trimmed)
	}
}

// header takes in a "key: value" line of the status header.
func (ps *statusParser) header(key, val, trimmed string) {
	if key == "pool" {
		ps.p = &Pool{Name: val, DataErrors: -1}
		ps.st.Pools = append(ps.st.Pools, ps.p)
		ps.stack, ps.baseIndent, ps.class = nil, -1, "data"
		return
	}
	p := ps.p
	if p == nil {
		return
	}
	switch key {
	case "state":
		p.State, p.StateLine = val, trimmed
	case "status":
		p.Status = val
	case "action":
		p.Action = val
	case "scan", "scrub":
		p.Scan.Lines = append(p.Scan.Lines, val)
	case "errors":
		p.Errors = val
		if val == "No known data errors" {
			p.DataErrors = 0
		} else if m := dataErrorsRE.FindStringSubmatch(val); m != nil {
			p.DataErrors, _ = strconv.Atoi(m[1])
		}
	}
}

// configRow takes in a row of the config table.
func (ps *statusParser) configRow(line, trimmed string) {
	p := ps.p
	fields := strings.Fields(trimmed)
	if fields[0] == "NAME" && len(fields) >= 2 && fields[1] == "STATE" {
		return
	}
	indent := indentOf(line)
	if ps.baseIndent < 0 {
		if fields[0] == p.Name {
			ps.baseIndent = indent // the pool's own row
		}
		return
	}
	if indent <= ps.baseIndent {
		// A class header (logs, cache, spares, special, dedup) sits at
		// the pool's indent.
		ps.class = fields[0]
		ps.stack = ps.stack[:0]
		return
	}
	v := parseVdevRow(fields)
	v.Line = trimmed
	v.Class = ps.class
	v.Depth = max((indent-ps.baseIndent+1)/2, 1)
	for len(ps.stack) > 0 && ps.stack[len(ps.stack)-1].Depth >= v.Depth {
		ps.stack = ps.stack[:len(ps.stack)-1]
	}
	if len(ps.stack) > 0 {
		ps.stack[len(ps.stack)-1].Leaf = false
		v.TopLevel = ps.stack[0].Name
	} else {
		v.TopLevel = v.Name
	}
	v.Leaf = true
	ps.stack = append(ps.stack, v)
	p.Vdevs = append(p.Vdevs, v)
}

// headerLine recognises "  pool: tank", " state: ONLINE", "config:" and
// the other "key: value" lines of the status header.
func headerLine(line string) (string, string, bool) {
	t := strings.TrimSpace(line)
	k, v, ok := strings.Cut(t, ":")
	if !ok {
		return "", "", false
	}
	switch k {
	case "pool", "state", "status", "action", "see", "scan", "scrub", "config", "errors", "remove", "checkpoint", "comment":
	default:
		return "", "", false
	}
	// A header line starts within the first few columns; a vdev row never
	// has "key:" as its first word.
	if indentOf(line) > 3 {
		return "", "", false
	}
	return k, strings.TrimSpace(v), true
}

func indentOf(line string) int {
	n := 0
	for _, c := range line {
		switch c {
		case ' ':
			n++
		case '\t':
			n += 8 - n%8
		default:
			return n
		}
	}
	return n
}

var vdevStates = map[string]bool{"ONLINE": true, "DEGRADED": true, "FAULTED": true, "OFFLINE": true, "UNAVAIL": true, "REMOVED": true, "AVAIL": true, "INUSE": true, "SPLIT": true, "SUSPENDED": true}

func parseVdevRow(fields []string) *Vdev {
	v := &Vdev{Name: fields[0], Read: -1, Write: -1, Cksum: -1}
	rest := fields[1:]
	if len(rest) > 0 && vdevStates[rest[0]] {
		v.State = rest[0]
		rest = rest[1:]
	}
	if len(rest) >= 3 {
		r, ok1 := parseCount(rest[0])
		w, ok2 := parseCount(rest[1])
		c, ok3 := parseCount(rest[2])
		if ok1 && ok2 && ok3 {
			v.Read, v.Write, v.Cksum = r, w, c
			rest = rest[3:]
		}
	}
	v.Note = strings.Join(rest, " ")
	if i := strings.Index(v.Note, "was "); i >= 0 {
		w := strings.Fields(v.Note[i+4:])
		if len(w) > 0 {
			v.Was = w[0]
		}
	}
	if m := blockSizeRE.FindStringSubmatch(v.Note); m != nil {
		c, _ := strconv.ParseInt(m[1], 10, 64)
		n, _ := strconv.ParseInt(m[2], 10, 64)
		if c > 0 && n > c {
			v.BlockConfigured, v.BlockNative = c, n
		}
	}
	v.Resilvering = strings.Contains(v.Note, "(resilvering)") || strings.Contains(v.Note, "(repairing)")
	switch {
	case strings.Contains(v.Note, "(untrimmed)"):
		v.Trim = Trim{State: "untrimmed", Text: "(untrimmed)"}
	case strings.Contains(v.Note, "(trim unsupported)"):
		v.Trim = Trim{State: "unsupported", Text: "(trim unsupported)"}
	default:
		if m := trimRE.FindStringSubmatch(v.Note); m != nil {
			pct, _ := strconv.Atoi(m[1])
			state := "active"
			switch {
			case m[2] == "suspended":
				state = "suspended"
			case m[3] == "completed":
				state = "complete"
			}
			v.Trim = Trim{State: state, Percent: pct, Since: strings.TrimSpace(m[4]), Text: m[0]}
		}
	}
	return v
}

// parseCount reads an error counter: "0", "12", or a human number "1.2K"
// (without -p).
func parseCount(s string) (int64, bool) {
	if n, err := strconv.ParseInt(s, 10, 64); err == nil && n >= 0 {
		return n, true
	}
	// A float beyond int64 converts to an implementation-defined value
	// (the Go spec, Conversions between numeric types): unknown instead.
	if f, ok := ParseSize(s); ok && f < math.MaxInt64 {
		return int64(f), true
	}
	return 0, false
}

// ParseSize reads a zfs_nicenum value ("370M", "1.84T", "512", "4.5K",
// "247GB" as some versions print) as bytes (powers of 1024).
func ParseSize(s string) (float64, bool) {
	s = strings.TrimSuffix(strings.TrimSpace(s), "B")
	if s == "" {
		return 0, false
	}
	mult := 1.0
	switch s[len(s)-1] {
	case 'K':
		mult = 1 << 10
	case 'M':
		mult = 1 << 20
	case 'G':
		mult = 1 << 30
	case 'T':
		mult = 1 << 40
	case 'P':
		mult = 1 << 50
	case 'E':
		mult = 1 << 60
	}
	if mult != 1 {
		s = s[:len(s)-1]
	}
	f, err := parse.Finite(s)
	if err != nil || f < 0 || math.IsInf(f*mult, 0) {
		return 0, false
	}
	return f * mult, true
}

func (s *Scan) parse() {
	if len(s.Lines) == 0 {
		return
	}
	first := s.Lines[0]
	all := strings.Join(s.Lines, " ")
	for _, fn := range []string{"resilver", "scrub", "rebuild"} {
		if strings.HasPrefix(first, fn) {
			s.Function = fn
		}
	}
	switch {
	case strings.Contains(first, "in progress"):
		s.InProgress = true
	case strings.Contains(first, "paused"):
		s.Paused = true
	case strings.Contains(first, "canceled"):
		s.Canceled = true
	}
	if strings.HasPrefix(first, "none requested") {
		s.Function = ""
	}
	if m := statusSinceRE.FindStringSubmatch(first); m != nil {
		s.Since = strings.TrimSpace(m[1])
	}
	if !s.InProgress {
		return
	}
	if m := statusPercentRE.FindStringSubmatch(all); m != nil {
		s.Percent, _ = strconv.ParseFloat(m[1], 64)
		s.HasPercent = true
	}
	if m := statusIssuedRE.FindStringSubmatch(all); m != nil {
		s.IssuedRate, _ = ParseSize(m[1])
		s.RateText = m[1] + "/s"
	}
	if m := statusScannedRE.FindStringSubmatch(all); m != nil {
		s.ScannedRate, _ = ParseSize(m[1])
		if s.RateText == "" {
			s.RateText = m[1] + "/s"
		}
	}
	if m := statusToGoRE.FindStringSubmatch(all); m != nil {
		s.ToGo = m[1]
		if m[2] != "" {
			s.ToGo = m[2]
		}
	}
	if m := statusDoneRE.FindStringSubmatch(all); m != nil {
		s.Done = m[0]
	}
}

// Leaves returns the pool's leaf vdevs (disks, partitions, files).
func (p *Pool) Leaves() []*Vdev {
	var out []*Vdev
	for _, v := range p.Vdevs {
		if v.Leaf {
			out = append(out, v)
		}
	}
	return out
}

// Pool returns the pool with that name, or nil.
func (s *Status) Pool(name string) *Pool {
	if s == nil {
		return nil
	}
	for _, p := range s.Pools {
		if p.Name == name {
			return p
		}
	}
	return nil
}

// ReadStatus runs ZpoolStatusArgv.
func ReadStatus(ctx context.Context, h *machine.Host) (*Status, machine.CmdResult, error) {
	res, err := h.Run(ctx, statusArgv...)
	if err != nil {
		return nil, res, err
	}
	if res.Exit != 0 {
		return nil, res, machine.ExitError(res)
	}
	st, err := ParseStatus(res.Stdout)
	return st, res, err
}
