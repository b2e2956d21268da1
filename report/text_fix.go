package report

import (
	"fmt"
	"path"
	"regexp"
	"slices"
	"strings"

	"github.com/diskdoctor/diskdoctor/rules"
)

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
	notes := map[string][]string{} // each merged command's note
	for _, risk := range riskOrder {
		var cmds, cmdNotes []string
		for _, m := range f.Remediation {
			if m.Risk == risk {
				cmds, cmdNotes = append(cmds, m.Command), append(cmdNotes, m.Note)
			}
		}
		byRisk[risk], notes[risk] = consolidate(cmds, cmdNotes)
	}
	// runsAny: one of fixes runs the read-only command ro as a line of its own.
	runsAny := func(fixes []string, ro string) bool {
		return slices.ContainsFunc(fixes, func(c string) bool { return slices.Contains(strings.Split(c, "\n"), ro) })
	}
	whole := slices.ContainsFunc(byRisk[rules.RiskReadOnly], func(ro string) bool { return runsAny(byRisk[rules.RiskPersistent], ro) })
	head := "(1. " + clean(f.Rule) + "):"
	if whole {
		head += " for good, applied now, then checked"
	}
	t.wrapped(t.p.Heading.Render("Fix first")+" ", width("Fix first "), 2, head, t.p.Dim)
	for _, risk := range riskOrder {
		merged := byRisk[risk]
		switch {
		case len(merged) == 0, whole && risk == rules.RiskRuntime:
			continue
		case whole && risk == rules.RiskReadOnly:
			continue
		}
		cmdNotes := notes[risk]
		if risk == rules.RiskReadOnly {
			// A read-only command a printed fix already runs is left
			// out, its note with it.
			var keep, keepNotes []string
			for i, ro := range merged {
				if !runsAny(byRisk[rules.RiskRuntime], ro) && !runsAny(byRisk[rules.RiskPersistent], ro) {
					keep, keepNotes = append(keep, ro), append(keepNotes, cmdNotes[i])
				}
			}
			if merged, cmdNotes = keep, keepNotes; len(merged) == 0 {
				continue
			}
		}
		fixLines(t, risk, merged, cmdNotes, whole)
	}
}

// fixLines prints one risk's commands of Fix first, each with its own note
// (one line) under it: commands that differ from the first only in the
// device they are for are counted, not printed, and so are further
// scripts; notes are left out of a whole fix, whose heading says what it
// does.
func fixLines(t *textWriter, risk string, merged, notes []string, whole bool) {
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
		if notes[i] != "" && !whole {
			t.line(strings.Repeat(" ", 16) + t.p.Dim.Render(truncate(clean(notes[i]), t.width-16)))
		}
	}
	if alike > 1 {
		t.wrapped(strings.Repeat(" ", 16), 16, 16, fmt.Sprintf("… and %d more like it, one per device: -v prints them", alike), t.p.Dim)
	}
	if len(scripts) > 0 {
		t.wrapped(strings.Repeat(" ", 16), 16, 16, fmt.Sprintf("… and %d more that write %s: -v prints them", len(scripts), strings.Join(scripts, ", ")), t.p.Dim)
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
		t.wrapped(strings.Repeat(" ", indent), indent, indent, clean(note), t.p.Dim)
	}
}

// multiDevice are the tools that take several devices in one command.
var multiDevice = map[string]bool{"hdparm": true, "blockdev": true, "lsblk": true, "iostat": true}

// consolidate merges commands that differ only in their last argument
// into one, for tools that take several (hdparm -W1 A B C), and drops
// repeats; a merged command keeps the note of the first it came from.
// Anything with shell syntax beyond words is left as it is.
func consolidate(cmds, notes []string) ([]string, []string) {
	var out, outNotes []string
	index := map[string]int{}
	for ci, c := range cmds {
		f := strings.Fields(c)
		simple := len(f) >= 2 && multiDevice[path.Base(f[0])] && !strings.ContainsAny(c, "'\"$`;&|<>()\\*?\n")
		if !simple {
			if !slices.Contains(out, c) {
				out, outNotes = append(out, c), append(outNotes, notes[ci])
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
		out, outNotes = append(out, c), append(outNotes, notes[ci])
	}
	return out, outNotes
}
