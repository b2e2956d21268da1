package rules

import (
	"context"
	_ "embed"
	"errors"
	"fmt"
	"path"
	"regexp"
	"sort"
	"strings"

	"github.com/expr-lang/expr/ast"
	"github.com/expr-lang/expr/parser"
	"go.yaml.in/yaml/v3"

	"github.com/diskdoctor/diskdoctor/checks"
	"github.com/diskdoctor/diskdoctor/machine"
)

// SiteRulesDir holds a site's own rules, in the schema of rules/defs: a
// recorded machine's own are read when it is replayed.
const SiteRulesDir = "/etc/diskdoctor/rules.d"

// BuiltIn is the origin of a rule compiled into the doctor.
const BuiltIn = "built-in"

// maxRuleFileBytes bounds a site's rule file: the largest built-in rule is
// a few kilobytes.
const maxRuleFileBytes = 256 << 10

// ruleID is the form of a rule id: lowercase words joined by dashes, as
// every built-in's is (a file name and a Prometheus label value).
var ruleID = regexp.MustCompile(`^[a-z0-9]+(-[a-z0-9]+)*$`)

// LoadSiteRules reads the examined machine's SiteRulesDir, in name order:
// each file one rule, checked as the built-ins are and more strictly (every
// fact its conditions read must be one the checks give, its id new). A
// file another user could have written is not used: its skipped entry says
// so. A mistake is a FileError at its line.
func LoadSiteRules(ctx context.Context, host *machine.Host, existing []*Rule) ([]*Rule, []checks.Skipped, error) {
	if host == nil {
		return nil, nil, nil
	}
	seen := map[string]string{}
	for _, r := range existing {
		seen[r.ID] = r.Origin
	}
	files := host.Glob(SiteRulesDir + "/*.yaml")
	sort.Strings(files)
	var out []*Rule
	var skipped []checks.Skipped
	for _, p := range files {
		b, err := host.ReadTrusted(ctx, p, maxRuleFileBytes)
		var u *machine.UntrustedError
		if errors.As(err, &u) {
			skipped = append(skipped, checks.Skipped{
				Check:  "config",
				Reason: u.Error() + ": rule not used, another user could have written it",
				Hint:   "make it writable by root alone: " + u.Fix,
			})
			continue
		}
		if err != nil {
			return nil, nil, fmt.Errorf("%s: %w", p, err)
		}
		if isEmptyYAML(b) {
			continue
		}
		r, err := ParseSiteRule(p, b, seen)
		if err != nil {
			return nil, nil, err
		}
		seen[r.ID] = p
		out = append(out, r)
	}
	return out, skipped, nil
}

// ParseSiteRule parses and checks one site rule file; seen maps the ids
// already loaded to their origins.
func ParseSiteRule(file string, b []byte, seen map[string]string) (*Rule, error) {
	root, err := parseYAMLFile(file, b)
	if err != nil {
		return nil, err
	}
	if root == nil || root.Kind != yaml.MappingNode {
		return nil, at(file, root, "a rule file is a mapping (id: …, title: …) in the schema of the built-in rules ('diskdoctor explain RULE-ID' shows one)")
	}
	r, err := parseRule(b)
	if err != nil {
		var fe *fieldError
		if errors.As(err, &fe) {
			return nil, at(file, fieldNode(root, fe.field, fe.index), "%s", fe.Error())
		}
		return nil, yamlError(file, err)
	}
	idNode := fieldNode(root, "id", 0)
	if !ruleID.MatchString(r.ID) {
		return nil, at(file, idNode, "id %q: lowercase words joined by dashes (e.g. site-backup-disk-full)", r.ID)
	}
	if want := strings.TrimSuffix(path.Base(file), ".yaml"); r.ID != want {
		return nil, at(file, idNode, "id %q must match the file name (%s.yaml)", r.ID, r.ID)
	}
	if origin, dup := seen[r.ID]; dup {
		return nil, at(file, idNode, "rule %q is already defined (%s): choose another id, or waive or re-grade the existing rule in %s", r.ID, origin, SiteFile)
	}
	if c, f := r.undeclaredFact(); f != "" {
		return nil, at(file, fieldNode(root, c.name, c.index), "%s", undeclaredMessage(r.ID, c, f))
	}
	r.Origin = file
	return r, nil
}

// Facts are the facts every expression of the rule reads (host.X and
// ds.X included), each once.
func (r *Rule) Facts() []string {
	var out []string
	seen := map[string]bool{}
	for _, c := range siteConditions(r) {
		for _, f := range exprFacts(c.expr) {
			if !seen[f] {
				seen[f] = true
				out = append(out, f)
			}
		}
	}
	return out
}

// siteCondition is one expression of a rule, with the field it stands in.
type siteCondition struct {
	name  string // the YAML key
	index int    // its list item (1-based), 0 for a plain field
	field string // as an error names it
	expr  string
}

// siteConditions are every expression of r that reads facts.
func siteConditions(r *Rule) []siteCondition {
	out := []siteCondition{{"when", 0, "when", r.When}, {"impact_score", 0, "impact_score", r.ImpactScore}}
	if r.AskedWhere != "" {
		out = append(out, siteCondition{"asked_where", 0, "asked_where", r.AskedWhere})
	}
	for i, c := range r.SeverityWhen {
		out = append(out, siteCondition{"severity_when", i + 1, fmt.Sprintf("severity_when %d", i+1), c.When})
	}
	for i, c := range r.TitleWhen {
		out = append(out, siteCondition{"title_when", i + 1, fmt.Sprintf("title_when %d", i+1), c.When})
	}
	for i, n := range r.Notes {
		out = append(out, siteCondition{"notes", i + 1, fmt.Sprintf("notes %d", i+1), n.When})
	}
	for i, m := range r.Remediation {
		out = append(out, siteCondition{"remediation", i + 1, fmt.Sprintf("remediation %d", i+1), m.When})
	}
	return out
}

// fieldNode is the node of a rule file's field (its index-th item for a
// list field), or the mapping itself when the field is not there.
func fieldNode(root *yaml.Node, field string, index int) *yaml.Node {
	if root == nil || root.Kind != yaml.MappingNode {
		return root
	}
	for i := 0; i+1 < len(root.Content); i += 2 {
		if root.Content[i].Value != field {
			continue
		}
		v := root.Content[i+1]
		if index > 0 && v.Kind == yaml.SequenceNode && index <= len(v.Content) {
			return v.Content[index-1]
		}
		if v.Kind == yaml.ScalarNode {
			return v
		}
		return root.Content[i]
	}
	return root
}

// exprFacts lists the facts an expression reads (host.X and ds.X
// included), in first-use order; names its own let binds are not facts.
func exprFacts(e string) []string {
	var out []string
	if strings.TrimSpace(e) == "" {
		return nil
	}
	tree, err := parser.Parse(e)
	if err != nil {
		return nil
	}
	seen, bound := map[string]bool{}, map[string]bool{}
	// Walk visits children first, so let's names are found in a pass of
	// their own.
	ast.Walk(&tree.Node, factVisitor(func(f string) {
		if name, ok := strings.CutPrefix(f, "let "); ok {
			bound[name] = true
		}
	}))
	ast.Walk(&tree.Node, factVisitor(func(f string) {
		if !strings.HasPrefix(f, "let ") && !bound[f] && !seen[f] {
			seen[f] = true
			out = append(out, f)
		}
	}))
	return out
}

// NewSiteEngine is NewEngine with the examined machine's own rules
// (SiteRulesDir) after the built-ins, and the site configuration: config
// (--config) when given, else the machine's SiteFile. host may be nil (no
// site rules, and config alone).
func NewSiteEngine(ctx context.Context, host *machine.Host, ds *Datasheets, config string) (*Engine, error) {
	e, err := NewEngine(ds)
	if err != nil {
		return nil, err
	}
	own, skipped, err := LoadSiteRules(ctx, host, e.Rules)
	if err != nil {
		return nil, err
	}
	e.Rules = append(e.Rules, own...)
	ids := make([]string, len(e.Rules))
	for i, r := range e.Rules {
		ids[i] = r.ID
	}
	site, refused, err := LoadSite(ctx, host, config, ids)
	if err != nil {
		return nil, err
	}
	if refused != nil {
		skipped = append(skipped, *refused)
	}
	e.Site, e.siteSkipped = site, skipped
	return e, nil
}
