package rules

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// Every built-in rule's conditions read only declared facts.
func TestBuiltInRulesReadDeclaredFacts(t *testing.T) {
	rs, err := Load()
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range rs {
		if c, f := r.undeclaredFact(); f != "" {
			t.Error(undeclaredMessage(r.ID, c, f))
		}
	}
}

// A site rule reading an undeclared fact is refused, naming the rule and
// the fact; host.X needs X declared, ds.X a datasheet field.
func TestSiteRuleUndeclaredFact(t *testing.T) {
	for _, tt := range []struct{ when, want string }{
		{`host.no_such_fact > 0`, `rule site-x: when reads "host.no_such_fact", which no check gives`},
		{`ds.no_such_field > 0`, `rule site-x: when reads "ds.no_such_field", which no check gives`},
		{`wc_onn == true`, `did you mean "wc_on"?`},
		{`host.vendor == "HPE"`, `rule site-x: when reads "host.vendor", which no check gives (docs/facts.md lists the facts); vendor is a fact of a device, not of the host`},
		{`host.produkt == "x"`, `did you mean "host.product"?`},
	} {
		rule := "id: site-x\ntitle: t\nseverity: info\nsubject: device\nwhen: '" + tt.when + "'\nwhy: w\nimpact: i\nexpected: e\n"
		_, err := ParseSiteRule("site-x.yaml", []byte(rule), nil)
		if err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%s: error %v, want %q", tt.when, err, tt.want)
		}
	}
	for _, when := range []string{`host.mem_total_bytes > 0`, `ds.plp == false && wc_on == true`, `len(platform_quirks) > 0 && subject != ""`} {
		rule := "id: site-x\ntitle: t\nseverity: info\nsubject: device\nwhen: '" + when + "'\nwhy: w\nimpact: i\nexpected: e\n"
		if _, err := ParseSiteRule("site-x.yaml", []byte(rule), nil); err != nil && strings.Contains(err.Error(), "no check gives") {
			t.Errorf("%s: %v", when, err)
		}
	}
}

// docs/facts.md is the registry's (go test ./rules -update rewrites it).
func TestFactsDoc(t *testing.T) {
	path := filepath.Join("..", "docs", "facts.md")
	want := FactsMarkdown()
	if *update {
		if err := os.WriteFile(path, []byte(want), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test ./rules -update)", err)
	}
	if string(b) != want {
		t.Error("docs/facts.md is stale: run go test ./rules -update and review the diff")
	}
}
