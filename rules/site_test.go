package rules

import (
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/diskdoctor/diskdoctor/checks"
)

func ruleIDs(t *testing.T) []string {
	t.Helper()
	rs, err := Load()
	if err != nil {
		t.Fatal(err)
	}
	var ids []string
	for _, r := range rs {
		ids = append(ids, r.ID)
	}
	return ids
}

// Every mistake in a site file is refused at its line and column: a
// waiver that silently does not apply would leave the alert the site
// meant to keep, or mute one it did not mean to.
func TestSiteFileMistakesNameLineAndColumn(t *testing.T) {
	ids := ruleIDs(t)
	for _, tt := range []struct{ text, want string }{
		{"waive:\n  - rule: write-cache-disabled\n", "site.yaml:2:5: the waiver of write-cache-disabled needs a reason"},
		{"waive:\n  - rule: write-cache-disabld\n    reason: x\n", `site.yaml:2:11: no rule "write-cache-disabld"`},
		{"waive:\n  - rule: write-cache-disabld\n    reason: x\n", `did you mean "write-cache-disabled"?`},
		{"waive:\n  - rule: write-cache-disabled\n    reasn: x\n", `site.yaml:3:5: a waiver: unknown key "reasn"`},
		{"waive:\n  - rule: write-cache-disabled\n    reason: x\n    until: 2027-13-01\n", `site.yaml:4:12: until "2027-13-01": not a date`},
		{"waive:\n  - rule: write-cache-disabled\n    reason: x\n    devices: sda\n", "site.yaml:4:14: devices must be a list"},
		{"waive:\n  - rule: write-cache-disabled\n    reason: x\n    devices: []\n", "site.yaml:4:14: devices is empty"},
		{"severity:\n  io-scheduler-unsuited: loud\n", `site.yaml:2:26: severity of io-scheduler-unsuited: "loud" is not critical, warning or info`},
		{"severity:\n  io-scheduler-unsuitd: info\n", `site.yaml:2:3: no rule "io-scheduler-unsuitd"`},
		{"waiver:\n  - rule: x\n", `site.yaml:1:1: the site file: unknown key "waiver"`},
		{"waive:\n  - rule: a\n    reason: b: c\n", "site.yaml:3: mapping values are not allowed"},
		{"waive: {rule: a}\n", "site.yaml:1:8: waive must be a list"},
	} {
		_, err := ParseSite("site.yaml", []byte(tt.text), ids)
		var fe *FileError
		if !errors.As(err, &fe) || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%q: error %v, want a FileError containing %q", tt.text, err, tt.want)
		}
	}
	site, err := ParseSite("site.yaml", []byte("# nothing yet\n"), ids)
	if err != nil || len(site.Waivers) != 0 {
		t.Errorf("a file of comments: %v %v", site, err)
	}
}

// The example the package ships (docs/examples) parses, and its site rule
// loads: a copied example must work.
func TestShippedExamplesLoad(t *testing.T) {
	b, err := os.ReadFile(filepath.Join("..", "docs", "examples", "diskdoctor.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	site, err := ParseSite("diskdoctor.yaml", b, ruleIDs(t))
	if err != nil || len(site.Waivers) != 2 || site.Severity["io-scheduler-unsuited"].Severity != Warning {
		t.Fatalf("example site file: %+v, %v", site, err)
	}
	files, _ := filepath.Glob(filepath.Join("..", "docs", "examples", "rules.d", "*.yaml"))
	if len(files) == 0 {
		t.Fatal("no example site rule")
	}
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := ParseSiteRule(f, b, map[string]string{}); err != nil {
			t.Error(err)
		}
	}
}

// A waiver names its subjects by kernel name, by-id link, serial or WWN;
// what it waives leaves the findings that count, and is listed apart with
// its waiver; an expired waiver waives nothing and says so; a waiver for
// no finding is unmatched.
func TestWaiversAndSeverities(t *testing.T) {
	off := map[string]any{"wc_on": false, "wc_supported": true, "wc_kernel_on": false, "wc_drive_enabled": false}
	var obs []*checks.Observation
	for i, n := range []string{"sda", "sdb", "sdc", "sdd", "sde"} {
		o := device(n, off)
		o.Set("serial", "SER"+n)
		o.Set("wwn", "0x5001b448b9e1a4c"+string(rune('0'+i)))
		o.Set("by_id", []string{"/dev/disk/by-id/ata-WDC_" + n, "/dev/disk/by-id/wwn-0x5001b448b9e1a4c" + string(rune('0'+i))})
		obs = append(obs, o)
	}
	site, err := ParseSite("/etc/diskdoctor/diskdoctor.yaml", []byte(`waive:
  - rule: write-cache-disabled
    devices: [sda, ata-WDC_sdb, /dev/disk/by-id/ata-WDC_sdb, serSDC, naa.5001B448B9E1A4C3]
    reason: "accepted: shelf replaced in March"
    until: 2027-03-01
  - rule: write-cache-disabled
    devices: [sde]
    reason: "was accepted"
    until: 2026-11-30
  - rule: trim-not-scheduled
    reason: "no finding of it here"
severity:
  write-cache-disabled: warning
`), ruleIDs(t))
	if err != nil {
		t.Fatal(err)
	}
	e := strictEngine(t)
	e.Site = site
	e.Now = func() time.Time { return time.Date(2026, 12, 1, 12, 0, 0, 0, time.Local) }
	rep, err := e.Build(&checks.Result{Observations: obs}, "/")
	if err != nil {
		t.Fatal(err)
	}
	var counted *Finding
	for i, f := range rep.Findings {
		if f.Rule == "write-cache-disabled" {
			counted = &rep.Findings[i]
		}
	}
	if counted == nil || !slices.Equal(counted.Subjects, []string{"sde"}) || counted.Severity != Warning || counted.SeveritySetBy != "/etc/diskdoctor/diskdoctor.yaml:13" || counted.Waived {
		t.Fatalf("counted finding: %+v", counted)
	}
	if rep.Verdict != VerdictWarning {
		t.Errorf("verdict %s, want warning (the site's severity, sde's waiver expired)", rep.Verdict)
	}
	if len(rep.WaivedFindings) != 1 {
		t.Fatalf("waived findings: %+v", rep.WaivedFindings)
	}
	w := rep.WaivedFindings[0]
	if !w.Waived || w.Waiver == nil || w.Waiver.Reason != "accepted: shelf replaced in March" || !slices.Equal(w.Subjects, []string{"sda", "sdb", "sdc", "sdd"}) {
		t.Errorf("waived finding: %+v %+v", w, w.Waiver)
	}
	var states []string
	for _, s := range rep.Waivers {
		states = append(states, s.State)
	}
	if !slices.Equal(states, []string{WaiverApplied, WaiverExpired, WaiverUnmatched}) {
		t.Errorf("waiver states %v", states)
	}
	// The day it ends is still waived: until is the last day.
	e.Now = func() time.Time { return time.Date(2027, 3, 1, 23, 59, 0, 0, time.Local) }
	if rep, _ := e.Build(&checks.Result{Observations: obs}, "/"); rep.Waivers[0].State != WaiverApplied {
		t.Errorf("on its last day the waiver is %s", rep.Waivers[0].State)
	}
	e.Now = func() time.Time { return time.Date(2027, 3, 2, 0, 0, 0, 0, time.Local) }
	rep, _ = e.Build(&checks.Result{Observations: obs}, "/")
	if rep.Waivers[0].State != WaiverExpired || len(rep.WaivedFindings) != 0 || len(rep.Findings[0].Subjects) != 5 {
		t.Errorf("the day after: %s, %d waived, %v", rep.Waivers[0].State, len(rep.WaivedFindings), rep.Findings[0].Subjects)
	}
}

// A site's own rule is checked at load time: the facts it reads, its
// expressions, its id; each mistake at its line.
func TestSiteRuleMistakes(t *testing.T) {
	good := "id: site-x\ntitle: t\nsubject: device\nseverity: warning\nwhen: transport == \"usb\"\nholds: h\nwhy: w\nimpact: i\nexpected: e\nevidence: [transport]\n"
	r, err := ParseSiteRule("/etc/diskdoctor/rules.d/site-x.yaml", []byte(good), map[string]string{})
	if err != nil || r.Origin != "/etc/diskdoctor/rules.d/site-x.yaml" || r.Area() != SiteArea {
		t.Fatalf("a good rule: %v, %v", r, err)
	}
	for _, tt := range []struct{ file, text, want string }{
		{"site-x.yaml", strings.Replace(good, `transport == "usb"`, `transprt == "usb"`, 1), `site-x.yaml:5:7: rule site-x: when reads "transprt", which no check gives`},
		{"site-x.yaml", strings.Replace(good, `transport == "usb"`, `host.cpu_governr == "x"`, 1), `when reads "host.cpu_governr"`},
		{"site-x.yaml", strings.Replace(good, `transport == "usb"`, `transport ==`, 1), "site-x.yaml:5:7: when: "},
		{"site-x.yaml", strings.Replace(good, "severity: warning", "severity: loud", 1), "site-x.yaml:4:11: severity must be"},
		{"site-x.yaml", good + "colour: red\n", "site-x.yaml:11: field colour not found"},
		{"site-y.yaml", good, `site-y.yaml:1:5: id "site-x" must match the file name`},
		{"write-cache-disabled.yaml", strings.Replace(good, "site-x", "write-cache-disabled", 1), `rule "write-cache-disabled" is already defined (built-in)`},
		{"site-x.yaml", good + "remediation:\n  - command: x\n    risk: destructive\n", "site-x.yaml:12:5: remediation 1: a destructive command needs a note"},
	} {
		_, err := ParseSiteRule(tt.file, []byte(tt.text), map[string]string{"write-cache-disabled": BuiltIn})
		var fe *FileError
		if !errors.As(err, &fe) || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%s: error %v, want a FileError containing %q", tt.want, err, tt.want)
		}
	}
}
