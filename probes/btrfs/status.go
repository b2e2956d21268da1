package btrfs

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"

	"github.com/diskdoctor/diskdoctor/machine"
)

// DevStats is one device's persistent error counters (btrfs device
// stats; the kernel's BTRFS_DEV_STAT_* of fs/btrfs/volumes.c), kept on
// disk until reset with -z.
type DevStats struct {
	Path                                    string // "/dev/sda1", "/dev/mapper/x", or "devid:2" for a missing device
	Write, Read, Flush, Corrupt, Generation uint64
	Lines                                   []string
}

// Sum is the five counters added.
func (s *DevStats) Sum() uint64 { return s.Write + s.Read + s.Flush + s.Corrupt + s.Generation }

var statsLine = regexp.MustCompile(`^\[(.+)\]\.(write_io_errs|read_io_errs|flush_io_errs|corruption_errs|generation_errs)\s+(\d+)\s*$`)

// ParseStats reads btrfs device stats: "[/dev/sda1].write_io_errs 0" and
// its four siblings per device, in the order printed. A device with a
// counter missing is kept with what it has; no counter line at all is
// ErrParse.
func ParseStats(b []byte) ([]*DevStats, error) {
	if len(b) > MaxOutputBytes {
		return nil, fmt.Errorf("%w: btrfs device stats of %d bytes", machine.ErrParse, len(b))
	}
	var out []*DevStats
	by := map[string]*DevStats{}
	for _, l := range lines(b) {
		t := strings.TrimSpace(l)
		m := statsLine.FindStringSubmatch(t)
		if m == nil || !printable(m[1]) {
			continue
		}
		n, err := strconv.ParseUint(m[3], 10, 64)
		if err != nil {
			continue
		}
		s := by[m[1]]
		if s == nil {
			if len(out) >= MaxDevices {
				return nil, fmt.Errorf("%w: btrfs device stats lists more than %d devices", machine.ErrParse, MaxDevices)
			}
			s = &DevStats{Path: m[1]}
			by[m[1]] = s
			out = append(out, s)
		}
		s.Lines = append(s.Lines, t)
		switch m[2] {
		case "write_io_errs":
			s.Write = n
		case "read_io_errs":
			s.Read = n
		case "flush_io_errs":
			s.Flush = n
		case "corruption_errs":
			s.Corrupt = n
		case "generation_errs":
			s.Generation = n
		}
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("%w: no btrfs device stats counters", machine.ErrParse)
	}
	return out, nil
}

// Scrub is btrfs scrub status: whether a scrub runs now, and how far it
// is.
type Scrub struct {
	Running bool
	// State is the status word (running, finished, aborted, interrupted)
	// or, from progs before 5.2, the word of "scrub started at …, running
	// for …"; "" when no scrub ever ran ("no stats available").
	State   string
	Percent float64 // "Bytes scrubbed: … (12.34%)"; -1 unknown
	Line    string  // the line that gives the state
}

var (
	scrubStatus  = regexp.MustCompile(`^Status:\s+([a-z]+)\s*$`)
	scrubOld     = regexp.MustCompile(`^scrub (?:started|resumed) at .*?(?:, | and )(running|finished|interrupted|was aborted|aborted)\b`)
	scrubPercent = regexp.MustCompile(`^Bytes scrubbed:\s+\S+\s+\((\d+(?:\.\d+)?)%\)`)
)

// ParseScrub reads btrfs scrub status (the 5.2 and later key: value form,
// and the older sentence form). With several devices (-d) the first
// running one decides.
func ParseScrub(b []byte) (*Scrub, error) {
	if len(b) > MaxOutputBytes {
		return nil, fmt.Errorf("%w: btrfs scrub status of %d bytes", machine.ErrParse, len(b))
	}
	s := &Scrub{Percent: -1}
	known := false
	for _, l := range lines(b) {
		t := strings.TrimSpace(l)
		if m := scrubStatus.FindStringSubmatch(t); m != nil {
			known = true
			if !s.Running {
				s.State, s.Line = m[1], t
				s.Running = m[1] == "running"
			}
			continue
		}
		if m := scrubOld.FindStringSubmatch(t); m != nil {
			known = true
			if !s.Running {
				s.State, s.Line = strings.TrimPrefix(m[1], "was "), t
				s.Running = m[1] == "running"
			}
			continue
		}
		if m := scrubPercent.FindStringSubmatch(t); m != nil && s.Percent < 0 {
			s.Percent, _ = strconv.ParseFloat(m[1], 64)
			continue
		}
		if strings.Contains(t, "no stats available") {
			known = true
		}
	}
	if !known {
		return nil, fmt.Errorf("%w: no scrub status", machine.ErrParse)
	}
	return s, nil
}

// Balance is btrfs balance status.
type Balance struct {
	Running, Paused bool
	Line            string // "Balance on '/mnt' is running", or the progress line after it
	Progress        string // "3 out of about 10 chunks balanced (4 considered),  70% left"
}

var balanceOn = regexp.MustCompile(`^Balance on '.*' is (running|paused)`)

// ParseBalance reads btrfs balance status: "Balance on '<mnt>' is
// running" (or paused, with a request to pause or cancel after it) and
// its progress line, or "No balance found on '<mnt>'" (btrfs-progs
// cmds/balance.c).
func ParseBalance(b []byte) (*Balance, error) {
	if len(b) > MaxOutputBytes {
		return nil, fmt.Errorf("%w: btrfs balance status of %d bytes", machine.ErrParse, len(b))
	}
	ls := lines(b)
	for i, l := range ls {
		t := strings.TrimSpace(l)
		if strings.HasPrefix(t, "No balance found on ") {
			return &Balance{Line: t}, nil
		}
		if m := balanceOn.FindStringSubmatch(t); m != nil {
			bal := &Balance{Running: m[1] == "running", Paused: m[1] == "paused", Line: t}
			if i+1 < len(ls) {
				if p := strings.TrimSpace(ls[i+1]); strings.Contains(p, "chunks balanced") && printable(p) {
					bal.Progress = p
				}
			}
			return bal, nil
		}
	}
	// The progress line alone (a capture that left out the line above
	// it) still says a balance runs.
	for _, l := range ls {
		if t := strings.TrimSpace(l); strings.Contains(t, "chunks balanced") && printable(t) {
			return &Balance{Running: true, Line: t, Progress: t}, nil
		}
	}
	return nil, fmt.Errorf("%w: no balance status", machine.ErrParse)
}
