// Package rules judges observations against datasheet expectations and
// ranks the findings. Rules are data (defs/*.yaml, embedded): conditions in
// a small expression language (expr), texts and commands as templates over
// the subject's facts. Heavy logic belongs in checks.
package rules

import (
	"bytes"
	"embed"
	"errors"
	"fmt"
	"io/fs"
	"path"
	"sort"
	"strings"
	"text/template"

	"github.com/diskdoctor/diskdoctor/checks"
	"github.com/diskdoctor/diskdoctor/internal/shellquote"
	"github.com/expr-lang/expr"
	"github.com/expr-lang/expr/vm"
	"go.yaml.in/yaml/v3"
)

//go:embed defs/*.yaml
var defsFS embed.FS

//go:embed platforms.yaml
var platformsYAML []byte

// Severities, most important first.
const (
	Critical = "critical"
	Warning  = "warning"
	Info     = "info"
)

// Risk labels of a remediation command.
const (
	RiskReadOnly    = "read-only"
	RiskRuntime     = "runtime"
	RiskPersistent  = "persistent"
	RiskDestructive = "destructive"
)

var severityRank = map[string]int{Critical: 3, Warning: 2, Info: 1}

// SeverityRank orders severities: critical 3, warning 2, info 1, anything
// else 0, so that callers comparing findings (diff) rank as the engine does.
func SeverityRank(s string) int { return severityRank[s] }

// Rule is one judgement, as written in defs/<id>.yaml.
type Rule struct {
	ID       string `yaml:"id"`
	Title    string `yaml:"title"`
	Subject  string `yaml:"subject"` // device | host | pool | controller
	Severity string `yaml:"severity"`
	When     string `yaml:"when"`
	// Holds says in a sentence when the rule holds (what explain prints
	// for When, which is code).
	Holds        string         `yaml:"holds"`
	SeverityWhen []SeverityCase `yaml:"severity_when"`
	Why          string         `yaml:"why"`
	Impact       string         `yaml:"impact"`
	// ImpactCases is the impact for a person, one text per situation,
	// where the impact template chooses between situations ({{else}}).
	ImpactCases []ImpactCase `yaml:"impact_cases"`
	ImpactScore string       `yaml:"impact_score"` // an expression: a number 0..100
	Observed    string       `yaml:"observed"`
	Expected    string       `yaml:"expected"`
	Evidence    []string     `yaml:"evidence"`
	// CheckedBy are the facts that must be known (not nil, "" or
	// "unknown") on a subject for the rule's not holding there to be
	// reported as passed ("checked and fine"). Without it the first
	// evidence fact decides; it is needed where that fact is known
	// while another the condition rests on may not be (a fact derived
	// with a default, a list left empty when unread). An empty list
	// ([]) says the rule never passes: its facts cannot tell fine from
	// unknown.
	CheckedBy []string `yaml:"checked_by"`
	// AskedWhere is an expression saying on which subjects the rule's
	// question applies at all; elsewhere its not holding is not "checked
	// and fine" (an EBS volume's timeout on an instance-store disk).
	// Empty: wherever its facts are known.
	AskedWhere  string `yaml:"asked_where"`
	asked       *vm.Program
	Notes       []Note   `yaml:"notes"`
	Remediation []Remedy `yaml:"remediation"`
	// FirstStep is the step, in words, that fixes or contains the finding
	// where no runtime or persistent command does (replace a part, free
	// space, let a rebuild finish): the report's first action then, before
	// the read-only look. A template over the first subject's facts, with
	// .subjects naming them all (quotedall); machine values in it go
	// through quoted.
	FirstStep  string   `yaml:"first_step"`
	References []string `yaml:"references"`
	// Explains names the symptom rules this cause accounts for: where both
	// hold on the same subjects, the cause ranks first and cites the
	// measured symptom.
	Explains []string `yaml:"explains"`
	// CausedBy names the rules whose findings can cause this one (hung
	// tasks: a device's errors or a slow pool member): after ranking, a
	// note names those present and where each ranks, or says none is.
	CausedBy []string `yaml:"caused_by"`
	// TitleWhen gives the title for the subjects whose facts say more
	// than Title can ("reports failing health" only where the health
	// check failed): the first case that holds wins, Title stands where
	// none does. Hits with different titles become separate findings, so
	// a title is never said of a subject whose facts contradict it.
	TitleWhen []TitleCase `yaml:"title_when"`
	// Origin is where the rule was defined: BuiltIn, or the site's file
	// under SiteRulesDir.
	Origin string `yaml:"-"`

	when, score *vm.Program
	impact      *template.Template
	observed    *template.Template
	expected    *template.Template
	firstStep   *template.Template
}

// SeverityCase overrides the severity where its condition holds; the first
// that holds wins.
type SeverityCase struct {
	When     string `yaml:"when"`
	Severity string `yaml:"severity"`
	// Says is When in a sentence, for explain and the rules listing.
	Says string `yaml:"says"`
	prog *vm.Program
}

// TitleCase is the title where its condition holds.
type TitleCase struct {
	When  string `yaml:"when"`
	Title string `yaml:"title"`
	// Says is When in a sentence, for explain and the rules listing.
	Says string `yaml:"says"`
	prog *vm.Program
}

// ImpactCase is the impact in one situation, in words: When ("a log
// device") may be empty where there is one situation only.
type ImpactCase struct {
	When string `yaml:"when"`
	Text string `yaml:"text"`
}

// SeverityProse is the rule's severity with the cases that change it, in
// words: "warning (critical when the pool is 95 % allocated or more)".
func (r *Rule) SeverityProse() string {
	var cases []string
	for _, c := range r.SeverityWhen {
		says := c.Says
		if says == "" {
			says = "some cases hold"
		}
		cases = append(cases, c.Severity+" when "+says)
	}
	if len(cases) == 0 {
		return r.Severity
	}
	return r.Severity + " (" + strings.Join(cases, "; ") + ")"
}

// Note is an extra line of advice shown where its condition holds.
type Note struct {
	When string `yaml:"when"`
	Says string `yaml:"says"` // When in words, for explain
	Text string `yaml:"text"`
	prog *vm.Program
	tmpl *template.Template
}

// Remedy is a remediation command template with its risk label.
type Remedy struct {
	Command string `yaml:"command"`
	Risk    string `yaml:"risk"`
	Note    string `yaml:"note"`
	When    string `yaml:"when"`
	Says    string `yaml:"says"` // When in words, for explain
	// ForEach renders the command once per element of a list fact, as .item.
	ForEach string `yaml:"foreach"`
	// All renders the command once for the whole finding: .hits is the
	// facts of every subject the entry applies to (its when holds), so one
	// command or one rules file covers every affected device.
	All  bool `yaml:"all"`
	prog *vm.Program
	cmd  *template.Template
	note *template.Template
}

// Platform is known behaviour of a machine model, attached to findings of
// the named rules.
type Platform struct {
	Name    string            `yaml:"name"`
	Vendor  string            `yaml:"vendor"`  // regexp on DMI sys_vendor
	Product string            `yaml:"product"` // regexp on DMI product_name
	Notes   map[string]string `yaml:"notes"`
	// Quirks are named behaviours rules can scope their advice to, e.g.
	// write-cache-off-at-boot: firmware turns off every internal SATA
	// drive's cache at each boot, so the fix must cover any such drive.
	Quirks []string `yaml:"quirks"`
	Source string   `yaml:"source"`
}

// Load parses and compiles every embedded rule, in the files' order.
func Load() ([]*Rule, error) {
	files, err := fs.Glob(defsFS, "defs/*.yaml")
	if err != nil {
		return nil, err
	}
	sort.Strings(files)
	var rs []*Rule
	seen := map[string]bool{}
	for _, f := range files {
		b, err := defsFS.ReadFile(f)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", f, err)
		}
		r, err := parseRule(b)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", f, err)
		}
		if r.ID+".yaml" != path.Base(f) {
			return nil, fmt.Errorf("%s: id %q must match the file name", f, r.ID)
		}
		if seen[r.ID] {
			return nil, fmt.Errorf("%s: duplicate rule id %q", f, r.ID)
		}
		seen[r.ID] = true
		r.Origin = BuiltIn
		rs = append(rs, r)
	}
	return rs, nil
}

// parseRule parses and compiles one rule.
func parseRule(b []byte) (*Rule, error) {
	var r Rule
	dec := yaml.NewDecoder(bytes.NewReader(b))
	dec.KnownFields(true)
	if err := dec.Decode(&r); err != nil {
		return nil, err
	}
	if r.ID == "" || r.Title == "" || r.When == "" || r.Why == "" || r.Impact == "" || r.Expected == "" {
		return nil, &fieldError{msg: "id, title, when, why, impact and expected are required"}
	}
	if r.Subject != "device" && r.Subject != "host" && r.Subject != "pool" && r.Subject != "controller" && r.Subject != "filesystem" {
		return nil, &fieldError{field: "subject", msg: fmt.Sprintf("subject must be device, host, pool, controller or filesystem, not %q", r.Subject)}
	}
	if severityRank[r.Severity] == 0 {
		return nil, &fieldError{field: "severity", msg: fmt.Sprintf("severity must be critical, warning or info, not %q", r.Severity)}
	}
	var err error
	if r.when, err = compileCond(r.When); err != nil {
		return nil, fieldErr("when", 0, err)
	}
	if r.asked, err = compileCond(orTrue(r.AskedWhere)); err != nil {
		return nil, fieldErr("asked_where", 0, err)
	}
	if r.ImpactScore == "" {
		r.ImpactScore = "50"
	}
	if r.score, err = compileScore(r.ImpactScore); err != nil {
		return nil, fieldErr("impact_score", 0, err)
	}
	for i := range r.SeverityWhen {
		c := &r.SeverityWhen[i]
		if severityRank[c.Severity] == 0 {
			return nil, fieldErr("severity_when", i+1, fmt.Errorf("bad severity %q", c.Severity))
		}
		if c.prog, err = compileCond(c.When); err != nil {
			return nil, fieldErr("severity_when", i+1, err)
		}
	}
	for i := range r.TitleWhen {
		c := &r.TitleWhen[i]
		if c.Title == "" {
			return nil, fieldErr("title_when", i+1, errors.New("a case needs a title"))
		}
		if c.prog, err = compileCond(c.When); err != nil {
			return nil, fieldErr("title_when", i+1, err)
		}
	}
	if r.impact, err = compileTemplate("impact", r.Impact); err != nil {
		return nil, fieldErr("impact", 0, err)
	}
	if r.observed, err = compileTemplate("observed", r.Observed); err != nil {
		return nil, fieldErr("observed", 0, err)
	}
	if r.expected, err = compileTemplate("expected", r.Expected); err != nil {
		return nil, fieldErr("expected", 0, err)
	}
	if r.firstStep, err = compileTemplate("first_step", r.FirstStep); err != nil {
		return nil, fieldErr("first_step", 0, err)
	}
	for i := range r.Notes {
		n := &r.Notes[i]
		if n.prog, err = compileCond(orTrue(n.When)); err != nil {
			return nil, fieldErr("notes", i+1, err)
		}
		if n.tmpl, err = compileTemplate("note", n.Text); err != nil {
			return nil, fieldErr("notes", i+1, err)
		}
	}
	for i := range r.Remediation {
		m := &r.Remediation[i]
		switch m.Risk {
		case RiskReadOnly, RiskRuntime, RiskPersistent:
		case RiskDestructive:
			if m.Note == "" {
				return nil, fieldErr("remediation", i+1, errors.New("a destructive command needs a note saying what it destroys"))
			}
		default:
			return nil, fieldErr("remediation", i+1, fmt.Errorf("bad risk %q", m.Risk))
		}
		if m.ForEach != "" && m.All {
			return nil, fieldErr("remediation", i+1, errors.New("foreach and all exclude each other"))
		}
		if m.prog, err = compileCond(orTrue(m.When)); err != nil {
			return nil, fieldErr("remediation", i+1, err)
		}
		if m.cmd, err = compileTemplate("command", m.Command); err != nil {
			return nil, fieldErr("remediation", i+1, err)
		}
		if m.note, err = compileTemplate("note", m.Note); err != nil {
			return nil, fieldErr("remediation", i+1, err)
		}
	}
	return &r, nil
}

// fieldError is a rule file's mistake in one of its fields (index: the
// 1-based item of a list field, 0 for a plain field): a site's rule file
// is then refused at that field's line (siteRuleError).
type fieldError struct {
	field string
	index int
	msg   string
	err   error
}

func (e *fieldError) Error() string {
	inner := e.msg
	if e.err != nil {
		inner = e.err.Error()
	}
	var b strings.Builder
	// A template's error names its field already ("impact template: …").
	if e.field != "" && !strings.HasPrefix(inner, e.field+" ") {
		b.WriteString(e.field)
		if e.index > 0 {
			fmt.Fprintf(&b, " %d", e.index)
		}
		b.WriteString(": ")
	}
	b.WriteString(inner)
	return b.String()
}

func (e *fieldError) Unwrap() error { return e.err }

func fieldErr(field string, index int, err error) error {
	return &fieldError{field: field, index: index, err: err}
}

func orTrue(s string) string {
	if strings.TrimSpace(s) == "" {
		return "true"
	}
	return s
}

// compileCond compiles a condition: an expression over a subject's facts
// that must give a bool. Names no check set are allowed (they are nil, and
// rules handle them with ??).
func compileCond(s string) (*vm.Program, error) {
	return expr.Compile(s, factsEnv, expr.AllowUndefinedVariables(), expr.AsBool())
}

// compileScore compiles an impact score: an expression over a subject's
// facts that gives a number.
func compileScore(s string) (*vm.Program, error) {
	return expr.Compile(s, factsEnv, expr.AllowUndefinedVariables())
}

// compileTemplate parses one of a rule's texts; a fact the subject lacks
// renders as "unknown" (render).
func compileTemplate(name, s string) (*template.Template, error) {
	t, err := template.New(name).Funcs(templateFuncs).Option("missingkey=zero").Parse(s)
	if err != nil {
		return nil, fmt.Errorf("%s template: %w", name, err)
	}
	return t, nil
}

// factsEnv tells the compiler what a rule runs on, a subject's facts: a
// map[string]any, whose names it then loads straight from the map rather
// than through reflection (expr's checker, without a type, falls back to
// it).
var factsEnv = expr.Env(map[string]any{})

var templateFuncs = template.FuncMap{
	"join": func(sep string, v any) string {
		switch x := v.(type) {
		case []string:
			return strings.Join(x, sep)
		case []any:
			var s []string
			for _, e := range x {
				s = append(s, fmt.Sprint(e))
			}
			return strings.Join(s, sep)
		}
		return fmt.Sprint(v)
	},
	"pct":   func(v any) string { f, _ := v.(float64); return fmt.Sprintf("%.0f %%", f*100) },
	"mbs":   func(v any) string { f, _ := toFloat(v); return fmt.Sprintf("%.0f MB/s", f) },
	"upper": strings.ToUpper,
	// plural picks the word for a count: one for 1, more otherwise.
	"plural": func(n any, one, more string) string {
		if f, ok := toFloat(n); ok && f == 1 {
			return one
		}
		return more
	},
	// names says whether the text of a already holds the text of b, so a
	// sentence does not say a value its other part already says.
	"names": func(a, b any) bool { return b != nil && strings.Contains(fmt.Sprint(a), fmt.Sprint(b)) },
	// share prints a as a percentage of b ("1.4 %"), or "?" without b.
	"share": func(a, b any) string {
		x, _ := toFloat(a)
		y, ok := toFloat(b)
		if !ok || y <= 0 {
			return "?"
		}
		return fmt.Sprintf("%.1f %%", x/y*100)
	},
	"num": func(v any) string { f, _ := toFloat(v); return fmt.Sprintf("%.1f", f) },
	// iec prints a byte count in powers of 1024, as zpool list does
	// without -p ("36.9 GiB"); "?" for what is not a number.
	"iec": iec,
	// quoted makes any value one shell word that expands to nothing:
	// words of harmless characters stay bare, anything else is single-quoted.
	// field lists one fact of every hit of a whole-finding remedy.
	"field": func(name string, hits any) []string {
		var out []string
		if l, ok := hits.([]map[string]any); ok {
			for _, h := range l {
				if v := fmt.Sprint(h[name]); h[name] != nil && v != "" {
					out = append(out, v)
				}
			}
		}
		return out
	},
	// union merges string lists, sorted, without duplicates.
	"union": func(lists ...any) []string {
		seen := map[string]bool{}
		var out []string
		for _, l := range lists {
			var ss []string
			switch x := l.(type) {
			case []string:
				ss = x
			case []any:
				for _, e := range x {
					ss = append(ss, fmt.Sprint(e))
				}
			}
			for _, s := range ss {
				if s != "" && !seen[s] {
					seen[s] = true
					out = append(out, s)
				}
			}
		}
		sort.Strings(out)
		return out
	},
	"quoted": func(v any) string { return shellquote.Quote(fmt.Sprint(v)) },
	// quotedall is a list's elements, each quoted, joined by ", ".
	"quotedall": func(v any) string {
		var out []string
		switch x := v.(type) {
		case []string:
			for _, e := range x {
				out = append(out, shellquote.Quote(e))
			}
		case []any:
			for _, e := range x {
				out = append(out, shellquote.Quote(fmt.Sprint(e)))
			}
		}
		return strings.Join(out, ", ")
	},
	// udevmatch makes a value safe inside a udev rule's "..." match value,
	// still matching the original (see UdevMatchValue).
	"udevmatch": func(v any) string { return UdevMatchValue(fmt.Sprint(v)) },
	// atleast: v is a number and at least min; false for an unknown
	// (nil) fact, so that a text never rests on what was not read.
	"atleast": func(v any, min float64) bool { f, ok := toFloat(v); return ok && f >= min },
}

func iec(v any) string {
	f, ok := toFloat(v)
	if !ok || f < 0 {
		return "?"
	}
	units := []string{"B", "KiB", "MiB", "GiB", "TiB", "PiB", "EiB"}
	i := 0
	for f >= 1024 && i < len(units)-1 {
		f /= 1024
		i++
	}
	if i == 0 {
		return fmt.Sprintf("%.0f B", f)
	}
	return fmt.Sprintf("%.1f %s", f, units[i])
}

// UdevMatchValue turns a value (a drive serial) into a udev match pattern
// that matches exactly it and cannot leave its quotes. udev splits match
// values at '|' before globbing and treats *?[ as glob characters, '"'
// ends the value and a backslash escapes; none of these can be written
// literally, so each such byte (and every control or non-ASCII byte, which
// fnmatch compares per byte) becomes '?', which matches that one byte.
// '#', '+', '=', '@' need nothing: they are ordinary characters in a
// quoted value.
func UdevMatchValue(s string) string {
	b := []byte(s)
	for i, c := range b {
		if c < 0x20 || c >= 0x7f || strings.IndexByte("*?[]|\\\"$%'`", c) >= 0 {
			b[i] = '?'
		}
	}
	return string(b)
}

func render(t *template.Template, env map[string]any) string {
	var b bytes.Buffer
	if err := t.Execute(&b, env); err != nil {
		return "(template error: " + err.Error() + ")"
	}
	return strings.TrimSpace(strings.ReplaceAll(b.String(), "<no value>", "unknown"))
}

// ToFloat reads a fact's number whatever numeric type the check stored it
// as; ok is false for anything that is not a number.
func ToFloat(v any) (float64, bool) { return toFloat(v) }

func toFloat(v any) (float64, bool) {
	switch x := v.(type) {
	case float64:
		return x, true
	case int:
		return float64(x), true
	case uint64:
		return float64(x), true
	case int64:
		return float64(x), true
	}
	return 0, false
}

// LoadPlatforms parses the embedded table of platform quirks.
func LoadPlatforms() ([]Platform, error) {
	var ps []Platform
	if err := yaml.Unmarshal(platformsYAML, &ps); err != nil {
		return nil, fmt.Errorf("platforms.yaml: %w", err)
	}
	return ps, nil
}

// appliesTo says whether the rule judges a subject of kind with facts. A
// controller rule judges the OS devices that are a controller's logical
// drives (the finding names the volume a person knows) and the
// controllers themselves (for what no OS device carries), and the disks
// behind a SAS HBA (so that an HBA's fault is named on the disks it
// fails); on any other disk its conditions could not hold, and are not
// evaluated.
func (r *Rule) appliesTo(kind string, facts map[string]any) bool {
	if r.Subject == "controller" {
		return kind == checks.KindController || kind == checks.KindDevice && (facts[checks.FactControllerVolume] == true || facts[checks.FactBehindHBA] != nil)
	}
	return kind == r.Subject
}
