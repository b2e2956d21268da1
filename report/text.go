package report

import (
	"fmt"
	"io"
	"path"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/charmbracelet/lipgloss"
	"github.com/muesli/termenv"

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

// maxEvidence bounds the evidence lines printed per finding; JSON has all.
const maxEvidence = 10

type palette struct {
	r                                  *lipgloss.Renderer
	bold, dim, critical, warning, info lipgloss.Style
	ok, heading, risk                  lipgloss.Style
	riskStyles                         map[string]lipgloss.Style
}

func newPalette(w io.Writer, color bool) palette {
	r := lipgloss.NewRenderer(w)
	if color {
		r.SetColorProfile(termenv.ANSI256)
	} else {
		r.SetColorProfile(termenv.Ascii)
	}
	p := palette{r: r}
	p.bold = r.NewStyle().Bold(true)
	p.dim = r.NewStyle().Faint(true)
	p.critical = r.NewStyle().Bold(true).Foreground(lipgloss.Color("196"))
	p.warning = r.NewStyle().Bold(true).Foreground(lipgloss.Color("214"))
	p.info = r.NewStyle().Foreground(lipgloss.Color("39"))
	p.ok = r.NewStyle().Bold(true).Foreground(lipgloss.Color("42"))
	p.heading = r.NewStyle().Bold(true).Underline(true)
	p.riskStyles = map[string]lipgloss.Style{
		rules.RiskReadOnly:    r.NewStyle().Foreground(lipgloss.Color("42")),
		rules.RiskRuntime:     r.NewStyle().Foreground(lipgloss.Color("39")),
		rules.RiskPersistent:  r.NewStyle().Foreground(lipgloss.Color("214")),
		rules.RiskDestructive: r.NewStyle().Bold(true).Foreground(lipgloss.Color("196")),
	}
	return p
}

func (p palette) severity(s string) lipgloss.Style {
	switch s {
	case rules.Critical:
		return p.critical
	case rules.Warning:
		return p.warning
	}
	return p.info
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
	t.wrapped(t.p.bold.Render("diskdoctor")+" ", width("diskdoctor "), 2, clean(strings.TrimPrefix(hostLine(rep.Host), "— ")), t.p.dim)
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
			st = t.p.warning
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
	t.line(t.p.heading.Render("Devices"))
	deviceTable(t, rep)
	skippedLines(t, rep, o.verbose)
	if !o.verbose && len(rep.Findings) > 0 {
		t.line(t.p.dim.Render(truncate("-v: every finding in full · diskdoctor explain RULE: why, and every fix", t.width)))
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

// compactIndent is the hanging indent of a finding's lines in the default
// report: under the title's rank.
const compactIndent = 4

// compactFinding is one finding in two or three lines: rank, severity,
// title, subjects; then what was seen against what was expected.
func compactFinding(t *textWriter, rank int, f rules.Finding) {
	sev := strings.ToUpper(f.Severity)
	lead := fmt.Sprintf("%2d. %-8s ", rank, sev)
	title := clean(f.Title)
	if subj := compactSubjects(f.Subjects); subj != "" && subj != "host" {
		title += " — " + clean(subj)
	}
	lines := wrap(title, t.width, width(lead), compactIndent)
	t.line(strings.Replace(lead, sev, t.p.severity(f.Severity).Render(sev), 1) + t.p.bold.Render(lines[0]))
	for _, l := range lines[1:] {
		t.line(strings.Repeat(" ", compactIndent) + t.p.bold.Render(strings.TrimLeft(l, " ")))
	}
	if c := contrast(f); c != "" {
		lines := wrap(c, t.width, compactIndent, compactIndent)
		if len(lines) > 2 {
			lines = []string{lines[0], truncate(strings.TrimLeft(lines[1], " ")+" "+strings.TrimLeft(lines[2], " "), t.width-compactIndent)}
		}
		for _, l := range lines {
			t.line(strings.Repeat(" ", compactIndent) + t.p.dim.Render(strings.TrimLeft(l, " ")))
		}
	}
}

// contrast is a finding's observation against its expectation, in one
// sentence: the first subject's part of each, without the parentheses.
func contrast(f rules.Finding) string {
	obs := firstPart(f.Observed, f.Subjects)
	exp := firstPart(f.Expected, f.Subjects)
	switch {
	case obs == "" && exp == "":
		return ""
	case exp == "":
		return clean(obs)
	case obs == "":
		return clean("expected: " + exp)
	}
	return clean(obs + " — expected: " + exp)
}

// firstPart shortens a per-subject text ("sda: …; sdb: …") to its first
// part, without the subject's name and the parenthesised asides.
func firstPart(s string, subjects []string) string {
	s = stripSubjects(s, subjects)
	s = dropParentheses(s)
	if i := strings.Index(s, "; "); i > 0 {
		s = s[:i]
	}
	s = stripSubjects(s, subjects)
	return strings.TrimSpace(strings.Join(strings.Fields(s), " "))
}

// stripSubjects removes a leading "sda: " or "sda, sdb, sdc: ".
func stripSubjects(s string, subjects []string) string {
	head, rest, ok := strings.Cut(s, ": ")
	if !ok {
		return s
	}
	for _, name := range strings.Split(head, ", ") {
		if !slices.Contains(subjects, name) {
			return s
		}
	}
	return rest
}

// dropParentheses removes balanced parenthesised asides.
func dropParentheses(s string) string {
	var b strings.Builder
	depth := 0
	for _, r := range s {
		switch {
		case r == '(':
			depth++
		case r == ')' && depth > 0:
			depth--
		case depth == 0:
			b.WriteRune(r)
		}
	}
	return strings.ReplaceAll(strings.ReplaceAll(b.String(), " ,", ","), " :", ":")
}

// compactSubjects lists subjects with runs compacted: sda, sdb, sdc, sdd
// is sda–sdd; at most 8 groups.
func compactSubjects(subjects []string) string {
	var groups []string
	for i := 0; i < len(subjects); {
		j := i
		for j+1 < len(subjects) && follows(subjects[j], subjects[j+1]) {
			j++
		}
		switch {
		case j-i >= 2:
			groups = append(groups, subjects[i]+"–"+subjects[j])
		default:
			groups = append(groups, subjects[i:j+1]...)
		}
		i = j + 1
	}
	return abbreviate(groups, 8)
}

// follows: b is the device after a (sda → sdb, nvme0n1 → nvme0n2,
// loop7 → loop8).
func follows(a, b string) bool {
	pa, sa := splitTail(a)
	pb, sb := splitTail(b)
	if pa != pb || sa == "" || sb == "" {
		return false
	}
	if na, err := strconv.Atoi(sa); err == nil {
		nb, err := strconv.Atoi(sb)
		return err == nil && nb == na+1
	}
	return len(sa) == 1 && len(sb) == 1 && sb[0] == sa[0]+1
}

// splitTail splits a name into its prefix and its last run of digits or
// of letters.
func splitTail(s string) (string, string) {
	if n := len(s); n > 0 && s[n-1] >= 'a' && s[n-1] <= 'z' {
		return s[:n-1], s[n-1:] // sda: the last letter counts
	}
	i := len(s)
	digit := i > 0 && s[i-1] >= '0' && s[i-1] <= '9'
	for i > 0 {
		c := s[i-1]
		isDigit := c >= '0' && c <= '9'
		isLetter := c >= 'a' && c <= 'z'
		if (digit && !isDigit) || (!digit && !isLetter) {
			break
		}
		i--
	}
	return s[:i], s[i:]
}

// riskOrder is the order of a fix: look, change now, keep it, and only then
// anything destructive.
var riskOrder = []string{rules.RiskReadOnly, rules.RiskRuntime, rules.RiskPersistent, rules.RiskDestructive}

// fixFirst prints the top finding's remediation, consolidated: one command
// for all devices where the tool takes several, each command once. A
// persistent fix that ends with the finding's own read-only check (written,
// applied to the present devices, then checked: the shape of every
// generated persistent snippet) is the whole fix, so it is printed alone
// and the runtime-only command is left to -v (the heading says so); a
// read-only command that a printed fix already runs is not printed twice.
func fixFirst(t *textWriter, f rules.Finding) {
	if len(f.Remediation) == 0 {
		return
	}
	byRisk := map[string][]string{}
	notes := map[string]string{}
	for _, risk := range riskOrder {
		var cmds []string
		for _, m := range f.Remediation {
			if m.Risk != risk {
				continue
			}
			cmds = append(cmds, m.Command)
			if notes[risk] == "" {
				notes[risk] = m.Note
			}
		}
		byRisk[risk] = consolidate(cmds)
	}
	checked := func(cmd string) bool { // cmd runs one of the read-only commands
		for _, ro := range byRisk[rules.RiskReadOnly] {
			if slices.Contains(strings.Split(cmd, "\n"), ro) {
				return true
			}
		}
		return false
	}
	whole := slices.ContainsFunc(byRisk[rules.RiskPersistent], checked)
	head := "(1. " + clean(f.Rule) + "):"
	if whole {
		head += " for good, applied now, then checked"
	}
	t.wrapped(t.p.heading.Render("Fix first")+" ", width("Fix first "), 2, head, t.p.dim)
	for _, risk := range riskOrder {
		merged := byRisk[risk]
		switch {
		case len(merged) == 0, whole && risk == rules.RiskRuntime:
			continue
		case risk == rules.RiskReadOnly:
			merged = slices.DeleteFunc(slices.Clone(merged), func(ro string) bool {
				for _, r := range []string{rules.RiskRuntime, rules.RiskPersistent} {
					if (r != rules.RiskRuntime || !whole) && slices.ContainsFunc(byRisk[r], func(c string) bool {
						return slices.Contains(strings.Split(c, "\n"), ro)
					}) {
						return true
					}
				}
				return false
			})
			if whole || len(merged) == 0 {
				continue
			}
		}
		alike := 0 // commands after the first that only differ in their values
		for _, c := range merged[min(1, len(merged)):] {
			if sameShape(merged[0], c) {
				alike++
			}
		}
		var scripts []string // the files of the scripts left to -v
		for i, c := range merged {
			switch {
			case i > 0 && alike > 1 && sameShape(merged[0], c):
				continue
			case i > 0 && strings.Contains(c, "\n"):
				// Another way of keeping the fix (a systemd unit where the
				// first was tuned) or one more file: a screen of its own.
				scripts = append(scripts, scriptFile(c))
				continue
			}
			remediationLine(t, 2, risk, c, "")
		}
		if alike > 1 {
			t.wrapped(strings.Repeat(" ", 16), 16, 16, fmt.Sprintf("… and %d more like it, one per device: -v prints them", alike), t.p.dim)
		}
		if note := notes[risk]; note != "" && !whole {
			t.line(strings.Repeat(" ", 16) + t.p.dim.Render(truncate(clean(note), t.width-16)))
		}
		if len(scripts) > 0 {
			t.wrapped(strings.Repeat(" ", 16), 16, 16, fmt.Sprintf("… and %d more that write %s: -v prints them", len(scripts), strings.Join(scripts, ", ")), t.p.dim)
		}
	}
}

// scriptTarget is the file a multi-line fix writes: cat > FILE <<'EOF'.
var scriptTarget = regexp.MustCompile(`(?m)^cat > (\S+) <<`)

// scriptFile names a multi-line fix by the file it writes.
func scriptFile(cmd string) string {
	if m := scriptTarget.FindStringSubmatch(cmd); m != nil {
		return clean(path.Base(m[1]))
	}
	return "a script"
}

// sameShape: two commands of one fix that differ only in the values
// of the device they are for (the same tool and options, the same first
// words): the default report prints the first and counts the others, one
// per device of a four-disk machine being a screen of its own.
func sameShape(a, b string) bool {
	fa, fb := strings.Fields(a), strings.Fields(b)
	return len(fa) > 2 && len(fa) == len(fb) && fa[0] == fb[0] && fa[1] == fb[1] && a != b
}

// remediationLine prints "[risk]  command", the command wrapped so that
// pasting it runs it as printed.
// lead is the label's indent; the command and its note hang under the
// command's first column.
func remediationLine(t *textWriter, lead int, risk, cmd, note string) {
	label := fmt.Sprintf("%s%-14s", strings.Repeat(" ", lead), "["+risk+"]")
	indent := width(label)
	lines := wrapCommand(strings.Join(cleanLines(cmd), "\n"), t.width, indent, indent)
	t.line(t.p.riskStyles[risk].Render(label) + lines[0])
	for _, l := range lines[1:] {
		t.line(l)
	}
	if note != "" {
		t.wrapped(strings.Repeat(" ", indent), indent, indent, clean(note), t.p.dim)
	}
}

// multiDevice are the tools that take several devices in one command.
var multiDevice = map[string]bool{"hdparm": true, "blockdev": true, "lsblk": true, "iostat": true}

// consolidate merges commands that differ only in their last argument
// into one, for tools that take several (hdparm -W1 A B C), and drops
// repeats. Anything with shell syntax beyond words is left as it is.
func consolidate(cmds []string) []string {
	var out []string
	index := map[string]int{}
	for _, c := range cmds {
		f := strings.Fields(c)
		simple := len(f) >= 2 && multiDevice[path.Base(f[0])] && !strings.ContainsAny(c, "'\"$`;&|<>()\\*?\n")
		if !simple {
			if !slices.Contains(out, c) {
				out = append(out, c)
			}
			continue
		}
		key := strings.Join(f[:len(f)-1], " ")
		if i, ok := index[key]; ok {
			if !slices.Contains(strings.Fields(out[i])[len(f)-1:], f[len(f)-1]) {
				out[i] += " " + f[len(f)-1]
			}
			continue
		}
		index[key] = len(out)
		out = append(out, c)
	}
	return out
}

// verboseFinding is a finding in full, as the report was before -v existed.
func verboseFinding(t *textWriter, rank int, f rules.Finding) {
	sev := strings.ToUpper(f.Severity)
	lead := fmt.Sprintf("%d. %s ", rank, sev)
	text := clean(f.Title) + " [" + clean(f.Rule) + "]"
	lines := wrap(text, t.width, width(lead), 3)
	t.line(strings.Replace(lead, sev, t.p.severity(f.Severity).Render(sev), 1) + t.p.bold.Render(lines[0]))
	for _, l := range lines[1:] {
		t.line("   " + t.p.bold.Render(strings.TrimLeft(l, " ")))
	}
	field := func(name, value string) {
		if value == "" {
			return
		}
		t.wrapped("   "+t.p.dim.Render(fmt.Sprintf("%-9s", name+":"))+" ", 13, 13, clean(value), lipgloss.NewStyle())
	}
	field("on", strings.Join(f.Subjects, ", "))
	field("observed", f.Observed)
	field("expected", f.Expected)
	field("impact", f.Impact)
	if len(f.Evidence) > 0 {
		t.line("   " + t.p.dim.Render("evidence:"))
		for j, ev := range f.Evidence {
			if j == maxEvidence {
				t.line(fmt.Sprintf("     … %d more (--format json lists all)", len(f.Evidence)-maxEvidence))
				break
			}
			// Evidence is printed verbatim: its spacing is part of it.
			for _, l := range wrapVerbatim(clean(ev.Source)+": "+clean(ev.Value), t.width, 5, 7) {
				t.line(l)
			}
		}
	}
	for _, n := range f.Notes {
		t.wrapped("   "+t.p.dim.Render("note:")+" ", 9, 9, clean(n), lipgloss.NewStyle())
	}
	if len(f.Remediation) > 0 {
		t.line("   " + t.p.dim.Render("fix:"))
		for _, m := range f.Remediation {
			remediationLine(t, 5, m.Risk, m.Command, m.Note)
		}
	}
}

// skippedLines lists what could not be examined, one line each; -v adds
// the hint.
func skippedLines(t *textWriter, rep *rules.Report, verbose bool) {
	if len(rep.Skipped) == 0 {
		return
	}
	t.blank()
	t.line(t.p.heading.Render("Skipped checks"))
	for _, s := range rep.Skipped {
		subj := ""
		if len(s.Subjects) > 0 {
			subj = " (" + compactSubjects(s.Subjects) + ")"
		}
		if verbose {
			t.wrapped("  ", 2, 4, clean(s.Check+subj+": "+s.Reason), lipgloss.NewStyle())
			t.wrapped("    "+t.p.dim.Render("hint:")+" ", 10, 10, clean(s.Hint), lipgloss.NewStyle())
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
		return "NOT READY to benchmark: " + msg, p.critical
	case rules.VerdictWarning:
		return "CAUTION before benchmarking: " + plural(count[rules.Warning], "warning"), p.warning
	}
	msg := "READY: no warning or critical findings"
	if count[rules.Info] > 0 {
		msg += fmt.Sprintf(" (%d for information)", count[rules.Info])
	}
	return msg, p.ok
}

// deviceTable is the compact inventory of judged devices, fitted to the
// width by cutting and then leaving out columns (the model last); virtual
// devices are counted, not listed.
func deviceTable(t *textWriter, rep *rules.Report) {
	cols := []column{
		{header: "DEVICE"},
		{header: "MODEL", drop: 9, shrink: true, minW: 12},
		{header: "BUS", drop: 3},
		{header: "SIZE", drop: 5, right: true},
		{header: "CLASS", drop: 2},
		{header: "CACHE", drop: 8},
		{header: "TRIM", drop: 7},
		{header: "SCHED", drop: 1},
		{header: "MOUNTS / POOLS", drop: 4, shrink: true, minW: 14},
	}
	var rows [][]string
	var skipped []string
	judged := 0
	for _, d := range rep.Devices {
		name, _ := d["name"].(string)
		if j, _ := d["judged"].(bool); !j {
			skipped = append(skipped, clean(name))
			continue
		}
		judged++
		if judged > maxDeviceRows {
			continue
		}
		rows = append(rows, []string{clean(name), clean(s(d["model"])), clean(s(d["transport"])), size(d["size_bytes"]), clean(s(d["class"])), cache(d), trimCell(d), clean(s(d["scheduler"])), clean(usage(d))})
	}
	if judged > 0 {
		header, lines, omitted := fitTable(cols, rows, t.width)
		t.line(t.p.bold.Render(header))
		for _, l := range lines {
			t.line(l)
		}
		if judged > maxDeviceRows {
			t.line(fmt.Sprintf("… %d more devices (--format json lists all)", judged-maxDeviceRows))
		}
		if len(omitted) > 0 {
			t.wrapped("", 0, 2, "(left out at this width: "+strings.Join(omitted, ", ")+"; --width or -v)", t.p.dim)
		}
	}
	if len(skipped) > 0 {
		t.wrapped("", 0, 2, "not judged (virtual, or NVMe paths; name one with --device): "+abbreviate(skipped, 12), t.p.dim)
	}
}

// maxDeviceRows bounds the device table; JSON has every device.
const maxDeviceRows = 50

func cache(d map[string]any) string {
	switch d["wc_on"] {
	case true:
		return "on"
	case false:
		return "OFF"
	}
	return "-"
}

func trimCell(d map[string]any) string {
	if d["trim_supported"] == false {
		return "no"
	}
	switch d["trim_covered"] {
	case true:
		return "scheduled"
	case false:
		return "NEVER"
	}
	if d["trim_supported"] == true {
		return "yes"
	}
	return "-"
}

func usage(d map[string]any) string {
	var parts []string
	if mps, ok := d["mountpoints"].([]string); ok {
		parts = append(parts, mps...)
	}
	if pools, ok := d["zfs_pools"].([]string); ok {
		for _, pl := range pools {
			parts = append(parts, "zfs:"+pl)
		}
	}
	return abbreviate(parts, 3)
}

// siStep is a step of the decimal size units (kB, MB, GB), as drive
// datasheets count them.
const siStep = 1000

func size(v any) string {
	b, ok := v.(uint64)
	if !ok || b == 0 {
		return "-"
	}
	units := []string{"B", "kB", "MB", "GB", "TB", "PB"}
	f := float64(b)
	i := 0
	for f >= siStep && i < len(units)-1 {
		f /= siStep
		i++
	}
	if f >= 100 {
		return fmt.Sprintf("%.0f %s", f, units[i])
	}
	return fmt.Sprintf("%.1f %s", f, units[i])
}

func s(v any) string {
	if x, ok := v.(string); ok && x != "" {
		return x
	}
	return "-"
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
