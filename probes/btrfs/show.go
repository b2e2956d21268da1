package btrfs

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"

	"github.com/diskdoctor/diskdoctor/machine"
)

// Filesystem is one filesystem of btrfs filesystem show (btrfs-progs
// cmds/filesystem.c, print_one_uuid): its UUID, the devices it should
// have, those present, and whether progs found some missing.
type Filesystem struct {
	UUID, Label  string
	TotalDevices int // "Total devices N"
	Devices      []Device
	// SomeMissing: the "*** Some devices missing" line, printed when fewer
	// devices were found than the filesystem has.
	SomeMissing bool
	// Lines are the lines that say a device is missing, as printed.
	MissingLines []string
}

// Device is one "devid N size S used U path P" line.
type Device struct {
	ID         uint64
	Size, Used uint64
	HasSize    bool
	Path       string // as printed: /dev/sdb1, /dev/mapper/x, "<missing disk #2>"
	Missing    bool   // the line ends in MISSING, or the path is not a device
	Line       string
}

var (
	showHead    = regexp.MustCompile(`^Label: (?:'(.*)'|none)\s+uuid: ([0-9a-fA-F-]{36})\s*$`)
	showTotal   = regexp.MustCompile(`^\s*Total devices (\d+) FS bytes used`)
	showDev     = regexp.MustCompile(`^\s*devid\s+(\d+) size (\S+) used (\S+) path (.+?)\s*$`)
	showWarnDev = regexp.MustCompile(`^warning, device (\d+) is missing$`)
)

// ParseShow reads btrfs filesystem show. Lines it does not know (progs'
// warnings, checksum errors of an unreadable filesystem) are skipped; a
// device line before any "Label:" line is ignored. "warning, device N is
// missing" belongs to the filesystem printed next (progs prints it while
// scanning, before the filesystem's block).
func ParseShow(b []byte) ([]*Filesystem, error) {
	if len(b) > MaxOutputBytes {
		return nil, fmt.Errorf("%w: btrfs filesystem show of %d bytes", machine.ErrParse, len(b))
	}
	var out []*Filesystem
	var cur *Filesystem
	var pending []string
	devs := 0
	for _, l := range lines(b) {
		t := strings.TrimSpace(l)
		if m := showHead.FindStringSubmatch(t); m != nil {
			cur = &Filesystem{UUID: strings.ToLower(m[2])}
			if printable(m[1]) {
				cur.Label = m[1]
			}
			cur.MissingLines = pending
			pending = nil
			out = append(out, cur)
			continue
		}
		if showWarnDev.MatchString(t) {
			pending = append(pending, t)
			continue
		}
		if cur == nil {
			continue
		}
		if m := showTotal.FindStringSubmatch(t); m != nil {
			cur.TotalDevices, _ = strconv.Atoi(m[1])
			continue
		}
		if t == "*** Some devices missing" {
			cur.SomeMissing = true
			cur.MissingLines = append(cur.MissingLines, t)
			continue
		}
		m := showDev.FindStringSubmatch(t)
		if m == nil {
			continue
		}
		if devs++; devs > MaxDevices {
			return nil, fmt.Errorf("%w: btrfs filesystem show lists more than %d devices", machine.ErrParse, MaxDevices)
		}
		id, err := strconv.ParseUint(m[1], 10, 64)
		if err != nil || !printable(m[4]) {
			continue
		}
		d := Device{ID: id, Line: t}
		d.Size, d.HasSize = Size(m[2])
		d.Used, _ = Size(m[3])
		path := m[4]
		if p, ok := strings.CutSuffix(path, " MISSING"); ok {
			path, d.Missing = p, true
		}
		d.Path = path
		if !strings.HasPrefix(path, "/") {
			d.Missing = true // "<missing disk #2>"
		}
		if d.Missing {
			cur.MissingLines = append(cur.MissingLines, t)
		}
		cur.Devices = append(cur.Devices, d)
	}
	return out, nil
}

// MissingIDs are the devids the filesystem lacks: devices marked missing,
// the ids of "warning, device N is missing", and, when progs says some are
// missing without naming them, none more (the count is TotalDevices less
// the devices listed).
func (f *Filesystem) MissingIDs() []uint64 {
	var out []uint64
	seen := map[uint64]bool{}
	for _, d := range f.Devices {
		if d.Missing && !seen[d.ID] {
			seen[d.ID] = true
			out = append(out, d.ID)
		}
	}
	for _, l := range f.MissingLines {
		if m := showWarnDev.FindStringSubmatch(l); m != nil {
			if id, err := strconv.ParseUint(m[1], 10, 64); err == nil && !seen[id] {
				seen[id] = true
				out = append(out, id)
			}
		}
	}
	return out
}

// Missing: the filesystem lacks a device by any of progs' signs.
func (f *Filesystem) Missing() bool {
	present := 0
	for _, d := range f.Devices {
		if !d.Missing {
			present++
		}
	}
	return f.SomeMissing || len(f.MissingIDs()) > 0 || (f.TotalDevices > 0 && present < f.TotalDevices)
}
