package report

import (
	"fmt"
	"io"
	"regexp"
	"strings"

	"github.com/charmbracelet/lipgloss"

	"github.com/diskdoctor/diskdoctor/checks"
	"github.com/diskdoctor/diskdoctor/rules"
)

// Explain prints one rule for a person: what it is about, why it matters,
// when it holds, what it reads, and what to do, the commands laid out as a
// report prints them (wrapped so that pasting runs them) with the device's
// values shown as placeholders (DEVICE, /dev/DEVICE, <the pool's log
// disks>, …): never a fact's internal name.
func Explain(w io.Writer, r *rules.Rule, cols int, color bool) error {
	if cols <= 0 {
		cols = DefaultWidth
	}
	t := &textWriter{p: newPalette(w, color), width: max(cols, minWidth)}
	plain := lipgloss.NewStyle()
	sev := strings.ToUpper(r.Severity)
	t.wrapped(t.p.Severity(r.Severity).Render(sev)+" ", width(sev)+1, 2, r.Title+" ("+r.ID+")", t.p.Bold)
	about := map[string]string{"device": "Judged for each device.", "host": "Judged once for the machine.", "pool": "Judged for each ZFS pool, md array, LVM thin pool or multipath map.", "controller": "Judged for each RAID controller and its volumes.", "filesystem": "Judged for each mounted filesystem (or NFS server)."}[r.Subject]
	about += " Severity: " + r.SeverityProse() + "."
	if about != "" {
		t.wrapped("", 0, 0, strings.TrimSpace(about), plain)
	}
	section := func(title string) {
		t.blank()
		t.line(t.p.Heading.Render(title))
	}
	section("Why it matters")
	for _, para := range strings.Split(strings.TrimSpace(r.Why), "\n\n") {
		t.wrapped("  ", 2, 2, oneLine(para), plain)
	}
	switch {
	case len(r.ImpactCases) == 1 && r.ImpactCases[0].When == "":
		t.wrapped("  "+t.p.Dim.Render("Impact:")+" ", 10, 4, placeholders(r.ImpactCases[0].Text), plain)
	case len(r.ImpactCases) > 0:
		t.line("  " + t.p.Dim.Render("Impact:"))
		for _, c := range r.ImpactCases {
			t.wrapped("    - ", 6, 6, c.When+": "+placeholders(c.Text), plain)
		}
	case r.Impact != "":
		t.wrapped("  "+t.p.Dim.Render("Impact:")+" ", 10, 4, placeholders(r.Impact), plain)
	}
	section("When it holds")
	holds := inWords(r.Holds, r.When)
	if holds == "" {
		holds = someCases(r.ID)
	}
	t.wrapped("  ", 2, 4, holds, plain)
	if r.Expected != "" {
		t.wrapped("  "+t.p.Dim.Render("Expected instead:")+" ", 20, 4, placeholders(r.Expected), plain)
	}
	if len(r.Evidence) > 0 {
		var ev []string
		for _, f := range r.Evidence {
			ev = append(ev, factWords(f))
		}
		t.wrapped("  "+t.p.Dim.Render("Evidence cited:")+" ", 18, 4, strings.Join(ev, "; "), plain)
	}
	if len(r.Remediation) > 0 {
		section("What to do")
		for _, m := range r.Remediation {
			for _, alt := range alternatives(r.ID, m.Command) {
				remediationLine(t, 2, m.Risk, alt.text, "")
				if alt.when != "" {
					t.wrapped(strings.Repeat(" ", 16), 16, 16, alt.when, t.p.Dim)
				}
			}
			cond := ""
			if strings.TrimSpace(m.When) != "" {
				cond = onlyWhen(r.ID, m.Says, m.When)
			}
			if m.ForEach != "" {
				cond = strings.TrimSpace(cond + " (once for each of " + factWords(m.ForEach) + ")")
			}
			if cond != "" {
				t.wrapped(strings.Repeat(" ", 16), 16, 16, cond, t.p.Dim)
			}
			if m.Note != "" {
				t.wrapped(strings.Repeat(" ", 16), 16, 16, placeholders(m.Note), t.p.Dim)
			}
		}
		t.wrapped("", 0, 0, "DEVICE, /dev/DEVICE, the other capitals and the words in <angle brackets> stand for the values of what the finding is about; a report prints them filled in and quoted.", t.p.Dim)
	}
	if len(r.Notes) > 0 {
		section("Notes")
		for _, n := range r.Notes {
			text := placeholders(n.Text)
			if strings.TrimSpace(n.When) != "" && strings.TrimSpace(n.When) != "true" {
				// A note's text mostly says its situation itself: only a
				// condition that reads as words is added.
				if w := inWords(n.Says, n.When); w != "" {
					text += " (when " + w + ")"
				}
			}
			t.wrapped("  - ", 4, 4, text, plain)
		}
	}
	if len(r.References) > 0 {
		section("References")
		for _, ref := range r.References {
			t.wrapped("  - ", 4, 4, ref, plain)
		}
	}
	_, err := io.WriteString(w, t.b.String())
	return err
}

func oneLine(s string) string { return strings.Join(strings.Fields(s), " ") }

// simpleCond is a condition that reads as words once its fact is named as
// the placeholders name it: `ctl_family == "storcli"` (expr) or
// `eq .transport "nvme"` (template).
var simpleCond = regexp.MustCompile(`^(?:\(?([a-z_][a-z0-9_.]*)(?: \?\? [^()]*\))? == "([^"]*)"|eq \.([a-z_][a-z0-9_.]*) "([^"]*)")$`)

// inWords is a condition for a person: the rule's sentence for it (says)
// where it has one, else facts each compared with one value, in words
// ("the controller's tool family is storcli and the cache's power-loss
// protection is battery"); "" for anything else, whose expression is for
// --format yaml, never for explain.
func inWords(says, cond string) string {
	if says != "" {
		return oneLine(says)
	}
	is := " is "
	if c, ok := strings.CutPrefix(cond, "not "); ok {
		cond, is = c, " is not "
	}
	var words []string
	for _, part := range strings.Split(oneLine(cond), " && ") {
		m := simpleCond.FindStringSubmatch(part)
		if m == nil || is == " is not " && strings.Contains(cond, "&&") {
			return ""
		}
		name := m[1] + m[3]
		words = append(words, factWords(name[strings.LastIndex(name, ".")+1:])+is+m[2]+m[4])
	}
	return strings.Join(words, " and ")
}

// someCases stands for a condition explain cannot say in words: the
// command that prints it.
func someCases(id string) string {
	return "in some cases (diskdoctor explain " + id + " --format yaml prints the condition)"
}

func onlyWhen(id, says, cond string) string {
	if w := inWords(says, cond); w != "" {
		return "only when " + w
	}
	return "only " + someCases(id)
}

var (
	action    = regexp.MustCompile(`{{-?\s*(.*?)\s*-?}}`)
	lastField = regexp.MustCompile(`\.([A-Za-z_][A-Za-z0-9_]*)\s*$`)
	anyField  = regexp.MustCompile(`\.([A-Za-z_][A-Za-z0-9_]*)`)
)

// short names, in capitals as a command's synopsis writes its operands,
// the values a command is most often given; every other value is the
// fact's meaning in angle brackets (factWords). A fact's own name is an
// identifier of the code, never printed.
var short = map[string]string{
	"subject": "DEVICE", "item": "ITEM", "dev_path": "/dev/DEVICE",
	"ctl_tool": "TOOL", "ctl_selector": "CONTROLLER", "ctl_volume_ref": "VOLUME",
	"zfs_member_of": "POOL", "lvm_vg": "VG", "fs_fullest_mount": "MOUNTPOINT",
	"lpm_host": "HOST", "nvme_pm_controller": "NVME-CONTROLLER",
}

// words names the values that are not facts of the table: the datasheet's
// fields (.ds.*) and the template's own.
var words = map[string]string{
	"product":                    "the datasheet's model",
	"source":                     "the datasheet's source",
	"seq_write_mbs":              "the datasheet's sequential write rate",
	"seq_read_mbs":               "the datasheet's sequential read rate",
	"write_latency_us":           "the datasheet's write latency",
	"read_latency_us":            "the datasheet's read latency",
	"avail_bytes":                "the space available",
	"cpus_at_min_fraction":       "the share of CPUs at their minimum frequency",
	"pcie_max_gts":               "the link's maximum rate",
	"pcie_fraction":              "the link's bandwidth as trained over its maximum",
	"smart_load_cycles_per_hour": "head load cycles per power-on hour",
	"inode_use_percent":          "the share of inodes in use",
}

var (
	parenthetical = regexp.MustCompile(`\s*\([^()]*\)`)
	notWord       = regexp.MustCompile(`[^a-z0-9]+`)
)

// factWords is a fact (or a datasheet field) said for a person: its
// meaning from the facts table up to the first colon or semicolon, without
// asides ("the tool family" for ctl_family); a value the table does not
// know is its name in words.
func factWords(name string) string {
	if w, ok := words[name]; ok {
		return w
	}
	if d, ok := checks.LookupFact(name); ok && d.Meaning != "" {
		m := parenthetical.ReplaceAllString(d.Meaning, "")
		// Up to the list of values after a colon, unless the colon is
		// inside a quotation ("says 'Write cache: enabled'").
		if i := strings.IndexAny(m, ":;"); i > 0 && !strings.Contains(m[:i], " '") {
			m = m[:i]
		}
		if m = strings.TrimSpace(m); m != "" {
			return m
		}
	}
	return strings.TrimSpace(notWord.ReplaceAllString(strings.ToLower(name), " "))
}

// placeholder is how a rule text's value is shown: a short name in
// capitals, else its meaning in angle brackets.
func placeholder(name string) string {
	if n, ok := short[name]; ok {
		return n
	}
	return "<" + factWords(name) + ">"
}

// placeholders replaces each template action of a rule text with what it
// prints ({{quoted .dev_path}} is /dev/DEVICE, {{.zfs_log_devices}} is
// <the pool's log disks>); the words of conditions are dropped, their
// texts kept.
func placeholders(s string) string {
	return action.ReplaceAllStringFunc(s, func(a string) string {
		inner := action.FindStringSubmatch(a)[1]
		switch f := strings.Fields(inner); {
		case len(f) == 0:
			return ""
		case f[0] == "else":
			return " / " // one text or the other, by a condition
		case f[0] == "if" || f[0] == "end" || f[0] == "range" || f[0] == "with":
			return ""
		}
		m := lastField.FindStringSubmatch(inner)
		if m == nil {
			m = anyField.FindStringSubmatch(inner)
		}
		if m == nil {
			return "VALUE"
		}
		return placeholder(m[1])
	})
}

// alternative is one form of a command: {{if C}}A{{else}}B{{end}} is A
// when C and B otherwise.
type alternative struct{ text, when string }

var ifElse = regexp.MustCompile(`(?s)^(.*?){{-?\s*if\s+(.*?)\s*-?}}(.*?)(?:{{-?\s*else\s*-?}}(.*?))?{{-?\s*end\s*-?}}(.*)$`)

func alternatives(id, cmd string) []alternative {
	m := ifElse.FindStringSubmatch(cmd)
	if m == nil {
		return []alternative{{text: placeholders(cmd)}}
	}
	cond := oneLine(m[2])
	out := []alternative{{text: placeholders(m[1] + m[3] + m[5]), when: onlyWhen(id, "", cond)}}
	if strings.TrimSpace(m[1]+m[4]+m[5]) != "" {
		out = append(out, alternative{text: placeholders(m[1] + m[4] + m[5]), when: onlyWhen(id, "", "not "+cond)})
	}
	return out
}

// Rules lists the rules, one a line (id, severity, title), and under a
// rule whose severity depends on the case the other severities it can
// have in words, so that a list saying "warning" does not hide that a
// report may show the rule as critical.
func Rules(w io.Writer, rs []*rules.Rule, cols int) error {
	if cols <= 0 {
		cols = DefaultWidth
	}
	t := &textWriter{p: newPalette(w, false), width: max(cols, minWidth)}
	plain := lipgloss.NewStyle()
	const col = 38 // id (28), severity (8), two spaces
	origin := rules.BuiltIn
	for _, r := range rs {
		if r.Origin != origin && r.Origin != "" {
			// The site's own rules, under the file each came from.
			origin = r.Origin
			t.blank()
			t.line(clean("site rule from " + origin + ":"))
		}
		// The title wrapped at word boundaries under its column (an id
		// longer than its column pushes the first line on); where that
		// column would be too narrow, under the id, indented.
		at := col
		head := clean(fmt.Sprintf("%-28s %-8s ", r.ID, r.Severity))
		if t.width-col < 30 {
			t.line(head)
			head, at = "    ", 4
		}
		t.wrapped(head, width(head), at, clean(r.Title), plain)
		if len(r.SeverityWhen) > 0 {
			prose := r.SeverityProse()
			t.wrapped(strings.Repeat(" ", at), at, at, strings.TrimPrefix(prose, r.Severity+" "), plain)
		}
	}
	_, err := io.WriteString(w, t.b.String())
	return err
}
