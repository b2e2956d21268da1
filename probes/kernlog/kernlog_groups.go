package kernlog

import (
	"regexp"
)

// Group is every occurrence of one message (same category, device and
// text once numbers are set aside): 5,000 identical resets are one group.
type Group struct {
	Category    string
	Pattern     string
	Device      string // the disk; "" for host-wide messages
	Ref         string
	Key         string
	Count       int
	First, Last Line
	Boot        bool     // every occurrence was logged during boot
	Age         *float64 // age of the newest occurrence, when known
}

// Key is a message with its numbers set aside: sectors, tags, ages.
// Each number becomes "#" and each run of white space one space.
func Key(text string) string {
	return spaceRun.ReplaceAllString(numberRun.ReplaceAllString(text, "#"), " ")
}

var (
	// A number: 0x and hex digits; or, from a word boundary, hex digits
	// with a decimal digit among them, then any number of [.:/] and hex
	// digits, each up to a word boundary (1.5, 0000:03:00.0, 4/8).
	numberRun = regexp.MustCompile(`0x[0-9a-fA-F]+|\b[0-9a-fA-F]*\d[0-9a-fA-F]*\b(?:[.:/][0-9a-fA-F]+\b)*`)
	spaceRun  = regexp.MustCompile(`\s+`)
)

// GroupEvents groups events per disk (an event about two disks counts
// for both), host-wide ones under "". Groups keep log order of their first
// line.
func GroupEvents(events []Event) []Group {
	idx := map[string]int{}
	var out []Group
	for _, e := range events {
		devs := e.Devices
		if len(devs) == 0 {
			devs = []string{""}
		}
		key := Key(e.Line.Text)
		for _, d := range devs {
			k := d + "\x00" + e.Pattern + "\x00" + key
			i, ok := idx[k]
			if !ok {
				idx[k] = len(out)
				out = append(out, Group{Category: e.Category, Pattern: e.Pattern, Device: d, Ref: e.Ref, Key: key, First: e.Line, Boot: true})
				i = len(out) - 1
			}
			g := &out[i]
			g.Count++
			g.Last = e.Line
			g.Boot = g.Boot && e.Boot
			g.Age = e.Age
		}
	}
	return out
}

// SATALinkState is what the log says about one libata port's speed.
type SATALinkState struct {
	Port      string
	FirstUp   float64 // Gb/s of the first "link up" in the log
	LastUp    float64
	MaxUp     float64
	Limited   float64 // the speed libata limited the link to; 0: never
	LastEvent Event
}

// SATALinks summarises link-up and link-limit messages per port.
func SATALinks(events []Event) map[string]*SATALinkState {
	out := map[string]*SATALinkState{}
	for _, e := range events {
		if e.Category != LinkUp && e.Category != LinkLimited {
			continue
		}
		port := e.Ref
		s := out[port]
		if s == nil {
			s = &SATALinkState{Port: port}
			out[port] = s
		}
		if e.Category == LinkUp {
			if s.FirstUp == 0 {
				s.FirstUp = e.Speed
			}
			s.LastUp = e.Speed
			if e.Speed > s.MaxUp {
				s.MaxUp = e.Speed
			}
		} else {
			s.Limited = e.Speed
		}
		s.LastEvent = e
	}
	return out
}

// Downgraded reports whether the port runs slower than it did or could:
// libata limited its speed after errors, or the last link-up is slower than
// an earlier one. A port that came up slow once and stayed there (an old
// drive, a DVD writer at 1.5 Gbps) is not downgraded by the log alone.
func (s *SATALinkState) Downgraded() bool {
	return s != nil && (s.Limited > 0 || (s.LastUp > 0 && s.LastUp < s.MaxUp))
}
