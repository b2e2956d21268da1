package report

import (
	"fmt"
	"path"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/charmbracelet/lipgloss"

	"github.com/diskdoctor/diskdoctor/checks"
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
//
// Where the finding's own commands only look and a process kept its
// device busy in the window, containing that process comes first, as the
// report's last lines say (containment): Fix first never offers less than
// First does.
func fixFirst(t *textWriter, rep *rules.Report) {
	f := rep.Findings[0]
	contain, contained := containment(rep)
	if len(f.Remediation) == 0 && !contained {
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
	if contained {
		remediationLine(t, 2, contain.risk, contain.text, contain.note)
	}
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

// tailAction is one line of the report's last lines: a command with its risk
// label (and the note under it), or a step in words (risk "").
type tailAction struct {
	risk, text, note string
	step             bool // the rule's first step: no command here changes anything
}

// copyOffFirst matches a finding's note that tells to copy the data off
// before anything else (a failing disk, a filesystem forced read-only).
var copyOffFirst = regexp.MustCompile(`(?i)\b(copy off|back up)\b[^.;]*\b(first|now)\b`)

// firstActions are the report's last lines after the verdict: the one
// command or step that fixes or contains the most important thing, then
// the read-only command that looks at it. In order: the top warning or
// critical finding (copy the data off first where its notes say so, else
// its first command that changes something: runtime, then persistent,
// never destructive, else the rule's first step in words), a machine not ready for a benchmark (pause the
// process that did most of the I/O), a check that could not run (its
// hint), the top finding for information.
func firstActions(rep *rules.Report) []tailAction {
	top := -1
	if len(rep.Findings) > 0 {
		top = 0
	}
	serious := top == 0 && rep.Findings[0].Severity != rules.Info
	switch {
	case serious:
		acts := findingActions(rep.Findings[0])
		if p, ok := containment(rep); ok {
			// Then the look; a step in words would say the same as
			// the pause, less precisely.
			then := acts[0]
			if then.step && len(acts) > 1 {
				then = acts[1]
			}
			return []tailAction{p, then}
		}
		return acts
	case rep.Ready != nil && !*rep.Ready:
		return notReadyActions(rep)
	case len(rep.Incomplete) > 0:
		return incompleteActions(rep)
	case top == 0:
		return findingActions(rep.Findings[0])
	}
	return nil
}

// containment is the process to contain first where the top warning or
// critical finding's own commands change nothing (they only look, or a
// step in words is all it has) and the finding is on the device a
// process kept busy in the window (processAction).
func containment(rep *rules.Report) (tailAction, bool) {
	if len(rep.Findings) == 0 || rep.Findings[0].Severity == rules.Info {
		return tailAction{}, false
	}
	f := rep.Findings[0]
	acts := findingActions(f)
	if acts[0].risk != rules.RiskReadOnly && !acts[0].step && !strings.HasPrefix(acts[len(acts)-1].text, "diskdoctor explain") {
		return tailAction{}, false
	}
	if f.Rule == ioPressureRule {
		// Tasks stalled on I/O are the host's, not a device's: the
		// process that kept the busiest device busy is what its step
		// asks to find, and the window found it.
		return processAction(rep, nil)
	}
	return processAction(rep, f.Subjects)
}

// ioPressureRule is the rule of tasks stalled on I/O, the one pressure
// rule a process doing I/O explains.
const ioPressureRule = "io-pressure-high"

// findingActions: see firstActions. Each risk's commands are
// consolidated as Fix first prints them: one command over every device
// the tool takes at once, not the first device's alone.
func findingActions(f rules.Finding) []tailAction {
	var fix, look *tailAction
	byRisk := func(risk string) (cmds, notes []string) {
		for _, m := range f.Remediation {
			if m.Risk == risk {
				cmds, notes = append(cmds, m.Command), append(notes, m.Note)
			}
		}
		return consolidate(cmds, notes)
	}
	for _, risk := range []string{rules.RiskRuntime, rules.RiskPersistent} {
		cmds, notes := byRisk(risk)
		// A one-line command before a script: the last lines are not
		// the place for a file's body (Fix first and -v print it).
		for _, script := range []bool{false, true} {
			for i, c := range cmds {
				if fix == nil && strings.Contains(c, "\n") == script {
					fix = &tailAction{risk: risk, text: c, note: notes[i]}
					if script {
						fix = &tailAction{risk: risk, text: "the fix that writes " + scriptFile(c) + ": Fix first above, or -v"}
					}
				}
			}
		}
	}
	looks, _ := byRisk(rules.RiskReadOnly)
	for _, c := range looks {
		// A look that needs more than a line or two (a command over every
		// device's by-id path) is left to Fix first.
		if !strings.Contains(c, "\n") && width(c) <= 2*(lastLinesWidth-20) {
			look = &tailAction{risk: rules.RiskReadOnly, text: c}
			break
		}
	}
	if fix == nil && f.FirstStep != "" {
		// No command changes anything here: the rule's step in words
		// (replace a part, free space, let a rebuild finish) does.
		fix = &tailAction{text: f.FirstStep, step: true}
	}
	var out []tailAction
	if slices.ContainsFunc(f.Notes, copyOffFirst.MatchString) {
		out = append(out, tailAction{text: "copy off what matters, before anything else"})
	}
	if fix != nil {
		out = append(out, *fix)
	}
	if look != nil {
		out = append(out, *look)
	}
	if fix == nil {
		// Nothing here says what changes anything: what to do is in the
		// rule's explanation, after the look.
		out = append(out, tailAction{text: "diskdoctor explain " + f.Rule + ": why, and what fixes it"})
	}
	return out[:min(2, len(out))]
}

// notReadyActions: contain the process that did most of the I/O in the
// window (processAction), then measure again.
func notReadyActions(rep *rules.Report) []tailAction {
	var out []tailAction
	if p, ok := processAction(rep, nil); ok {
		out = append(out, p)
	} else {
		out = append(out, tailAction{text: "let the work above finish, or stop it, before the benchmark"})
	}
	secs := "5"
	if rep.Sample != nil && !rep.Sample.Default {
		secs = strconv.FormatFloat(rep.Sample.Seconds, 'f', -1, 64)
	}
	out = append(out, tailAction{risk: rules.RiskReadOnly, text: "diskdoctor --context benchmark --sample " + secs + "s"})
	return out
}

// incompleteActions: make the first check that could not run work, by
// its skipped entry's hint.
// Programs missing for several of them are brought in one line, as
// Skipped checks groups them.
func incompleteActions(rep *rules.Report) []tailAction {
	var entries []checks.Skipped
	for _, inc := range rep.Incomplete {
		for _, s := range rep.Skipped {
			if s.Check == inc.Check && s.Reason == inc.Reason && s.Hint != "" {
				entries = append(entries, s)
				break
			}
		}
	}
	if len(entries) == 0 {
		return nil
	}
	return []tailAction{{text: groupMissingTools(entries)[0].Hint}}
}

// lastLinesWidth is the terminal the last lines are laid out for (80×24).
const lastLinesWidth = 80

// actionLines prints the last lines: "First" and "Then", each a command
// with its risk label (wrapped so that pasting it runs it) or a step.
func actionLines(t *textWriter, acts []tailAction) {
	for i, a := range acts {
		word := "First"
		if i > 0 {
			word = "Then"
		}
		if a.risk == "" {
			t.wrapped(t.p.Bold.Render(fmt.Sprintf("%-6s", word)), 6, 6, clean(a.text), lipgloss.NewStyle())
			continue
		}
		label := fmt.Sprintf("%-6s%-14s", word, "["+a.risk+"]")
		indent := width(label)
		lines := wrapCommand(strings.Join(cleanLines(a.text), "\n"), t.width, indent, indent)
		t.line(t.p.Bold.Render(word) + t.p.riskStyles[a.risk].Render(label[len(word):]) + lines[0])
		for _, l := range lines[1:] {
			t.line(l)
		}
		if a.note != "" && i == 0 {
			t.line(strings.Repeat(" ", indent) + t.p.Dim.Render(truncate(clean(a.note), t.width-indent)))
		}
	}
}

// processAction contains the process that did most of the I/O in the
// window, on the busiest device when it is one of subjects (any device
// for nil): the idle I/O class where the device's scheduler is BFQ, the
// only one that honours it (ionice(1)), else a pause (SIGSTOP, resumed by
// SIGCONT: signal(7)).
func processAction(rep *rules.Report, subjects []string) (tailAction, bool) {
	busy := busyInWindow(rep)
	if busy == nil || rep.Sample == nil || len(rep.Sample.Processes) == 0 || (subjects != nil && !slices.Contains(subjects, busy.Name)) {
		return tailAction{}, false
	}
	// The process known to load the busy device (its cgroup's io.stat)
	// before the one that did most I/O on all devices together.
	p, _, _ := deviceProcess(rep.Sample, *busy)
	for _, d := range rep.Devices {
		if d["name"] == busy.Name && d[checks.FactScheduler] == "bfq" {
			return tailAction{risk: rules.RiskRuntime, text: fmt.Sprintf("ionice -c 3 -p %d", p.PID),
				note: fmt.Sprintf("%s gets %s only when nothing else wants it; or stop it", clean(p.Comm), clean(busy.Name))}, true
		}
	}
	return tailAction{risk: rules.RiskRuntime, text: fmt.Sprintf("kill -STOP %d", p.PID),
		note: fmt.Sprintf("pauses %s; kill -CONT %d resumes it", clean(p.Comm), p.PID)}, true
}
