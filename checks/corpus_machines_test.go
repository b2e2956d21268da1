package checks_test

import (
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"gopkg.in/yaml.v3"

	"github.com/diskdoctor/diskdoctor/checks"
	"github.com/diskdoctor/diskdoctor/probes"
	"github.com/diskdoctor/diskdoctor/rules"
)

// expectation is a recorded machine's verdict and rule ids, written by hand
// before the doctor was run on it (fixtures/corpus/<name>/expect.yaml).
type expectation struct {
	Verdict string   `yaml:"verdict"`
	Rules   []string `yaml:"rules"`
}

// machines lists every recorded machine: the fixtures and the corpus.
func machines(t *testing.T) []string {
	t.Helper()
	var out []string
	for _, pat := range []string{"../fixtures/*/sys", "../fixtures/corpus/*/sys"} {
		m, _ := filepath.Glob(pat)
		for _, s := range m {
			out = append(out, filepath.Dir(s))
		}
	}
	if len(out) == 0 {
		t.Fatal("no recorded machines under fixtures/")
	}
	return out
}

// Every shipped rule is evaluated on every recorded machine in strict mode:
// a rule expression that fails on real facts fails here (issue #10 item
// 17). Corpus machines are compared with their hand-written expectations.
func TestEveryRuleOnEveryMachineStrict(t *testing.T) {
	ds, err := rules.LoadDatasheets("")
	if err != nil {
		t.Fatal(err)
	}
	for _, dir := range machines(t) {
		t.Run(filepath.Base(dir), func(t *testing.T) {
			h, err := probes.Recorded(dir)
			if err != nil {
				t.Fatal(err)
			}
			res, err := checks.Run(t.Context(), h, checks.Options{ProbeTimeout: time.Second})
			if err != nil {
				t.Fatal(err)
			}
			e, err := rules.NewEngine(ds)
			if err != nil {
				t.Fatal(err)
			}
			e.Strict = true
			rep, err := e.Build(res, dir)
			if err != nil {
				t.Fatalf("strict evaluation: %v", err)
			}
			b, err := os.ReadFile(filepath.Join(dir, "expect.yaml"))
			if os.IsNotExist(err) {
				return // fixtures/ have golden files checked by cmd/diskdoctor
			}
			if err != nil {
				t.Fatal(err)
			}
			var want expectation
			if err := yaml.Unmarshal(b, &want); err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, f := range rep.Findings {
				got = append(got, f.Rule)
			}
			slices.Sort(got)
			slices.Sort(want.Rules)
			if rep.Verdict != want.Verdict || !slices.Equal(slices.Compact(got), want.Rules) {
				t.Errorf("verdict %s %v, want %s %v", rep.Verdict, got, want.Verdict, want.Rules)
			}
		})
	}
}
