package report

import (
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/charmbracelet/lipgloss"
	"github.com/muesli/termenv"

	"github.com/diskdoctor/diskdoctor/checks"
	"github.com/diskdoctor/diskdoctor/rules"
)

func init() {
	Register("text", func(w io.Writer, rep *rules.Report, run RunInfo) error {
		return renderText(w, rep, textOptions{color: run.Color, width: run.Width, verbose: run.Verbose})
	})
}

// textOptions lay the text report out.
type textOptions struct {
	color   bool
	width   int  // columns; 0: DefaultWidth
	verbose bool // every finding in full: evidence, notes, every fix
}

// palette is the text report's styles for one writer: Styles, which
// bench's text shares, and the report's own.
type palette struct {
	Styles
	ok         lipgloss.Style
	riskStyles map[string]lipgloss.Style
}

// Styles are the styles of diskdoctor's text for a person, for another
// command's text (bench's) to look as the report does.
type Styles struct {
	Bold, Dim, Heading, Critical, Warning, Info lipgloss.Style
}

// NewStyles are the styles for w: in colour (ANSI 256) or none at all.
func NewStyles(w io.Writer, color bool) Styles { return newPalette(w, color).Styles }

func newPalette(w io.Writer, color bool) palette {
	r := lipgloss.NewRenderer(w)
	if color {
		r.SetColorProfile(termenv.ANSI256)
	} else {
		r.SetColorProfile(termenv.Ascii)
	}
	var p palette
	p.Bold = r.NewStyle().Bold(true)
	p.Dim = r.NewStyle().Faint(true)
	p.Critical = r.NewStyle().Bold(true).Foreground(lipgloss.Color("196"))
	p.Warning = r.NewStyle().Bold(true).Foreground(lipgloss.Color("214"))
	p.Info = r.NewStyle().Foreground(lipgloss.Color("39"))
	p.ok = r.NewStyle().Bold(true).Foreground(lipgloss.Color("42"))
	p.Heading = r.NewStyle().Bold(true).Underline(true)
	p.riskStyles = map[string]lipgloss.Style{
		rules.RiskReadOnly:    r.NewStyle().Foreground(lipgloss.Color("42")),
		rules.RiskRuntime:     r.NewStyle().Foreground(lipgloss.Color("39")),
		rules.RiskPersistent:  r.NewStyle().Foreground(lipgloss.Color("214")),
		rules.RiskDestructive: r.NewStyle().Bold(true).Foreground(lipgloss.Color("196")),
	}
	return p
}

// Severity is the style of a finding's severity.
func (st Styles) Severity(s string) lipgloss.Style {
	switch s {
	case rules.Critical:
		return st.Critical
	case rules.Warning:
		return st.Warning
	}
	return st.Info
}

// renderText prints the report for a person. The default answers in one
// screen: the verdict; one line per finding with the contrast that matters;
// the fix of the top finding; the devices; what was skipped. With a
// sampling window the answer to "why is it slow" and the window's iostat
// and iotop tables come first. -v prints every finding in full. Nothing is
// wider than o.width; every string from the examined machine is cleaned.
func renderText(w io.Writer, rep *rules.Report, o textOptions) error {
	if o.width <= 0 {
		o.width = DefaultWidth
	}
	o.width = max(o.width, minWidth)
	t := &textWriter{p: newPalette(w, o.color), width: o.width}
	t.wrapped(t.p.Bold.Render("diskdoctor")+" ", width("diskdoctor "), 2, clean(strings.TrimPrefix(hostLine(rep.Host), "— ")), t.p.Dim)
	if rep.Sample != nil {
		answer, st := triageAnswer(t.p, rep)
		t.wrapped("", 0, 2, answer, st)
	}
	verdict, st := verdictLine(t.p, rep)
	if rep.Sample != nil && rep.Verdict == rules.VerdictOK {
		// READY is about benchmarking: a device busy in the window (a loop
		// device, say, which no rule judges) makes a benchmark lie too.
		if busy := busiest(rep.Sample); busy != nil && busy.UtilPct >= busyUtil {
			verdict = fmt.Sprintf("NOT IDLE: no warning or critical finding, but %s was %s %% busy in the window; a benchmark now would measure that load too", clean(busy.Name), num(busy.UtilPct))
			st = t.p.Warning
		}
	}
	t.wrapped("", 0, 2, verdict, st)
	if rep.Sample != nil {
		t.blank()
		triageTables(t, rep)
	}
	t.blank()
	if o.verbose {
		for i, f := range rep.Findings {
			verboseFinding(t, i+1, f)
			t.blank()
		}
	} else if len(rep.Findings) > 0 {
		for i, f := range rep.Findings {
			compactFinding(t, i+1, f)
		}
		t.blank()
		fixFirst(t, rep.Findings[0])
		t.blank()
	}
	t.line(t.p.Heading.Render("Devices"))
	deviceTable(t, rep)
	controllerTable(t, rep)
	skippedLines(t, rep, o.verbose)
	if !o.verbose && len(rep.Findings) > 0 {
		t.line(t.p.Dim.Render(truncate("-v: every finding in full · diskdoctor explain RULE: why, and every fix", t.width)))
	}
	_, err := io.WriteString(w, t.b.String())
	return err
}

// textWriter collects the report's lines within a width.
type textWriter struct {
	p     palette
	width int
	b     strings.Builder
}

func (t *textWriter) line(s string) { t.b.WriteString(s + "\n") }

func (t *textWriter) blank() {
	if !strings.HasSuffix(t.b.String(), "\n\n") {
		t.b.WriteString("\n")
	}
}

// wrapped prints plain text after a styled prefix of prefixW columns,
// wrapped at word boundaries with a hanging indent, in style st.
func (t *textWriter) wrapped(prefix string, prefixW, indent int, text string, st lipgloss.Style) {
	for i, l := range wrap(text, t.width, prefixW, indent) {
		if i == 0 {
			t.line(prefix + st.Render(l))
			continue
		}
		t.line(strings.Repeat(" ", indent) + st.Render(strings.TrimLeft(l, " ")))
	}
}

// skippedLines lists what could not be examined, one line each; -v adds
// the hint.
func skippedLines(t *textWriter, rep *rules.Report, verbose bool) {
	if len(rep.Skipped) == 0 {
		return
	}
	t.blank()
	t.line(t.p.Heading.Render("Skipped checks"))
	skipped := rep.Skipped
	if !verbose {
		skipped = groupMissingTools(skipped)
	}
	for _, s := range skipped {
		subj := ""
		if len(s.Subjects) > 0 {
			subj = " (" + compactSubjects(s.Subjects) + ")"
		}
		if verbose {
			t.wrapped("  ", 2, 4, clean(s.Check+subj+": "+s.Reason), lipgloss.NewStyle())
			t.wrapped("    "+t.p.Dim.Render("hint:")+" ", 10, 10, clean(s.Hint), lipgloss.NewStyle())
			continue
		}
		// One line: the reason is shortened before the hint, which says
		// how to make the check work.
		head, hint := clean(s.Check+subj)+": ", " — "+clean(s.Hint)
		room := t.width - 2 - width(head) - width(hint)
		reason := clean(s.Reason)
		if room >= 12 {
			reason = truncate(reason, room)
		}
		t.line("  " + truncate(head+reason+hint, t.width-2))
	}
}

// groupMissingTools folds the entries of programs that are not installed
// and come from a Debian package ("apt-get install X") into one line, the
// packages in one command: on a machine without smartmontools and
// zfsutils, both say the same thing, and one line says it once.
func groupMissingTools(in []checks.Skipped) []checks.Skipped {
	var out []checks.Skipped
	var names, pkgs []string
	first := -1
	for _, s := range in {
		pkg, ok := strings.CutPrefix(s.Hint, "apt-get install ")
		if !ok || !strings.HasSuffix(s.Reason, "tool not installed") || strings.ContainsAny(pkg, " ;|&") {
			out = append(out, s)
			continue
		}
		if first < 0 {
			first = len(out)
			out = append(out, checks.Skipped{})
		}
		name := s.Check
		if len(s.Subjects) > 0 {
			name += " (" + compactSubjects(s.Subjects) + ")"
		}
		names = append(names, name)
		if !slices.Contains(pkgs, pkg) {
			pkgs = append(pkgs, pkg)
		}
	}
	if first >= 0 {
		reason := "tool not installed"
		if len(names) > 1 {
			reason = "tools not installed"
		}
		out[first] = checks.Skipped{Check: strings.Join(names, ", "), Reason: reason, Hint: "apt-get install " + strings.Join(pkgs, " ")}
	}
	return out
}

func hostLine(h rules.Host) string {
	parts := []string{h.Hostname}
	if h.Platform != "" {
		plat := h.Platform
		if h.BIOS != "" {
			plat += ", BIOS " + h.BIOS
		}
		parts = append(parts, plat)
	}
	if h.Distro != "" {
		parts = append(parts, h.Distro)
	}
	if h.Kernel != "" {
		parts = append(parts, "kernel "+h.Kernel)
	}
	if h.Root != "/" {
		parts = append(parts, "recorded at "+h.Root)
	}
	return "— " + strings.Join(nonEmpty(parts), " · ")
}

// verdictLine is the verdict in words, and its style.
func verdictLine(p palette, rep *rules.Report) (string, lipgloss.Style) {
	count := map[string]int{}
	for _, f := range rep.Findings {
		count[f.Severity]++
	}
	plural := func(n int, word string) string {
		if n == 1 {
			return fmt.Sprintf("%d %s finding", n, word)
		}
		return fmt.Sprintf("%d %s findings", n, word)
	}
	switch rep.Verdict {
	case rules.VerdictCritical:
		msg := plural(count[rules.Critical], "critical")
		if count[rules.Warning] > 0 {
			msg += ", " + plural(count[rules.Warning], "warning")
		}
		return "NOT READY to benchmark: " + msg, p.Critical
	case rules.VerdictWarning:
		return "CAUTION before benchmarking: " + plural(count[rules.Warning], "warning"), p.Warning
	}
	msg := "READY: no warning or critical findings"
	if count[rules.Info] > 0 {
		msg += fmt.Sprintf(" (%d for information)", count[rules.Info])
	}
	return msg, p.ok
}

func abbreviate(xs []string, n int) string {
	if len(xs) <= n {
		return strings.Join(xs, ", ")
	}
	return strings.Join(xs[:n], ", ") + fmt.Sprintf(" … (+%d)", len(xs)-n)
}

func nonEmpty(xs []string) []string {
	var out []string
	for _, x := range xs {
		if x != "" {
			out = append(out, x)
		}
	}
	return out
}
