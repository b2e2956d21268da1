package rules

import (
	"fmt"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/expr-lang/expr"

	"github.com/diskdoctor/diskdoctor/checks"
)

// Finding is one rule's judgement, over every subject it holds for.
type Finding struct {
	Rule        string            `json:"rule"`
	Severity    string            `json:"severity"`
	Subjects    []string          `json:"subjects"`
	Title       string            `json:"title"`
	Impact      string            `json:"impact"`
	Expected    string            `json:"expected"`
	Observed    string            `json:"observed,omitempty"`
	Evidence    []checks.Evidence `json:"evidence"`
	Remediation []Remediation     `json:"remediation"`
	Notes       []string          `json:"notes,omitempty"`
	// FirstStep is the step that fixes or contains the finding where no
	// runtime or persistent command does (Rule.FirstStep, rendered once
	// for all its subjects).
	FirstStep  string   `json:"first_step,omitempty"`
	References []string `json:"references,omitempty"`
	// SeveritySetBy is the site file line that set this rule's severity
	// (Site.Severity); empty when the rule's own severity stands.
	SeveritySetBy string `json:"severity_set_by,omitempty"`
	// Waived is a finding the site accepted (Waiver): it does not count
	// towards the verdict.
	Waived bool    `json:"waived,omitempty"`
	Waiver *Waiver `json:"waiver,omitempty"`
	// PerSubject is what the rule says of each subject, in the order of
	// Subjects: Impact, Expected and Observed are joined from it. It is
	// not in the JSON contract (the joined texts are); it is there for a
	// renderer that lays one subject's texts out, so that none has to take
	// the joined prose apart again.
	PerSubject []SubjectText `json:"-"`

	score float64
	// active holds the subjects with a measured I/O contribution (busy in
	// the sampling window, or writing in zpool iostat's window): only they
	// can explain a host-wide symptom such as I/O pressure.
	active map[string]bool
	// rankAs is the severity the finding sorts by: a cause sorts with the
	// most severe symptom it explains.
	rankAs int
	// seq is the finding's place before ranking, by which its notes cite
	// it; cites are its notes that cite another (placeNotes).
	seq   int
	cites []citation
}

// SubjectText is a rule's impact, expected and observed templates rendered
// for one subject; a text a rule does not have, or whose template renders
// nothing for this subject, is empty.
type SubjectText struct {
	Subject                    string
	Impact, Expected, Observed string
}

// Remediation is a command to run by hand, with its risk label.
type Remediation struct {
	Command string `json:"command"`
	Risk    string `json:"risk"`
	Note    string `json:"note,omitempty"`
}

// FileLineWidth is the widest line a remediation writes into a file (the
// body of a here-document: a udev rules file, a systemd unit, a grub.d
// fragment). A report prints such a body byte for byte at column 0 and
// never re-wraps it (a break would change the file), so rules keep its
// lines short by construction with the file format's own continuations:
// the text report fits any terminal of this width or more. Only a value
// from the machine (a serial, on a udev match key that stands on a line of
// its own) may make a line longer.
const FileLineWidth = 56

// failFunc records an expression of a rule that failed on a subject.
type failFunc func(part, subject string, err error)

// finding assembles one rule's hits of one severity into a finding: each
// hit's texts, then what the finding says once for all of them.
func (e *Engine) finding(r *Rule, hits []hit, platform *Platform, errs *evalErrors) (Finding, error) {
	// fail records an expression that failed on a subject: an error when
	// strict, a skipped entry otherwise.
	var strictErr error
	fail := func(part, subject string, err error) {
		if e.Strict && strictErr == nil {
			strictErr = fmt.Errorf("rule %s on %s: %s: %w", r.ID, subject, part, err)
		}
		errs.add(r.ID, part, subject, err)
	}
	f := Finding{Rule: r.ID, Severity: hits[0].severity, Title: hits[0].title, References: r.References, active: map[string]bool{}}
	texts := make([]hitTexts, len(hits))
	for i, h := range hits {
		texts[i] = textsOf(r, h)
	}
	f.addHits(r, hits, texts, fail)
	f.Remediation = remediation(r, hits, texts, fail)
	f.FirstStep = firstStep(r, hits)
	if platform != nil {
		if n := platform.Notes[r.ID]; n != "" {
			f.Notes = append([]string{platform.Name + ": " + n}, f.Notes...)
		}
	}
	f.Impact = joinTexts(f.PerSubject, func(t SubjectText) string { return t.Impact })
	f.Expected = joinTexts(f.PerSubject, func(t SubjectText) string { return t.Expected })
	f.Observed = joinTexts(f.PerSubject, func(t SubjectText) string { return t.Observed })
	if f.Evidence == nil {
		f.Evidence = []checks.Evidence{}
	}
	if f.Remediation == nil {
		f.Remediation = []Remediation{}
	}
	return f, strictErr
}

// addHits adds each hit, in the hits' order: its subject and texts, the
// evidence of the facts the rule cites, and its notes, each evidence entry
// and note once.
func (f *Finding) addHits(r *Rule, hits []hit, texts []hitTexts, fail failFunc) {
	seenEv := map[checks.Evidence]bool{}
	seenNote := map[string]bool{}
	for hi, h := range hits {
		t := &texts[hi]
		f.Subjects = append(f.Subjects, h.subject.name)
		f.PerSubject = append(f.PerSubject, t.text)
		if measuredContribution(h.env) {
			f.active[h.subject.name] = true
		}
		if h.score > f.score {
			f.score = h.score
		}
		for _, fact := range r.Evidence {
			src := h.subject
			if strings.HasPrefix(fact, "host.") {
				src, fact = h.host, strings.TrimPrefix(fact, "host.")
			}
			for _, evs := range src.evidence {
				for _, ev := range evs.Of(fact) {
					if !seenEv[ev] {
						seenEv[ev] = true
						f.Evidence = append(f.Evidence, ev)
					}
				}
			}
		}
		for i := range r.Notes {
			if err := t.noteErr[i]; err != nil {
				fail(fmt.Sprintf("note %d", i+1), h.subject.name, err)
				continue
			}
			if n := t.notes[i]; n != "" && !seenNote[n] {
				seenNote[n] = true
				f.Notes = append(f.Notes, n)
			}
		}
	}
}

// firstStep renders the rule's first step once for the finding, in the
// first hit's environment with .subjects (every hit's name) added: one
// sentence that names all the subjects, not one per subject.
func firstStep(r *Rule, hits []hit) string {
	if r.FirstStep == "" || len(hits) == 0 {
		return ""
	}
	env := make(map[string]any, len(hits[0].env)+1)
	for k, v := range hits[0].env {
		env[k] = v
	}
	var names []string
	for _, h := range hits {
		names = append(names, h.subject.name)
	}
	env["subjects"] = names
	return render(r.firstStep, env)
}

// remediation is the finding's commands in the rule's order, each once: an
// entry for the whole finding is rendered once over the subjects it
// applies to, the others per subject.
func remediation(r *Rule, hits []hit, texts []hitTexts, fail failFunc) []Remediation {
	var out []Remediation
	seenCmd := map[string]bool{}
	for i, m := range r.Remediation {
		var rems []Remediation
		if m.All {
			rems = remediationForAll(m, i, hits, texts, fail)
		} else {
			for hi, h := range hits {
				if err := texts[hi].remErr[i]; err != nil {
					fail(fmt.Sprintf("remediation %d", i+1), h.subject.name, err)
				}
				rems = append(rems, texts[hi].rems[i]...)
			}
		}
		for _, rem := range rems {
			if seenCmd[rem.Command] {
				continue
			}
			seenCmd[rem.Command] = true
			out = append(out, rem)
		}
	}
	return out
}

// remediationForAll renders the rule's i-th entry, one for the whole
// finding, in the first applying hit's environment with .hits (their
// environments) and .subjects (their names) added.
func remediationForAll(m Remedy, i int, hits []hit, texts []hitTexts, fail failFunc) []Remediation {
	var envs []map[string]any
	var names []string
	for hi, h := range hits {
		if err := texts[hi].remErr[i]; err != nil {
			fail(fmt.Sprintf("remediation %d", i+1), h.subject.name, err)
			continue
		}
		if texts[hi].applies[i] {
			envs = append(envs, h.env)
			names = append(names, h.subject.name)
		}
	}
	if len(envs) == 0 {
		return nil
	}
	env := make(map[string]any, len(envs[0])+2)
	for k, v := range envs[0] {
		env[k] = v
	}
	env["hits"] = envs
	env["subjects"] = names
	if cmd := render(m.cmd, env); cmd != "" {
		return []Remediation{{Command: cmd, Risk: m.Risk, Note: render(m.note, env)}}
	}
	return nil
}

// hitTexts is what a rule says of one hit: its templates rendered and its
// notes' and remediation entries' conditions run; they depend on that hit
// alone.
type hitTexts struct {
	text    SubjectText
	notes   []string // per note: its text, when its condition holds
	noteErr []error
	applies []bool          // per entry for the whole finding: it applies to this hit
	rems    [][]Remediation // per entry for each subject: its commands
	remErr  []error
}

func textsOf(r *Rule, h hit) hitTexts {
	t := hitTexts{
		text:  SubjectText{Subject: h.subject.name, Impact: render(r.impact, h.env), Expected: render(r.expected, h.env), Observed: render(r.observed, h.env)},
		notes: make([]string, len(r.Notes)), noteErr: make([]error, len(r.Notes)),
		applies: make([]bool, len(r.Remediation)), rems: make([][]Remediation, len(r.Remediation)), remErr: make([]error, len(r.Remediation)),
	}
	for i, n := range r.Notes {
		v, err := expr.Run(n.prog, h.env)
		if err != nil {
			t.noteErr[i] = err
			continue
		}
		if v == true {
			t.notes[i] = render(n.tmpl, h.env)
		}
	}
	for i, m := range r.Remediation {
		if !m.All {
			t.rems[i], t.remErr[i] = remedies(m, h)
			continue
		}
		v, err := expr.Run(m.prog, h.env)
		t.remErr[i] = err
		t.applies[i] = err == nil && v == true && destructiveAllowed(m, h.env)
	}
	return t
}

// destructiveAllowed: a destructive command only for a device that holds
// nothing (in_use known and false).
func destructiveAllowed(m Remedy, env map[string]any) bool {
	if m.Risk != RiskDestructive {
		return true
	}
	inUse, ok := env["in_use"].(bool)
	return ok && !inUse
}

// remedies renders one remediation entry for one subject. Destructive
// commands are offered only for a device that holds nothing: no mounted
// filesystem, swap, pool membership, partition with a filesystem or holder.
func remedies(m Remedy, h hit) ([]Remediation, error) {
	v, err := expr.Run(m.prog, h.env)
	if err != nil {
		return nil, err
	}
	if v != true || !destructiveAllowed(m, h.env) {
		return nil, nil
	}
	if m.ForEach == "" {
		if cmd := render(m.cmd, h.env); cmd != "" {
			return []Remediation{{Command: cmd, Risk: m.Risk, Note: render(m.note, h.env)}}, nil
		}
		return nil, nil
	}
	var items []any
	switch l := h.env[m.ForEach].(type) {
	case []string:
		for _, x := range l {
			items = append(items, x)
		}
	case []any:
		items = l
	}
	// Each item is rendered in the hit's environment with .item added; the
	// environment is the engine's copy of the subject's facts, so .item is
	// taken out again (or a fact of that name put back) for what follows.
	old, had := h.env["item"]
	defer func() {
		if had {
			h.env["item"] = old
		} else {
			delete(h.env, "item")
		}
	}()
	var out []Remediation
	for _, it := range items {
		h.env["item"] = it
		if cmd := render(m.cmd, h.env); cmd != "" {
			out = append(out, Remediation{Command: cmd, Risk: m.Risk, Note: render(m.note, h.env)})
		}
	}
	return out, nil
}

// joinTexts joins one text of each subject: identical texts once, and,
// when they differ, each after the subjects it is theirs ("sda, sdb: …;
// sdc: …"). Empty texts are left out.
func joinTexts(per []SubjectText, text func(SubjectText) string) string {
	var texts []string
	subjects := map[string][]string{}
	for _, p := range per {
		t := text(p)
		if t == "" {
			continue
		}
		if _, ok := subjects[t]; !ok {
			texts = append(texts, t)
		}
		subjects[t] = append(subjects[t], p.Subject)
	}
	if len(texts) == 1 {
		return texts[0]
	}
	parts := make([]string, len(texts))
	for i, t := range texts {
		if s := subjects[t]; len(s) == 1 && namesItself(t, s[0]) {
			// "mpatha (dm-2): 1 of 2 paths up" already says whose it is:
			// "mpatha: mpatha (dm-2): …" would say it twice.
			parts[i] = t
			continue
		}
		parts[i] = strings.Join(subjects[t], ", ") + ": " + t
	}
	return strings.Join(parts, "; ")
}

// namesItself: the text begins with the subject's name as a word of its
// own ("mpatha (dm-2): …", "mpatha runs …"), not as the start of another
// name ("sda1: …" of sda).
func namesItself(text, subject string) bool {
	rest, ok := strings.CutPrefix(text, subject)
	if !ok || rest == "" {
		return ok
	}
	r, _ := utf8.DecodeRuneInString(rest)
	return !unicode.IsLetter(r) && !unicode.IsDigit(r) && r != '_' && r != '-' && r != '.' && r != '/'
}
