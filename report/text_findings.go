package report

import (
	"fmt"
	"strconv"
	"strings"
	"unicode"

	"github.com/charmbracelet/lipgloss"

	"github.com/diskdoctor/diskdoctor/rules"
)

// compactIndent is the hanging indent of a finding's lines in the default
// report: under the title's rank.
const compactIndent = 4

// compactFinding is one finding in two or three lines: rank, severity,
// title, subjects (the head); then what was seen against what was
// expected, in at most two lines (the contrast) and in one, styled.
func compactFinding(t *textWriter, rank int, f rules.Finding) (head, detail []string, short string) {
	sev := strings.ToUpper(f.Severity)
	lead := fmt.Sprintf("%2d. %-8s ", rank, sev)
	title := clean(f.Title)
	if subj := compactSubjects(f.Subjects); subj != "" && subj != "host" {
		title += " — " + clean(subj)
	}
	lines := wrap(title, t.width, width(lead), compactIndent)
	head = append(head, strings.Replace(lead, sev, t.p.Severity(f.Severity).Render(sev), 1)+t.p.Bold.Render(lines[0]))
	for _, l := range lines[1:] {
		head = append(head, strings.Repeat(" ", compactIndent)+t.p.Bold.Render(strings.TrimLeft(l, " ")))
	}
	if c := contrast(f); c != "" {
		lines := wrap(c, t.width, compactIndent, compactIndent)
		if len(lines) > 2 {
			lines = []string{lines[0], truncate(strings.TrimLeft(lines[1], " ")+" "+strings.TrimLeft(lines[2], " "), t.width-compactIndent)}
		}
		for _, l := range lines {
			detail = append(detail, strings.Repeat(" ", compactIndent)+t.p.Dim.Render(strings.TrimLeft(l, " ")))
		}
		short = strings.Repeat(" ", compactIndent) + t.p.Dim.Render(truncate(c, t.width-compactIndent))
	}
	return head, detail, short
}

// compactFindings prints the findings within room lines where it can: each
// finding's contrast is cut to one line, then left out, from the last
// finding up, so that every title stays on the first screen of a
// terminal (issue #25); the titles alone are never cut.
func compactFindings(t *textWriter, findings []rules.Finding, room int) {
	heads, details, shorts := make([][]string, len(findings)), make([][]string, len(findings)), make([]string, len(findings))
	total := 0
	for i, f := range findings {
		heads[i], details[i], shorts[i] = compactFinding(t, i+1, f)
		total += len(heads[i]) + len(details[i])
	}
	for i := len(details) - 1; i >= 0 && total > room; i-- {
		if len(details[i]) > 1 {
			total -= len(details[i]) - 1
			details[i] = []string{shorts[i]}
		}
	}
	for i := len(details) - 1; i >= 0 && total > room; i-- {
		total -= len(details[i])
		details[i] = nil
	}
	for i := range findings {
		for _, l := range append(heads[i], details[i]...) {
			t.line(l)
		}
	}
}

// contrast is a finding's observation against its expectation, in one
// sentence: the first clause of each, as the rule says it of the first
// subject that has one.
func contrast(f rules.Finding) string {
	var obs, exp string
	for _, t := range f.PerSubject {
		if obs == "" {
			obs = t.Observed
		}
		if exp == "" {
			exp = t.Expected
		}
	}
	obs, exp = firstClause(obs), firstClause(exp)
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

// firstClause shortens one subject's text for a line of its own: the text
// up to its first "; ", without the parenthesised asides, its spaces
// collapsed.
func firstClause(s string) string {
	s = dropParentheses(s)
	if i := strings.Index(s, "; "); i > 0 {
		s = s[:i]
	}
	return strings.TrimSpace(strings.Join(strings.Fields(s), " "))
}

// dropParentheses removes balanced parenthesised asides. A parenthesis
// glued to the word before it is part of that word, not an aside:
// "member(s)", mdstat's "sdb1[0](S)" keep theirs.
func dropParentheses(s string) string {
	var b strings.Builder
	depth := 0
	var prev rune = ' '
	for _, r := range s {
		switch {
		case r == '(' && depth == 0 && !unicode.IsSpace(prev) && !strings.ContainsRune("([{—", prev):
			b.WriteRune(r)
			depth = -1 // kept until its ")"
		case r == ')' && depth == -1:
			b.WriteRune(r)
			depth = 0
		case r == '(' && depth >= 0:
			depth++
		case r == ')' && depth > 0:
			depth--
		case depth <= 0:
			b.WriteRune(r)
		}
		prev = r
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

// maxEvidence bounds the evidence lines printed per finding; JSON has all.
const maxEvidence = 10

// verboseFinding is a finding in full, as the report was before -v existed.
func verboseFinding(t *textWriter, rank int, f rules.Finding) {
	sev := strings.ToUpper(f.Severity)
	lead := fmt.Sprintf("%d. %s ", rank, sev)
	text := clean(f.Title) + " [" + clean(f.Rule) + "]"
	lines := wrap(text, t.width, width(lead), 3)
	t.line(strings.Replace(lead, sev, t.p.Severity(f.Severity).Render(sev), 1) + t.p.Bold.Render(lines[0]))
	for _, l := range lines[1:] {
		t.line("   " + t.p.Bold.Render(strings.TrimLeft(l, " ")))
	}
	field := func(name, value string) {
		if value == "" {
			return
		}
		t.wrapped("   "+t.p.Dim.Render(fmt.Sprintf("%-9s", name+":"))+" ", 13, 13, clean(value), lipgloss.NewStyle())
	}
	field("on", strings.Join(f.Subjects, ", "))
	field("observed", f.Observed)
	field("expected", f.Expected)
	field("impact", f.Impact)
	if len(f.Evidence) > 0 {
		t.line("   " + t.p.Dim.Render("evidence:"))
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
		t.wrapped("   "+t.p.Dim.Render("note:")+" ", 9, 9, clean(n), lipgloss.NewStyle())
	}
	if len(f.Remediation) > 0 {
		t.line("   " + t.p.Dim.Render("fix:"))
		for _, m := range f.Remediation {
			remediationLine(t, 5, m.Risk, m.Command, m.Note)
		}
	}
}
