package probes

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"strings"
)

// UdevRecord is one entry of udev's runtime database,
// /run/udev/data/b<major>:<minor>: the properties (E:) and the device links
// (S:, relative to /dev). It is readable without root and was written when
// the device appeared, so it also records the drive state at that moment
// (ID_ATA_WRITE_CACHE_ENABLED).
type UdevRecord struct {
	Path  string
	Props map[string]string
	Links []string
}

// ReadUdev reads the udev record of a block device number ("8:0").
func ReadUdev(ctx context.Context, h *Host, devno string) (*UdevRecord, error) {
	p := "/run/udev/data/b" + strings.TrimSpace(devno)
	b, err := h.ReadFile(ctx, p)
	if err != nil {
		return nil, err
	}
	rec, err := parseUdev(b)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", p, err)
	}
	rec.Path = p
	return rec, nil
}

func parseUdev(b []byte) (*UdevRecord, error) {
	rec := &UdevRecord{Props: map[string]string{}}
	sc := bufio.NewScanner(bytes.NewReader(b))
	sc.Buffer(make([]byte, 0, 4096), 1<<20)
	for sc.Scan() {
		line := sc.Text()
		if len(line) < 2 || line[1] != ':' {
			continue
		}
		switch line[0] {
		case 'E':
			if k, v, ok := strings.Cut(line[2:], "="); ok && k != "" {
				rec.Props[k] = v
			}
		case 'S':
			if l := strings.TrimSpace(line[2:]); l != "" {
				rec.Links = append(rec.Links, l)
			}
		}
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("%w: %w", ErrParse, err)
	}
	return rec, nil
}

// Prop returns a property or "".
func (u *UdevRecord) Prop(k string) string {
	if u == nil {
		return ""
	}
	return u.Props[k]
}
