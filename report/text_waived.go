package report

import (
	"github.com/charmbracelet/lipgloss"

	"github.com/diskdoctor/diskdoctor/rules"
)

// waivedLines lists what the site configuration changed: each waived
// finding with its reason and end date, each expired waiver (its finding
// counts again), and with -v each waiver that matched nothing (a mistyped
// device, or a problem since fixed, whose waiver can go). Nothing when the
// site waives nothing.
func waivedLines(t *textWriter, rep *rules.Report, verbose bool) {
	var lines []string
	for _, f := range rep.WaivedFindings {
		l := f.Rule + " on " + compactSubjects(f.Subjects) + ": " + f.Waiver.Reason
		if f.Waiver.Until != "" {
			l += " (until " + f.Waiver.Until + ")"
		}
		lines = append(lines, l)
	}
	for _, w := range rep.Waivers {
		switch {
		case w.State == rules.WaiverExpired:
			lines = append(lines, "expired "+w.Until+": "+w.Rule+" counts again ("+w.Source+")")
		case w.State == rules.WaiverUnmatched && verbose:
			lines = append(lines, "matched no finding: "+w.Rule+" ("+w.Source+")")
		}
	}
	if len(lines) == 0 {
		return
	}
	t.blank()
	t.line(t.p.Heading.Render("Waived") + t.p.Dim.Render(" (not counted in the verdict; "+clean(rep.Config)+")"))
	for _, l := range lines {
		t.wrapped("  ", 2, 4, clean(l), lipgloss.NewStyle())
	}
}
