package rules

import (
	"fmt"
	"strings"
	"testing"

	"github.com/diskdoctor/diskdoctor/checks"
)

// The engine evaluates subject by subject (one environment per subject);
// what it reports must be in the rules' order as when it went rule by
// rule: skipped entries of failing rules in rule order with their subjects
// in subject order, findings ranked, and a strict run's error the first
// rule's on its first subject.
func TestJudgeOrderSubjectBySubject(t *testing.T) {
	ds, _ := LoadDatasheets("")
	e, err := NewEngine(ds)
	if err != nil {
		t.Fatal(err)
	}
	var bad []*Rule
	for _, id := range []string{"zz-first", "aa-second"} {
		r, err := parseRule(fmt.Appendf(nil, "id: %s\ntitle: t\nsubject: device\nseverity: warning\nwhen: 'size_bytes > 1'\nwhy: w\nimpact: i\nexpected: e\n", id))
		if err != nil {
			t.Fatal(err)
		}
		bad = append(bad, r)
	}
	holds, err := parseRule([]byte("id: holds\ntitle: t\nsubject: device\nseverity: warning\nwhen: 'subject != \"sdb\"'\nseverity_when:\n  - when: 'subject == \"sdc\"'\n    severity: critical\nwhy: w\nimpact: 'i {{.subject}}'\nexpected: e\n"))
	if err != nil {
		t.Fatal(err)
	}
	e.Rules = append([]*Rule{bad[0]}, append(e.Rules, holds, bad[1])...)
	var obs []*checks.Observation
	for _, n := range []string{"sdc", "sda", "sdb"} {
		obs = append(obs, device(n, map[string]any{"size_bytes": "not a number"}))
	}
	res := &checks.Result{Observations: obs}
	rep, err := e.Build(res, "/")
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, s := range rep.Skipped {
		if strings.HasPrefix(s.Check, "rule ") {
			got = append(got, s.Check+": "+strings.Join(s.Subjects, ","))
		}
	}
	if want := "rule zz-first: sda,sdb,sdc|rule aa-second: sda,sdb,sdc"; strings.Join(got, "|") != want {
		t.Errorf("skipped entries of failing rules:\n got %q\nwant %q", strings.Join(got, "|"), want)
	}
	var fs []string
	for _, f := range rep.Findings {
		if f.Rule == "holds" {
			fs = append(fs, f.Severity+":"+strings.Join(f.Subjects, ","))
		}
	}
	if want := "critical:sdc|warning:sda"; strings.Join(fs, "|") != want {
		t.Errorf("findings of the rule that holds: got %q, want %q", strings.Join(fs, "|"), want)
	}
	e.Strict = true
	if _, err := e.Build(res, "/"); err == nil || !strings.Contains(err.Error(), "rule zz-first on sda") {
		t.Errorf("strict: err = %v, want the first rule's error on the first subject", err)
	}
}

// The rules see a device's facts with subject, host, ds and platform set in
// them; the report's device entry is the device's own facts, a fact of the
// same name included.
func TestDeviceEntryIsItsOwnFacts(t *testing.T) {
	ds, _ := LoadDatasheets("")
	e, err := NewEngine(ds)
	if err != nil {
		t.Fatal(err)
	}
	sees, err := parseRule([]byte("id: sees\ntitle: t\nsubject: device\nseverity: warning\nwhen: 'subject == \"sda\" && host.hostname == \"h\" && platform == \"\" && \"product\" in ds'\nwhy: w\nimpact: i\nexpected: e\n"))
	if err != nil {
		t.Fatal(err)
	}
	e.Rules = append(e.Rules, sees)
	host := checks.NewObservation("t", checks.KindHost, "host")
	host.Set("hostname", "h")
	res := &checks.Result{Observations: []*checks.Observation{host,
		device("sda", map[string]any{"model": "X"}), device("sdb", map[string]any{"platform": "own", "subject": "own"})}}
	rep, err := e.Build(res, "/")
	if err != nil {
		t.Fatal(err)
	}
	if len(rep.Findings) == 0 || rep.Findings[0].Rule != "sees" || strings.Join(rep.Findings[0].Subjects, ",") != "sda" {
		t.Fatalf("the rule did not see the environment: %+v", rep.Findings)
	}
	if len(rep.Devices) != 2 {
		t.Fatalf("devices: %v", rep.Devices)
	}
	for _, k := range envKeys {
		if _, ok := rep.Devices[0][k]; ok {
			t.Errorf("sda's entry has the rules' %q: %v", k, rep.Devices[0])
		}
	}
	if d := rep.Devices[1]; d["platform"] != "own" || d["subject"] != "own" || d["name"] != "sdb" {
		t.Errorf("sdb's entry lost its own facts: %v", d)
	}
	if _, ok := rep.Devices[1]["host"]; ok {
		t.Errorf("sdb's entry has the rules' host: %v", rep.Devices[1])
	}
}

// A finding's joined texts are its per-subject texts: identical texts
// once, differing ones after their subjects, empty ones left out.
func TestFindingTextsJoinPerSubject(t *testing.T) {
	per := []SubjectText{
		{Subject: "sda", Observed: "off", Expected: "on"},
		{Subject: "sdb", Observed: "unknown", Expected: "on"},
		{Subject: "sdc", Observed: "off"},
	}
	if got, want := joinTexts(per, func(t SubjectText) string { return t.Observed }), "sda, sdc: off; sdb: unknown"; got != want {
		t.Errorf("observed = %q, want %q", got, want)
	}
	if got, want := joinTexts(per, func(t SubjectText) string { return t.Expected }), "on"; got != want {
		t.Errorf("expected = %q, want %q", got, want)
	}
	if got := joinTexts(per, func(t SubjectText) string { return t.Impact }); got != "" {
		t.Errorf("impact = %q, want none", got)
	}
	// A text that begins with its subject's name is not prefixed with it
	// again; one that begins with a longer name (sda1 of sda) is.
	per = []SubjectText{
		{Subject: "mpatha", Observed: "mpatha (dm-2): 1 of 2 paths up"},
		{Subject: "mpathb", Observed: "mpathb (dm-3): 1 of 2 paths up"},
		{Subject: "sda", Observed: "sda1: corrupt 3"},
	}
	if got, want := joinTexts(per, func(t SubjectText) string { return t.Observed }), "mpatha (dm-2): 1 of 2 paths up; mpathb (dm-3): 1 of 2 paths up; sda: sda1: corrupt 3"; got != want {
		t.Errorf("observed = %q, want %q", got, want)
	}
}

// Each hit keeps its own subject's environment: the next subject's never
// shows through a hit judged before.
func TestHitsKeepTheirOwnEnvironment(t *testing.T) {
	ds, _ := LoadDatasheets("")
	e, err := NewEngine(ds)
	if err != nil {
		t.Fatal(err)
	}
	r, err := parseRule([]byte("id: own\ntitle: t\nsubject: device\nseverity: warning\nwhen: 'wear > 1'\nwhy: w\nimpact: i\nexpected: e\nobserved: '{{.subject}} wear {{.wear}}'\n"))
	if err != nil {
		t.Fatal(err)
	}
	e.Rules = []*Rule{r}
	res := &checks.Result{Observations: []*checks.Observation{
		device("sda", map[string]any{"wear": 2}), device("sdb", map[string]any{"wear": 0}), device("sdc", map[string]any{"wear": 3, "extra": true})}}
	rep, err := e.Build(res, "/")
	if err != nil {
		t.Fatal(err)
	}
	if len(rep.Findings) != 1 {
		t.Fatalf("findings: %+v", rep.Findings)
	}
	var got []string
	for _, p := range rep.Findings[0].PerSubject {
		got = append(got, p.Subject+"="+p.Observed)
	}
	if want := "sda=sda wear 2|sdc=sdc wear 3"; strings.Join(got, "|") != want {
		t.Errorf("per-subject texts %q, want %q", strings.Join(got, "|"), want)
	}
	// Each text begins with its subject: said once (joinTexts).
	if got := rep.Findings[0].Observed; got != "sda wear 2; sdc wear 3" {
		t.Errorf("observed %q", got)
	}
}
