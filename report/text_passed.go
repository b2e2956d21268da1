package report

import (
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/charmbracelet/lipgloss"

	"github.com/diskdoctor/diskdoctor/checks"
	"github.com/diskdoctor/diskdoctor/internal/parse"
	"github.com/diskdoctor/diskdoctor/rules"
)

// passedArea is what one area's rules passed on.
type passedArea struct {
	name  string
	rules []rules.Passed
	// fine are the subjects every finding of the area leaves out: a
	// subject a finding of the area names is not fine in it, whatever
	// else passed there.
	fine []string
}

// passedAreas groups the report's passed rules by area, in the areas'
// order.
func passedAreas(rep *rules.Report) []passedArea {
	// A finding on a controller's volume flags the controller too: the
	// volume is how the controller's state reaches a person.
	controllerOf := map[string]string{}
	for _, d := range rep.Devices {
		name, _ := d["name"].(string)
		if c, ok := d[checks.FactCtlController].(string); ok && c != "" && d[checks.FactControllerVolume] == true {
			controllerOf[name] = c
		}
	}
	flagged := map[string]map[string]bool{}
	for _, f := range rep.Findings {
		a := rules.AreaOf(f.Rule)
		if flagged[a] == nil {
			flagged[a] = map[string]bool{}
		}
		for _, s := range f.Subjects {
			flagged[a][s] = true
			if c := controllerOf[s]; c != "" {
				flagged[a][c] = true
			}
		}
	}
	var out []passedArea
	at := map[string]int{}
	for _, p := range rep.Passed {
		i, ok := at[p.Area]
		if !ok {
			i = len(out)
			at[p.Area] = i
			out = append(out, passedArea{name: p.Area})
		}
		a := &out[i]
		a.rules = append(a.rules, p)
		for _, s := range p.Subjects {
			if !flagged[p.Area][s] && !slices.Contains(a.fine, s) {
				a.fine = append(a.fine, s)
			}
		}
	}
	for i := range out {
		slices.SortStableFunc(out[i].fine, func(a, b string) int {
			switch {
			case parse.NaturalLess(a, b):
				return -1
			case parse.NaturalLess(b, a):
				return 1
			}
			return 0
		})
	}
	sort.SliceStable(out, func(i, j int) bool { return rules.AreaRank(out[i].name) < rules.AreaRank(out[j].name) })
	return out
}

// passedLines says what was checked and found fine, so that it can be
// told from what was never looked at (the skipped checks after it). The
// default is one paragraph of at most two lines, each area with the
// devices (or pools) it is fine on, or their number where they are many;
// an area fine on the host alone is its name. -v lists every area's rules and the subjects each passed on.
func passedLines(t *textWriter, rep *rules.Report, verbose bool) {
	areas := passedAreas(rep)
	if verbose {
		if len(rep.Passed) == 0 {
			return
		}
		t.blank()
		t.line(t.p.Heading.Render("Checked and fine"))
		for _, a := range areas {
			var parts []string
			for _, p := range a.rules {
				parts = append(parts, p.Rule+" ("+compactSubjects(p.Subjects)+")")
			}
			t.wrapped("  ", 2, 4, clean(a.name+": "+strings.Join(parts, ", ")), lipgloss.NewStyle())
		}
		return
	}
	findingAreas := map[string]bool{}
	for _, f := range rep.Findings {
		findingAreas[rules.AreaOf(f.Rule)] = true
	}
	var items []string
	for _, a := range areas {
		subs := slices.DeleteFunc(slices.Clone(a.fine), func(s string) bool { return s == "host" })
		switch {
		case len(a.fine) == 0:
		case len(subs) == 0 && !findingAreas[a.name]:
			// The host's rules alone, and no finding to tell apart.
			items = append(items, a.name)
		case len(subs) == 0:
			items = append(items, a.name+" (host)")
		case strings.Count(compactSubjects(subs), ", ") >= 3:
			// A long list would take the paragraph; -v has it.
			items = append(items, a.name+" ("+strconv.Itoa(len(subs))+")")
		default:
			items = append(items, a.name+" ("+compactSubjects(subs)+")")
		}
	}
	if len(items) == 0 {
		return
	}
	head := "Checked and fine:"
	// At most two lines: the areas that do not fit are left to -v.
	text := strings.Join(items, ", ")
	for n := len(items); n > 0; n-- {
		text = strings.Join(items[:n], ", ")
		if n < len(items) {
			text += ", … (-v)"
		}
		if len(wrap(clean(text), t.width, width(head)+1, 2)) <= 2 {
			break
		}
	}
	t.blank()
	t.wrapped(t.p.Heading.Render(head)+" ", width(head)+1, 2, clean(text), lipgloss.NewStyle())
}
