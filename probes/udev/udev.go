package udev

import (
	"context"
	"strings"

	"github.com/diskdoctor/diskdoctor/machine"
)

// Record is one entry of udev's runtime database,
// /run/udev/data/b<major>:<minor>: the properties (E:) and the device links
// (S:, relative to /dev). It is readable without root and was written when
// the device appeared, so it also records the drive state at that moment
// (ID_ATA_WRITE_CACHE_ENABLED).
type Record struct {
	Path  string
	Links []string
	// props in the record's order. A list, not a map: a record has a
	// few dozen, a lookup reads them in a few dozen comparisons, and a
	// map per record was a large part of a big machine's allocation.
	props []udevProp
}

type udevProp struct{ name, value string }

// Read reads the udev record of a block device number ("8:0").
func Read(ctx context.Context, h *machine.Host, devno string) (*Record, error) {
	p := "/run/udev/data/b" + strings.TrimSpace(devno)
	b, err := h.ReadFile(ctx, p)
	if err != nil {
		return nil, err
	}
	rec := Parse(b)
	rec.Path = p
	return rec, nil
}

// parseUdev parses a udev database record: "E:KEY=value" properties and
// "S:link" device links; other lines are udev's own bookkeeping. It works
// on the one string of the record, so that properties share its memory
// (two allocations per record instead of two per line).
func Parse(b []byte) *Record {
	text := string(b)
	rec := &Record{props: make([]udevProp, 0, strings.Count(text, "\nE:")+1)}
	for len(text) > 0 {
		line, rest, _ := strings.Cut(text, "\n")
		text = rest
		line = strings.TrimSuffix(line, "\r")
		if len(line) < 2 || line[1] != ':' {
			continue
		}
		switch line[0] {
		case 'E':
			if k, v, ok := strings.Cut(line[2:], "="); ok && k != "" {
				rec.props = append(rec.props, udevProp{k, v})
			}
		case 'S':
			if l := strings.TrimSpace(line[2:]); l != "" {
				rec.Links = append(rec.Links, l)
			}
		}
	}
	return rec
}

// Prop returns a property or "".
func (u *Record) Prop(k string) string {
	if u == nil {
		return ""
	}
	// The last of a name, as a map filled in order would hold.
	for i := len(u.props) - 1; i >= 0; i-- {
		if u.props[i].name == k {
			return u.props[i].value
		}
	}
	return ""
}
