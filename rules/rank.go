package rules

import (
	"fmt"
	"slices"
	"sort"
	"strings"

	"github.com/diskdoctor/diskdoctor/checks"
)

// linkCauses connects a configuration cause with the measured symptoms it
// accounts for on the same subjects (a host-wide symptom, such as pressure,
// is accounted for by any device cause): the cause cites the measurement
// and ranks first; the symptom points at its cause.
func (e *Engine) linkCauses(fs []Finding) {
	explains := map[string][]string{}
	for _, r := range e.Rules {
		explains[r.ID] = r.Explains
	}
	for i := range fs {
		fs[i].rankAs = severityRank[fs[i].Severity]
	}
	// The strongest cause of a symptom takes its rank; further causes of
	// the same symptom cite it but keep their own severity.
	causes := make([]int, len(fs))
	for i := range causes {
		causes[i] = i
	}
	sort.SliceStable(causes, func(a, b int) bool { return less(fs[causes[a]], fs[causes[b]]) })
	explained := map[int]bool{}
	for _, i := range causes {
		if fs[i].Severity == Info {
			continue // a note explains nothing: its condition is not a fault here
		}
		for _, sym := range explains[fs[i].Rule] {
			for j := range fs {
				if fs[j].Rule != sym || i == j {
					continue
				}
				common := overlap(fs[i].Subjects, fs[j].Subjects)
				if len(fs[j].Subjects) == 1 && fs[j].Subjects[0] == "host" && !(len(fs[i].Subjects) == 1 && fs[i].Subjects[0] == "host") {
					// A device explains host pressure only through what it
					// measurably did: an idle device explains nothing.
					var busy []string
					for _, s := range fs[i].Subjects {
						if fs[i].active[s] {
							busy = append(busy, s)
						}
					}
					if len(busy) == 0 {
						continue
					}
					common = busy
				}
				if len(common) == 0 {
					continue
				}
				fs[i].Notes = append(fs[i].Notes, fmt.Sprintf("explains %s on %s (the measurement is in the evidence)", sym, strings.Join(common, ", ")))
				fs[i].Evidence = append(fs[i].Evidence, checks.Evidence{Source: "measured (" + sym + ")", Value: fs[j].Observed})
				if explained[j] {
					fs[j].Notes = append(fs[j].Notes, "also explained in part by "+fs[i].Rule+" on "+strings.Join(fs[i].Subjects, ", "))
					continue
				}
				// Where the cause ranks is known only once the findings
				// are ranked: placeNotes writes it.
				fs[j].cites = append(fs[j].cites, citation{note: len(fs[j].Notes), target: fs[i].seq,
					text: "explained by " + fs[i].Rule + " on " + strings.Join(fs[i].Subjects, ", ") + " (ranked %s)"})
				fs[j].Notes = append(fs[j].Notes, "")
				explained[j] = true
				if r := severityRank[fs[j].Severity]; r > fs[i].rankAs {
					fs[i].rankAs = r
				}
				if fs[j].score >= fs[i].score {
					fs[i].score = fs[j].score + 1
				}
			}
		}
	}
}

// measuredContribution: the subject did I/O in a measuring window (the
// --sample window, or zpool iostat's interval).
func measuredContribution(env map[string]any) bool {
	util, _ := toFloat(env[checks.FactSampleUtilPct])
	r, _ := toFloat(env[checks.FactSampleRMBs])
	w, _ := toFloat(env[checks.FactSampleWMBs])
	zw, _ := toFloat(env[checks.FactZFSWriteIOPS])
	zr, _ := toFloat(env[checks.FactZFSReadIOPS])
	return util >= 10 || r+w >= 1 || zw+zr >= 1
}

// overlap is the subjects a cause covers of a symptom's: a host-wide
// symptom (pressure) is covered by any cause, a host-wide cause (the CPU
// governor) covers every subject.
func overlap(cause, symptom []string) []string {
	if len(symptom) == 1 && symptom[0] == "host" || len(cause) == 1 && cause[0] == "host" {
		return symptom
	}
	in := map[string]bool{}
	for _, s := range cause {
		in[s] = true
	}
	var out []string
	for _, s := range symptom {
		if in[s] {
			out = append(out, s)
		}
	}
	return out
}

// Rank orders findings: severity (a cause with the severity of the worst
// symptom it explains), then estimated impact, then breadth (how many
// subjects), then rule id for a stable order.
func Rank(fs []Finding) {
	sort.SliceStable(fs, func(i, j int) bool { return less(fs[i], fs[j]) })
}

func less(a, b Finding) bool {
	ra, rb := max(a.rankAs, severityRank[a.Severity]), max(b.rankAs, severityRank[b.Severity])
	if ra != rb {
		return ra > rb
	}
	if a.score != b.score {
		return a.score > b.score
	}
	if len(a.Subjects) != len(b.Subjects) {
		return len(a.Subjects) > len(b.Subjects)
	}
	return a.Rule < b.Rule
}

// citation is a note that points at another finding: whether that one
// ranks above or below is known only after ranking (placeNotes).
type citation struct {
	note   int    // its index in Notes
	target int    // the cited finding's seq
	text   string // the note, with %s for where the cited finding ranks
}

// placeNotes writes, once fs is ranked, the notes that point at other
// findings: each citation's "above" or "below", and for a rule with
// caused_by the findings of those rules that are present, by their rank
// (numbered as the report numbers them when numbered), or that none is.
func (e *Engine) placeNotes(fs []Finding, numbered bool) {
	pos := map[int]int{}
	for i := range fs {
		pos[fs[i].seq] = i
	}
	causedBy := map[string][]string{}
	for _, r := range e.Rules {
		if len(r.CausedBy) > 0 {
			causedBy[r.ID] = r.CausedBy
		}
	}
	for i := range fs {
		f := &fs[i]
		for _, c := range f.cites {
			if j, ok := pos[c.target]; ok {
				f.Notes[c.note] = fmt.Sprintf(c.text, where(i, j))
			}
		}
		f.cites = nil
		if by := causedBy[f.Rule]; by != nil {
			f.Notes = append(f.Notes, causedByNote(fs, i, by, numbered))
		}
	}
}

func where(i, j int) string {
	if j < i {
		return "above"
	}
	return "below"
}

// causedByNote names the findings of the rules that can cause finding i,
// with where each ranks: a note that said "the findings above" without
// looking would point at nothing, or the wrong way.
func causedByNote(fs []Finding, i int, by []string, numbered bool) string {
	var cited []string
	for j := range fs {
		if j == i || !slices.Contains(by, fs[j].Rule) {
			continue
		}
		what := fs[j].Rule + " on " + strings.Join(fs[j].Subjects, ", ")
		if numbered {
			cited = append(cited, fmt.Sprintf("finding %d %s (%s)", j+1, where(i, j), what))
		} else {
			cited = append(cited, what+" ("+where(i, j)+")")
		}
	}
	const tail = "the stack trace under each report names the filesystem or driver it waited in."
	switch len(cited) {
	case 0:
		return "No device finding of this run accounts for it; " + tail
	case 1:
		return "The likely cause is " + cited[0] + "; " + tail
	}
	return "The likely causes are " + strings.Join(cited, ", ") + "; " + tail
}
