package btrfs

import (
	"fmt"
	"regexp"
	"strings"

	"github.com/diskdoctor/diskdoctor/machine"
)

// Usage is btrfs filesystem usage (btrfs-progs cmds/filesystem-usage.c):
// the overall figures, each block group type with its profile, and the
// space of each device not yet allocated to any chunk.
type Usage struct {
	DeviceSize, Unallocated, Missing uint64
	HasUnallocated                   bool
	UnallocatedLine                  string
	Groups                           []Group
	// PerDevice is the "Unallocated:" section: each device's space no
	// chunk holds, in the order printed.
	PerDevice []DevSpace
}

// Group is one "Data,RAID1: Size:…, Used:… (…%)" header.
type Group struct {
	Type    string // Data, Metadata, System
	Profile string // single, DUP, RAID1, RAID1C3, RAID5, …
	Size    uint64
	Used    uint64
	HasUsed bool
	Line    string
}

// DevSpace is one device line of a section: its path and bytes.
type DevSpace struct {
	Path  string
	Bytes uint64
	Line  string
}

var (
	usageOverall = regexp.MustCompile(`^\s*(Device size|Device unallocated|Device missing):\s+(\S+)`)
	usageGroup   = regexp.MustCompile(`^(Data|Metadata|System|Data\+Metadata),([A-Za-z0-9]+): Size:\s*([^,\s]+),\s*Used:\s*(\S+?)(?:\s+\(.*\))?\s*$`)
	usageDevLine = regexp.MustCompile(`^\s+(\S.*?)\s+(\S+)\s*$`)
)

// ParseUsage reads btrfs filesystem usage, with -b (raw bytes) or without
// (binary units). Output with neither an Overall figure nor a block group
// is not usage output: ErrParse.
func ParseUsage(b []byte) (*Usage, error) {
	if len(b) > MaxOutputBytes {
		return nil, fmt.Errorf("%w: btrfs filesystem usage of %d bytes", machine.ErrParse, len(b))
	}
	u := &Usage{}
	section := ""
	known := false
	for _, l := range lines(b) {
		if strings.TrimSpace(l) == "" {
			section = ""
			continue
		}
		if m := usageOverall.FindStringSubmatch(l); m != nil {
			n, ok := Size(m[2])
			if !ok {
				continue
			}
			known = true
			switch m[1] {
			case "Device size":
				u.DeviceSize = n
			case "Device unallocated":
				u.Unallocated, u.HasUnallocated, u.UnallocatedLine = n, true, strings.TrimSpace(l)
			case "Device missing":
				u.Missing = n
			}
			continue
		}
		if m := usageGroup.FindStringSubmatch(l); m != nil {
			size, ok := Size(m[3])
			if !ok {
				continue
			}
			g := Group{Type: m[1], Profile: m[2], Size: size, Line: strings.TrimSpace(l)}
			g.Used, g.HasUsed = Size(m[4])
			u.Groups = append(u.Groups, g)
			known = true
			section = "group"
			continue
		}
		if strings.TrimSpace(l) == "Unallocated:" {
			section = "unallocated"
			continue
		}
		if section != "unallocated" {
			continue
		}
		m := usageDevLine.FindStringSubmatch(l)
		if m == nil || !printable(m[1]) {
			continue
		}
		n, ok := Size(m[2])
		if !ok {
			continue
		}
		if len(u.PerDevice) >= MaxDevices {
			return nil, fmt.Errorf("%w: btrfs filesystem usage lists more than %d devices", machine.ErrParse, MaxDevices)
		}
		u.PerDevice = append(u.PerDevice, DevSpace{Path: m[1], Bytes: n, Line: strings.TrimSpace(l)})
	}
	if !known {
		return nil, fmt.Errorf("%w: no btrfs filesystem usage figures", machine.ErrParse)
	}
	return u, nil
}

// MaxUnallocated is the most unallocated space on any one present device
// (a "missing" row is not space btrfs can allocate from), and the line
// that shows it; ok is false when the output has no per-device section.
func (u *Usage) MaxUnallocated() (n uint64, line string, ok bool) {
	for _, d := range u.PerDevice {
		if d.Path == "missing" || strings.HasPrefix(d.Path, "<missing") {
			continue
		}
		if !ok || d.Bytes > n {
			n, line, ok = d.Bytes, d.Line, true
		}
	}
	return n, line, ok
}

// MetadataUsed is the metadata block groups' used share of their size, in
// percent, summed over profiles (mixed groups, Data+Metadata, count as
// metadata); ok is false without any.
func (u *Usage) MetadataUsed() (pct float64, lines []string, ok bool) {
	var size, used uint64
	for _, g := range u.Groups {
		if g.Type != "Metadata" && g.Type != "Data+Metadata" || !g.HasUsed {
			continue
		}
		size += g.Size
		used += g.Used
		lines = append(lines, g.Line)
	}
	if size == 0 {
		return 0, nil, false
	}
	return float64(used) / float64(size) * 100, lines, true
}
