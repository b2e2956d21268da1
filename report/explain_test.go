package report

import (
	"bytes"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/diskdoctor/diskdoctor/rules"
)

// TestExplainIsForPeople: every rule explained in words, with no template
// text and no Markdown escapes, within the width; commands as a report
// prints them (issue #11).
func TestExplainIsForPeople(t *testing.T) {
	rs, err := rules.Load()
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range rs {
		var b bytes.Buffer
		if err := Explain(&b, r, 80, false); err != nil {
			t.Fatal(err)
		}
		// The explanation of every rule as committed under testdata/explain
		// (-update rewrites them; a new rule gets its file).
		golden(t, filepath.Join("testdata", "explain", r.ID+".txt"), b.Bytes())
		out := b.String()
		for _, bad := range []string{"{{", "}}", `\|`, "**", "`"} {
			if strings.Contains(out, bad) {
				t.Errorf("%s: %q in the explanation:\n%s", r.ID, bad, out)
			}
		}
		for _, want := range []string{r.Title, "Why it matters", "When it holds"} {
			if !strings.Contains(strings.Join(strings.Fields(out), " "), want) {
				t.Errorf("%s: no %q", r.ID, want)
			}
		}
		checkWidth(t, r.ID, b.Bytes(), 80)
	}
	var b bytes.Buffer
	for _, r := range rs {
		if r.ID == "write-cache-disabled" {
			_ = Explain(&b, r, 80, false)
		}
	}
	// The rules file's lines at column 0, byte for byte, as a report
	// prints a here-document's body.
	if !strings.Contains(b.String(), "\nACTION==\"add|change\", SUBSYSTEM==\"block\", \\\n") || !strings.Contains(b.String(), "\nEOF\n") || !strings.Contains(b.String(), "hdparm -W1 /dev/DEVICE") {
		t.Errorf("write-cache-disabled: the commands are not as a report prints them:\n%s", b.String())
	}
}

// exprSyntax is what a rule's conditions are written in and a person's
// explanation must not show (issue #25).
// ("let" only as a binding: "let it finish" is English).
var exprSyntax = regexp.MustCompile(`\?\?|&&|\|\||\blet [a-z_]+ =|==|!=| \? `)

// TestExplainSpeaksProse: every rule says in words when it holds, when it
// takes another severity, and its impact per situation; no expression
// syntax reaches explain outside the commands (which are shell and may
// contain == in a udev rule). A rule fails here until its YAML has:
//   - holds: the rule's when, in a sentence;
//   - says: on each severity_when case, its when in a sentence;
//   - impact_cases: (a list of {when, text}) where impact chooses between
//     texts with {{else}}.
func TestExplainSpeaksProse(t *testing.T) {
	rs, err := rules.Load()
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range rs {
		file := "rules/defs/" + r.ID + ".yaml"
		if strings.TrimSpace(r.Holds) == "" {
			t.Errorf("%s: no holds: (the rule's when in a sentence, for explain)", file)
		}
		for i, c := range r.SeverityWhen {
			if strings.TrimSpace(c.Says) == "" {
				t.Errorf("%s: severity_when %d (%s) has no says: (its when in a sentence, for explain and rules)", file, i+1, c.Severity)
			}
		}
		if strings.Contains(r.Impact, "else") && strings.Contains(r.Impact, "{{") && len(r.ImpactCases) == 0 {
			t.Errorf("%s: impact chooses between texts ({{else}}): give impact_cases: [{when: situation, text: impact}] for explain", file)
		}
		prose := []string{r.Holds, r.SeverityProse()}
		for _, c := range r.ImpactCases {
			prose = append(prose, c.When, c.Text)
		}
		for _, p := range prose {
			if bad := exprSyntax.FindString(p); bad != "" {
				t.Errorf("%s: %q in prose %q", file, bad, p)
			}
		}
		// The explanation without its commands (shell, not conditions).
		c := *r
		c.Remediation = nil
		for _, m := range r.Remediation {
			m.Command = "COMMAND"
			c.Remediation = append(c.Remediation, m)
		}
		var b bytes.Buffer
		if err := Explain(&b, &c, 80, false); err != nil {
			t.Fatal(err)
		}
		out := strings.Join(strings.Fields(b.String()), " ")
		if bad := exprSyntax.FindString(out); bad != "" {
			t.Errorf("%s: %q reaches explain:\n%s", r.ID, bad, b.String())
		}
	}
}

// TestRulesList: the rules listing, as committed, names the severities a
// report can show (issue #25).
func TestRulesList(t *testing.T) {
	rs, err := rules.Load()
	if err != nil {
		t.Fatal(err)
	}
	var b bytes.Buffer
	if err := Rules(&b, rs, 80); err != nil {
		t.Fatal(err)
	}
	golden(t, filepath.Join("testdata", "explain", "rules-list.txt"), b.Bytes())
	for _, id := range []string{"zfs-device-slow", "io-pressure-high"} {
		if !strings.Contains(strings.Join(strings.Fields(b.String()), " "), id+" warning ") || !strings.Contains(b.String(), "(critical when") {
			t.Errorf("rules: %s not listed as warning (critical when …):\n%s", id, b.String())
		}
	}
}
