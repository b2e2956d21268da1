package report

import (
	"fmt"
	"io"
	"regexp"
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
	t := &textWriter{p: newPalette(w, o.color), width: o.width, verbose: o.verbose}
	t.wrapped(t.p.Bold.Render("diskdoctor")+" ", width("diskdoctor "), 2, clean(strings.TrimPrefix(hostLine(rep.Host, rep.Where), "— ")), t.p.Dim)
	if rep.Sample != nil {
		answer, st := triageAnswer(t.p, rep)
		t.wrapped("", 0, 2, answer, st)
	}
	verdict, st := verdictLine(t.p, rep)
	t.wrapped("", 0, 2, verdict, st)
	hint := benchHint(rep)
	if hint != "" {
		t.wrapped("", 0, 2, hint, t.p.Dim)
	}
	t.blank()
	if o.verbose {
		for i, f := range rep.Findings {
			verboseFinding(t, i+1, f)
			t.blank()
		}
	} else if len(rep.Findings) > 0 {
		compactFindings(t, rep.Findings, firstScreen-t.lines())
		t.blank()
		fixFirst(t, rep)
		t.blank()
	}
	if rep.Sample != nil && (!rep.Sample.Default || busyInWindow(rep) != nil) {
		// The window's iostat and iotop tables come after the findings:
		// the verdict, the bottleneck and every title are the first
		// screen. A default window shows them only when it saw load.
		triageTables(t, rep)
		t.blank()
	}
	t.line(t.p.Heading.Render("Devices"))
	deviceTable(t, rep, o.verbose)
	controllerTable(t, rep)
	passedLines(t, rep, o.verbose)
	waivedLines(t, rep, o.verbose)
	skippedLines(t, rep, o.verbose)
	switch cols := strings.Join(t.leftOut, ", "); {
	case len(rep.Findings) > 0 && cols != "":
		t.wrapped("", 0, 2, "-v: every finding and column ("+cols+") · diskdoctor explain RULE: why, every fix", t.p.Dim)
	case len(rep.Findings) > 0:
		t.line(t.p.Dim.Render(truncate("-v: every finding in full · diskdoctor explain RULE: why, and every fix", t.width)))
	case cols != "":
		t.wrapped("", 0, 2, "(left out at this width: "+cols+"; --width, or -v lists them)", t.p.Dim)
	}
	// The verdict again, for a terminal that scrolled the first one away,
	// and the first thing to do: what a terminal shows after the run.
	t.wrapped("", 0, 2, verdict, st)
	if acts := firstActions(rep); len(acts) > 0 {
		actionLines(t, acts)
	} else if hint != "" {
		t.wrapped("", 0, 2, hint, t.p.Dim)
	}
	_, err := io.WriteString(w, t.b.String())
	return err
}

// firstScreen is the height of a small terminal (80×24): the verdict and
// every finding's title are within it.
const firstScreen = 24

// textWriter collects the report's lines within a width.
type textWriter struct {
	p       palette
	width   int
	verbose bool
	leftOut []string // the tables' columns left out at this width
	b       strings.Builder
}

// line writes one line without trailing blanks: evidence quoted from a
// tool's aligned columns (zpool status, MegaCli) ends in spaces that only
// make a pasted line differ from what it shows (issue #25).
func (t *textWriter) line(s string) { t.b.WriteString(strings.TrimRight(s, " \t") + "\n") }

// lines is how many lines are written so far.
func (t *textWriter) lines() int { return strings.Count(t.b.String(), "\n") }

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
		// A program's reason names it ("df: not recorded"): under its
		// own name it is said once.
		reason := strings.TrimPrefix(s.Reason, s.Check+": ")
		if verbose {
			t.wrapped("  ", 2, 4, clean(s.Check+subj+": "+reason), lipgloss.NewStyle())
			t.wrapped("    "+t.p.Dim.Render("hint:")+" ", 10, 10, clean(s.Hint), lipgloss.NewStyle())
			continue
		}
		if s.Package != "" {
			// The missing programs, and the one command that brings
			// them: wrapped, never cut.
			t.wrapped("  ", 2, 4, clean(s.Check+subj+": "+reason+" — "+s.Hint), lipgloss.NewStyle())
			continue
		}
		// One line: the reason is shortened before the hint, which says
		// how to make the check work.
		head, hint := clean(s.Check+subj)+": ", " — "+clean(s.Hint)
		room := t.width - 2 - width(head) - width(hint)
		reason = clean(reason)
		if room >= 12 {
			reason = truncate(reason, room)
		}
		t.line("  " + truncate(head+reason+hint, t.width-2))
	}
}

// missingKind is one way a program can be missing: the end of the
// reason, and the grouped line's reason and hint.
type missingKind struct {
	suffix string
	reason func(many bool) string
	hint   func(pkgs string) string
}

// missingKinds are the ways a program can be missing, by the end of the
// skipped entry's reason (machine.ToolError): on this machine, or on the
// recorded one.
var missingKinds = []missingKind{
	{"tool not installed",
		func(many bool) string { return plural(many, "tool not installed", "tools not installed") },
		func(pkgs string) string { return "apt-get install " + pkgs }},
	{"not recorded",
		func(bool) string { return "not recorded" },
		func(pkgs string) string {
			if pkgs == "" {
				// Programs that answered other commands there.
				return "record the machine again with diskdoctor snapshot"
			}
			return "record the machine again with diskdoctor snapshot, " + packagesInWords(pkgs) + " installed there"
		}},
	{"not installed on the host", // machine.ToolMissingOnHost
		func(many bool) string {
			return plural(many, "tool not installed on the host", "tools not installed on the host")
		},
		func(pkgs string) string { return "on the host (not in the container): apt-get install " + pkgs }},
	{"not installed on the recorded machine",
		func(many bool) string {
			return plural(many, "tool not installed on the recorded machine", "tools not installed on the recorded machine")
		},
		func(pkgs string) string {
			return "install " + packagesInWords(pkgs) + " there and record it again with diskdoctor snapshot"
		}},
}

// groupMissingTools folds the entries of programs that are not there and
// come from a Debian package into one line per way of missing them, the
// packages in one command: on a machine without smartmontools and
// zfsutils, both say the same thing, and one line says it once. On a
// recorded machine the line speaks of the recording (issue #25).
func groupMissingTools(in []checks.Skipped) []checks.Skipped {
	type group struct {
		at          int
		tools, pkgs []string
		subjects    map[string][]string // by tool
	}
	var out []checks.Skipped
	groups := make([]*group, len(missingKinds))
	for _, s := range in {
		kind := slices.IndexFunc(missingKinds, func(k missingKind) bool { return strings.HasSuffix(s.Reason, k.suffix) })
		if kind < 0 || s.Package == "" && !s.Answered || strings.ContainsAny(s.Package, " ;|&") {
			out = append(out, s)
			continue
		}
		g := groups[kind]
		if g == nil {
			g = &group{at: len(out), subjects: map[string][]string{}}
			groups[kind] = g
			out = append(out, checks.Skipped{})
		}
		// The reason is the program's ("smartctl: not recorded"): the
		// line names programs, each with its own subjects.
		// A controller's command says its argv first ("MegaCli64 -PDList
		// -aALL -NoLog: MegaCli64: not recorded"): the program is the
		// name before the end.
		tool := strings.TrimSuffix(strings.TrimSuffix(s.Reason, missingKinds[kind].suffix), ": ")
		if i := strings.LastIndex(tool, ": "); i >= 0 {
			tool = tool[i+2:]
		}
		if s.Answered {
			// The recording holds the program's other commands: it is
			// this command that is missing, not the program.
			tool = "some " + tool + " commands"
		}
		g.tools = appendNew(g.tools, tool)
		g.subjects[tool] = appendNew(g.subjects[tool], s.Subjects...)
		if s.Package != "" {
			g.pkgs = appendNew(g.pkgs, s.Package)
		}
	}
	for kind, g := range groups {
		if g != nil {
			k, pkgs := missingKinds[kind], strings.Join(g.pkgs, " ")
			// Subjects all the programs share are the line's; otherwise
			// each program names its own, so that none is said of a
			// device it was not asked about ("df, smartctl (sda–sdf),
			// zpool").
			var subjects []string
			names := slices.Clone(g.tools)
			same := true
			for _, tool := range g.tools[1:] {
				same = same && slices.Equal(g.subjects[tool], g.subjects[g.tools[0]])
			}
			if same {
				subjects = g.subjects[g.tools[0]]
			} else {
				for i, tool := range g.tools {
					if subs := g.subjects[tool]; len(subs) > 0 {
						names[i] += " (" + compactSubjects(subs) + ")"
					}
				}
			}
			out[g.at] = checks.Skipped{Check: strings.Join(names, ", "), Subjects: subjects,
				Reason: k.reason(len(g.tools) > 1), Hint: k.hint(pkgs), Package: pkgs}
		}
	}
	return out
}

// packagesInWords lists space-separated package names for a sentence: "a", "a
// and b", "a, b and c" (a command line keeps them space-separated).
func packagesInWords(pkgs string) string {
	f := strings.Fields(pkgs)
	if len(f) < 2 {
		return pkgs
	}
	return strings.Join(f[:len(f)-1], ", ") + " and " + f[len(f)-1]
}

// appendNew appends the values xs lacks.
func appendNew(xs []string, vs ...string) []string {
	for _, v := range vs {
		if !slices.Contains(xs, v) {
			xs = append(xs, v)
		}
	}
	return xs
}

// plural is one or the other form.
func plural(many bool, one, more string) string {
	if many {
		return more
	}
	return one
}

func hostLine(h rules.Host, w *rules.Where) string {
	parts := []string{h.Hostname}
	if h.Platform != "" {
		plat := h.Platform
		if h.BIOS != "" {
			plat += ", BIOS " + h.BIOS
		}
		parts = append(parts, plat)
	}
	parts = append(parts, whereLine(w, h.Platform))
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

// whereLine is where the machine runs: "AWS c5.large, VM on AWS Nitro"
// (the machine type left out where the DMI platform already shows it);
// "" when nothing names a cloud or a hypervisor.
func whereLine(w *rules.Where, dmi string) string {
	if w == nil {
		return ""
	}
	val := func(p *string) string {
		if p == nil {
			return ""
		}
		return *p
	}
	mt := val(w.MachineType)
	if mt != "" && strings.Contains(dmi, mt) {
		mt = ""
	}
	cloud := strings.TrimSpace(val(w.Provider) + " " + mt)
	switch hv := val(w.Hypervisor); hv {
	case "", "none":
		return cloud
	case "unidentified":
		return strings.Join(nonEmpty([]string{cloud, "VM (hypervisor not identified)"}), ", ")
	default:
		return strings.Join(nonEmpty([]string{cloud, "VM on " + hv}), ", ")
	}
}

// verdictLine is the verdict in words, and its style: a health verdict,
// or, where the question is a benchmark (--context benchmark), whether
// the machine is ready for one. A machine that is not ready (busy devices
// in the window, pressure, background work: rules.Report.NotReady) is NOT
// READY with what was measured, whatever the findings. A device busy in
// the window makes a plain verdict OK, BUSY, and names the process that
// did most of the I/O. An OK whose checks could not all run on the
// judged devices (rules.Report.Incomplete) says for how many disks it
// holds and what could not be examined.
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
	counts := ""
	if count[rules.Critical] > 0 {
		counts = plural(count[rules.Critical], "critical")
	}
	if count[rules.Warning] > 0 {
		counts = strings.TrimPrefix(counts+", "+plural(count[rules.Warning], "warning"), ", ")
	}
	bench := rep.Host.Context == rules.ContextBenchmark
	top := ""
	busy := busyInWindow(rep)
	load := ""
	if busy != nil {
		top = busiestProcess(rep.Sample, *busy)
		load = busyFigures(*busy) + top
	}
	also := func(msg string) string {
		if load == "" {
			return msg
		}
		return msg + "; " + load
	}
	if bench && rep.Ready != nil && !*rep.Ready {
		msg := "NOT READY to benchmark: "
		if counts != "" {
			msg += counts + "; "
		}
		msg += clean(notReadyText(rep.NotReady, 2)) + top
		if rep.Verdict == rules.VerdictCritical {
			return msg, p.Critical
		}
		return msg, p.Warning
	}
	switch rep.Verdict {
	case rules.VerdictCritical:
		if bench {
			return also("NOT READY to benchmark: " + counts), p.Critical
		}
		return also("CRITICAL: " + counts), p.Critical
	case rules.VerdictWarning:
		if bench {
			msg := also("CAUTION before benchmarking: " + counts)
			if rep.Sample == nil {
				msg += "; no sampling window, so the devices' load is unknown"
			}
			return msg, p.Warning
		}
		return also("WARNING: " + counts), p.Warning
	}
	// An OK whose checks did not all run says for how many disks it
	// holds and what could not be examined, busy or not.
	scope, unexamined := "", ""
	if len(rep.Incomplete) > 0 {
		judged, blind := judgedCount(rep), map[string]bool{}
		for _, i := range rep.Incomplete {
			for _, s := range i.Subjects {
				blind[s] = true
			}
		}
		if n := judged - len(blind); n > 0 {
			scope = fmt.Sprintf(" for %d of %d disks", n, judged)
		} else {
			scope = " as far as examined"
		}
		unexamined = "; " + clean(incompleteText(rep.Incomplete))
	}
	if busy != nil {
		return "OK" + scope + ", BUSY: no warning or critical finding; " + load + unexamined, p.Warning
	}
	word := "OK"
	if bench {
		word = "READY"
	}
	msg := ": no warning or critical findings"
	if count[rules.Info] > 0 {
		msg += fmt.Sprintf(" (%d for information)", count[rules.Info])
	}
	if bench && rep.Sample == nil {
		// Readiness rests on the window's load: without one, what the
		// devices were doing is not known.
		if scope == "" {
			scope = " as far as examined"
		}
		unexamined = "; no sampling window, so the devices' load is unknown" + unexamined
	}
	if scope == "" {
		return word + msg, p.ok
	}
	return word + scope + msg + unexamined, p.Warning
}

// judgedCount is the number of devices the report judged.
func judgedCount(rep *rules.Report) int {
	n := 0
	for _, d := range rep.Devices {
		if d[checks.FactJudged] == true {
			n++
		}
	}
	return n
}

// incompleteWhat names what a check examines on a device, for "sda's
// controller could not be examined"; a check not named here is named by
// itself.
var incompleteWhat = map[string]string{
	"controller":                      "controller",
	"smartctl":                        "SMART health",
	"smartctl through the controller": "drives' SMART health",
	"hdparm -W":                       "drive write cache",
	"nvme get-feature -f 0x06":        "drive write cache",
	"kernel-log":                      "kernel log",
}

// incompleteText says what could not be examined: the first entry in
// full ("sda's controller could not be examined: ssacli: not installed"),
// the others counted.
func incompleteText(inc []rules.Incomplete) string {
	i := inc[0]
	what, ok := incompleteWhat[i.Check]
	if !ok {
		what, ok = incompleteWhat[checks.Skipped{Check: i.Check}.CheckName()]
	}
	if !ok {
		what = i.Check + " check"
	}
	var s string
	if len(i.Subjects) == 1 {
		s = i.Subjects[0] + "'s " + what
	} else {
		s = "the " + what + " of " + compactSubjects(i.Subjects)
	}
	s += " could not be examined: " + shortReason(i.Reason)
	if n := len(inc) - 1; n > 0 {
		s += fmt.Sprintf("; %d more %s (Skipped checks)", n, plural(n > 1, "check", "checks"))
	}
	return s
}

// shortReason is the end of a skipped entry's reason: what failed and
// why ("ssacli, hpssacli or hpacucli: not installed on the recorded
// machine"), without the probe's description before them.
func shortReason(r string) string {
	parts := strings.Split(r, ": ")
	if len(parts) > 2 {
		parts = parts[len(parts)-2:]
	}
	return strings.Join(parts, ": ")
}

// notReadyText lists up to n reasons a machine is not ready, each with
// its measured quantity (a device's load names the device itself), and
// names the others without it ("2 more: sda did I/O, tasks spend …"):
// a count alone would hide what they are.
func notReadyText(nr []rules.NotReady, n int) string {
	var parts []string
	for i, r := range nr {
		if i == n {
			var rest []string
			for _, o := range nr[n:] {
				rest = append(rest, strings.TrimSuffix(o.Reason, windowSuffix.FindString(o.Reason)))
			}
			parts = append(parts, fmt.Sprintf("%d more: %s", len(nr)-n, strings.Join(rest, ", ")))
			break
		}
		parts = append(parts, notReadyItem(r, r.Reason))
	}
	return strings.Join(parts, "; ")
}

// notReadyItem is one reason with its measured quantity: a device's load
// names the device itself ("sda 100 % busy, …"), another reason is named
// (by what, its text or its rule) before its figures.
func notReadyItem(r rules.NotReady, what string) string {
	name, _, _ := strings.Cut(r.Reason, " ")
	if strings.HasPrefix(r.Measured, name+" ") {
		return r.Measured
	}
	return what + " (" + r.Measured + ")"
}

// benchHint is the line of a run not asked about a benchmark on a machine
// that is not idle (rules.Report.Load): a benchmark now would measure
// that load too, and --context benchmark says whether it is ready; "" when
// there is nothing to say.
// windowSuffix ends a busy device's reason (rules.NotReady): " in the 5 s
// window", which the verdict's list of further reasons leaves out.
var windowSuffix = regexp.MustCompile(` in the [0-9.]+ s window$`)

func benchHint(rep *rules.Report) string {
	if rep.Host.Context == rules.ContextBenchmark {
		return ""
	}
	// What a finding already says is not said again.
	var load []rules.NotReady
	for _, l := range rep.Load {
		if l.Rule == "" || !slices.ContainsFunc(rep.Findings, func(f rules.Finding) bool { return f.Rule == l.Rule }) {
			load = append(load, l)
		}
	}
	msg := "Before a benchmark, diskdoctor --context benchmark says whether the machine is ready."
	switch {
	case len(load) == 0:
		return ""
	case busyInWindow(rep) != nil && load[0].Rule == "":
		return msg // the verdict names the busy device
	}
	return "Busy now: " + clean(notReadyText(load, 1)) + ". " + msg
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
