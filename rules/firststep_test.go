package rules

import (
	"regexp"
	"slices"
	"strings"
	"testing"
)

// TestEveryFindingHasAFirstAction: a rule that can report a warning or a
// critical finding says how to fix or contain it, with a command that
// changes something (runtime or persistent) that every finding of it
// carries, or a first step in words, so
// that the report's first action is never one more read-only look.
func TestEveryFindingHasAFirstAction(t *testing.T) {
	rs, err := Load()
	if err != nil {
		t.Fatal(err)
	}
	var lacking []string
	for _, r := range rs {
		serious := severityRank[r.Severity] > severityRank[Info]
		for _, c := range r.SeverityWhen {
			serious = serious || severityRank[c.Severity] > severityRank[Info]
		}
		if !serious || strings.TrimSpace(r.FirstStep) != "" {
			continue
		}
		// A command counts only where it is always there: one under a
		// condition, or one per element of a list, may render none.
		fixes := false
		for _, m := range r.Remediation {
			fixes = fixes || (m.Risk == RiskRuntime || m.Risk == RiskPersistent) && strings.TrimSpace(m.When) == "" && m.ForEach == ""
		}
		if !fixes {
			lacking = append(lacking, r.ID)
		}
	}
	if len(lacking) > 0 {
		t.Errorf("%d rules can report a warning or critical finding with neither a runtime or persistent remediation nor a first_step: %s", len(lacking), strings.Join(lacking, ", "))
	}
}

// laterStep is a remedy note that says its command follows another
// step ("after the replace: …") or only tidies up once the problem is
// gone (a counter reset): such a command cannot be the report's first
// action.
var laterStep = regexp.MustCompile(`(?i)^(after |once )|\bresets? the counters\b`)

// TestFirstCommandIsNotALaterStep: the command the report's last lines
// would put first (the first runtime one, else the first persistent one,
// report/text_fix.go findingActions) is not one whose note says it comes
// after another step.
func TestFirstCommandIsNotALaterStep(t *testing.T) {
	rs, err := Load()
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range rs {
		for _, risk := range []string{RiskRuntime, RiskPersistent} {
			i := slices.IndexFunc(r.Remediation, func(m Remedy) bool { return m.Risk == risk })
			if i < 0 {
				continue
			}
			if m := r.Remediation[i]; laterStep.MatchString(m.Note) {
				t.Errorf("%s: its first %s command %q is a later step (%q): make it a note or first_step", r.ID, risk, m.Command, m.Note)
			}
			break
		}
	}
}
