package checks_test

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"go.yaml.in/yaml/v3"

	"github.com/diskdoctor/diskdoctor/checks"
	"github.com/diskdoctor/diskdoctor/machine"
	"github.com/diskdoctor/diskdoctor/rules"
)

// Expectation is a recording's expect.yaml: the verdict and findings a
// person wrote down from its README before the doctor ran on it. The
// doctor's report is compared with it, never with its own golden file.
type Expectation struct {
	Verdict  verdictList     `yaml:"verdict"`
	Findings []expectFinding `yaml:"findings"`
	Optional []expectFinding `yaml:"optional"`
	Info     []expectFinding `yaml:"info"`
	// Attribution (kernel-log captures): the disks each name in the log
	// belongs to, as the capture shows (ata1.01 -> [sda]; [] for none).
	Attribution map[string][]string `yaml:"attribution"`
	// Recorded machines: devices that must carry no finding (pseudo, loop,
	// dm, zram, optical), and devices that must be recognised as a guest's
	// virtual disk.
	Unjudged []string `yaml:"unjudged"`
	Virtual  []string `yaml:"virtual"`
}

type expectFinding struct {
	Rule     string   `yaml:"rule"`
	Severity string   `yaml:"severity"` // "": warning or critical
	Subjects []string `yaml:"subjects"`
}

// verdictList is one verdict or a list of the ones allowed.
type verdictList []string

func (v *verdictList) UnmarshalYAML(n *yaml.Node) error {
	if n.Kind == yaml.ScalarNode {
		*v = []string{n.Value}
		return nil
	}
	var l []string
	if err := n.Decode(&l); err != nil {
		return err
	}
	*v = l
	return nil
}

func readExpectation(path string) (*Expectation, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	dec := yaml.NewDecoder(bytes.NewReader(b))
	dec.KnownFields(true)
	var e Expectation
	if err := dec.Decode(&e); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	if len(e.Verdict) == 0 {
		return nil, fmt.Errorf("%s: no verdict", path)
	}
	for _, v := range e.Verdict {
		if v != rules.VerdictOK && v != rules.VerdictWarning && v != rules.VerdictCritical {
			return nil, fmt.Errorf("%s: verdict %q", path, v)
		}
	}
	for _, f := range slices.Concat(e.Findings, e.Optional, e.Info) {
		if f.Rule == "" || len(f.Subjects) == 0 {
			return nil, fmt.Errorf("%s: finding %+v needs a rule and subjects", path, f)
		}
	}
	return &e, nil
}

// compareExpectation lists every way a report differs from what was
// written down; nil when it agrees.
func compareExpectation(e *Expectation, rep *rules.Report) []string {
	var diffs []string
	if !slices.Contains(e.Verdict, rep.Verdict) {
		diffs = append(diffs, fmt.Sprintf("verdict %s, want %s", rep.Verdict, strings.Join(e.Verdict, " or ")))
	}
	type key struct{ rule, sev string }
	got := map[key]map[string]bool{} // warning and critical findings only
	for _, f := range rep.Findings {
		if f.Severity != rules.Warning && f.Severity != rules.Critical {
			continue
		}
		for _, k := range []key{{f.Rule, f.Severity}, {f.Rule, ""}} {
			if got[k] == nil {
				got[k] = map[string]bool{}
			}
			for _, s := range f.Subjects {
				got[k][s] = true
			}
		}
	}
	covered := map[key]map[string]bool{}
	cover := func(f expectFinding) {
		for _, sev := range []string{rules.Warning, rules.Critical} {
			if f.Severity == "" || f.Severity == sev {
				k := key{f.Rule, sev}
				if covered[k] == nil {
					covered[k] = map[string]bool{}
				}
				for _, s := range f.Subjects {
					covered[k][s] = true
				}
			}
		}
	}
	for _, f := range e.Findings {
		want := slices.Clone(f.Subjects)
		sort.Strings(want)
		have := keys(got[key{f.Rule, f.Severity}])
		if !slices.Equal(have, want) {
			diffs = append(diffs, fmt.Sprintf("%s %s: subjects %v, want %v", f.Rule, sevName(f.Severity), have, want))
		}
		cover(f)
	}
	for _, f := range e.Optional {
		cover(f)
	}
	for k, subjects := range got {
		if k.sev == "" {
			continue
		}
		for s := range subjects {
			if !covered[k][s] {
				diffs = append(diffs, fmt.Sprintf("unexpected %s %s on %s", k.rule, k.sev, s))
			}
		}
	}
	for _, f := range e.Info {
		found := false
		for _, g := range rep.Findings {
			if g.Rule == f.Rule && g.Severity == rules.Info {
				found = found || len(intersect(g.Subjects, f.Subjects)) == len(f.Subjects)
			}
		}
		if !found {
			diffs = append(diffs, fmt.Sprintf("no info finding %s on %v", f.Rule, f.Subjects))
		}
	}
	sort.Strings(diffs)
	return diffs
}

func sevName(s string) string {
	if s == "" {
		return "warning/critical"
	}
	return s
}

func keys(m map[string]bool) []string {
	out := []string{}
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

func intersect(a, b []string) []string {
	var out []string
	for _, x := range a {
		if slices.Contains(b, x) {
			out = append(out, x)
		}
	}
	return out
}

// strictEngine is the shipped rules with the built-in datasheets,
// strict, as examineRecorded and TestEveryRuleOnEveryMachineStrict judge
// with. It is made once for the package (parsing every rule is most of
// the cost of making one): Build only reads an engine, and no test here
// changes this one.
func strictEngine(t *testing.T) *rules.Engine {
	t.Helper()
	e, err := sharedStrictEngine()
	if err != nil {
		t.Fatal(err)
	}
	return e
}

var sharedStrictEngine = sync.OnceValues(func() (*rules.Engine, error) {
	ds, err := rules.LoadDatasheets("")
	if err != nil {
		return nil, err
	}
	e, err := rules.NewEngine(ds)
	if err != nil {
		return nil, err
	}
	e.Strict = true
	return e, nil
})

// examineRecorded runs the doctor on a recorded machine as the CLI does,
// strictly (a rule that cannot be evaluated fails), replaying a recorded
// sampling window where there is one.
func examineRecorded(t *testing.T, dir string) *rules.Report {
	t.Helper()
	h, err := machine.Recorded(dir)
	if err != nil {
		t.Fatalf("load %s: %v", dir, err)
	}
	e := strictEngine(t)
	o := checks.Options{ProbeTimeout: time.Second, Context: "auto"}
	if _, err := os.Stat(filepath.Join(dir, "samples", "window.yaml")); err == nil {
		o.Sample = 5 * time.Second
	}
	res, err := checks.Run(context.Background(), h, o)
	if err != nil {
		t.Fatal(err)
	}
	assertFactsDeclared(t, res.Observations)
	rep, err := e.Build(res, dir)
	if err != nil {
		t.Fatal(err)
	}
	return rep
}

// Every recorded machine under fixtures/ states its verdict and findings by
// hand in expect.yaml; the doctor must agree with it (issue #10 item 19). A
// fixture without one, or one that does not load, fails.
func TestFixturesMatchTheirExpectations(t *testing.T) {
	ents, err := os.ReadDir("../fixtures")
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, ent := range ents {
		dir := filepath.Join("../fixtures", ent.Name())
		if _, err := os.Stat(filepath.Join(dir, "sys")); !ent.IsDir() || err != nil {
			continue
		}
		n++
		t.Run(ent.Name(), func(t *testing.T) {
			exp, err := readExpectation(filepath.Join(dir, "expect.yaml"))
			if err != nil {
				t.Fatal(err)
			}
			agrees(t, exp, examineRecorded(t, dir))
		})
	}
	if n < 14 {
		t.Errorf("%d recorded machines under fixtures/, want at least 14", n)
	}
}

// agrees fails t with every way rep differs from exp, and then lists the
// findings it has.
func agrees(t *testing.T, exp *Expectation, rep *rules.Report) {
	t.Helper()
	diffs := compareExpectation(exp, rep)
	for _, d := range diffs {
		t.Error(d)
	}
	if len(diffs) > 0 {
		for _, f := range rep.Findings {
			t.Logf("got %s %s %v", f.Rule, f.Severity, f.Subjects)
		}
	}
}

// The comparison itself: a missing finding, an extra one, a wrong verdict
// and a wrong subject are each caught.
func TestCompareExpectation(t *testing.T) {
	exp := &Expectation{Verdict: verdictList{"critical"}, Findings: []expectFinding{{Rule: "md-degraded", Severity: "critical", Subjects: []string{"md0"}}}, Info: []expectFinding{{Rule: "io-scheduler-unsuited", Subjects: []string{"sdb"}}}}
	ok := &rules.Report{Verdict: "critical", Findings: []rules.Finding{{Rule: "md-degraded", Severity: "critical", Subjects: []string{"md0"}}, {Rule: "io-scheduler-unsuited", Severity: "info", Subjects: []string{"sdb"}}, {Rule: "x", Severity: "info", Subjects: []string{"host"}}}}
	if d := compareExpectation(exp, ok); d != nil {
		t.Errorf("agreeing report: %v", d)
	}
	for name, rep := range map[string]*rules.Report{
		"missing": {Verdict: "critical", Findings: []rules.Finding{{Rule: "io-scheduler-unsuited", Severity: "info", Subjects: []string{"sdb"}}}},
		"extra":   {Verdict: "critical", Findings: append(slices.Clone(ok.Findings), rules.Finding{Rule: "kernel-io-errors", Severity: "warning", Subjects: []string{"sdc"}})},
		"verdict": {Verdict: "warning", Findings: ok.Findings},
		"subject": {Verdict: "critical", Findings: []rules.Finding{{Rule: "md-degraded", Severity: "critical", Subjects: []string{"md1"}}, ok.Findings[1]}},
		"no info": {Verdict: "critical", Findings: ok.Findings[:1]},
	} {
		if d := compareExpectation(exp, rep); len(d) == 0 {
			t.Errorf("%s: not caught", name)
		}
	}
}
