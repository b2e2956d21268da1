package checks_test

import (
	"bytes"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
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
	// Unjudged devices (pseudo, loop, dm, zram, optical) must carry no
	// finding; Virtual ones must be recognised as a guest's disk.
	Unjudged []string `yaml:"unjudged"`
	Virtual  []string `yaml:"virtual"`
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
	var rows []string
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
			if err == nil {
				rows = append(rows, corpusRow(dir, rep))
			}
			if os.IsNotExist(err) {
				return // fixtures/ have golden files checked by cmd/diskdoctor
			}
			if err != nil {
				t.Fatal(err)
			}
			var want expectation
			dec := yaml.NewDecoder(bytes.NewReader(b))
			dec.KnownFields(true)
			if err := dec.Decode(&want); err != nil {
				t.Fatal(err)
			}
			if want.Verdict == "" {
				t.Fatal("expect.yaml states no verdict")
			}
			facts := map[string]map[string]any{}
			for _, o := range res.Observations {
				if o.Kind != checks.KindDevice {
					continue
				}
				if facts[o.Subject] == nil {
					facts[o.Subject] = map[string]any{}
				}
				for k, v := range o.Facts {
					facts[o.Subject][k] = v
				}
			}
			for _, d := range want.Unjudged {
				if f, ok := facts[d]; !ok || f["judged"] != false {
					t.Errorf("%s: judged = %v, want false (not a disk)", d, f["judged"])
				}
				for _, f := range rep.Findings {
					if slices.Contains(f.Subjects, d) {
						t.Errorf("%s: finding %s on a device that is not judged", d, f.Rule)
					}
				}
			}
			for _, d := range want.Virtual {
				if f := facts[d]; f == nil || f["virtual_disk"] != true {
					t.Errorf("%s: not recognised as a virtual disk (%v)", d, facts[d]["hypervisor"])
				}
			}
			for _, dev := range rep.Devices {
				name, _ := dev["name"].(string)
				if slices.Contains(want.Virtual, name) && dev["class"] != "virtual" {
					t.Errorf("%s: class %v, want virtual", name, dev["class"])
				}
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
	checkCorpusDoc(t, rows)
}

// corpusRow is one machine's line in docs/corpus-machines.md.
func corpusRow(dir string, rep *rules.Report) string {
	var findings, virtual, unjudged, skipped []string
	for _, f := range rep.Findings {
		findings = append(findings, f.Rule+" ("+strings.Join(f.Subjects, ", ")+")")
	}
	for _, d := range rep.Devices {
		name, _ := d["name"].(string)
		switch {
		case d["virtual_disk"] == true:
			virtual = append(virtual, name+" ("+fmt.Sprint(d["hypervisor"])+")")
		case d["judged"] == false:
			unjudged = append(unjudged, name)
		}
	}
	for _, s := range rep.Skipped {
		skipped = append(skipped, s.Check)
	}
	none := func(l []string) string {
		if len(l) == 0 {
			return "none"
		}
		return strings.Join(l, "; ")
	}
	return fmt.Sprintf("| `%s` | %s | %s | %s | %s | %s |", filepath.Base(dir), rep.Verdict, none(findings), none(virtual), none(unjudged), none(skipped))
}

// checkCorpusDoc keeps docs/corpus-machines.md equal to what the corpus
// gives (rewritten with go test ./checks -update).
func checkCorpusDoc(t *testing.T, rows []string) {
	t.Helper()
	if len(rows) == 0 {
		return
	}
	doc := "# Corpus of real machines: verdicts\n\n" +
		"Generated by `go test ./checks -run TestEveryRuleOnEveryMachineStrict -update` from `fixtures/corpus/*`; do not edit by hand. " +
		"Each machine's README names its source and licence; its `expect.yaml` (written by hand before the doctor ran) is what the test compares with.\n\n" +
		"Before the fixes of issue #10 (items 9 and 11), the three util-linux captures gave `warning`: trim-not-scheduled on sda and nvme0n1 " +
		"from a recording without `/etc` (the fstrim timer was unknown, not absent), and trim-unsupported on the scsi_debug pseudo disk sdc; " +
		"the EBS volume was judged as a physical NVMe drive (class nvme-gen3), the VMware Virtual disk as a SATA SSD; the virtio disks were already class virtual (by transport). " +
		"On the Azure (Hyper-V) data disks whose attach log says 'Write cache: disabled' it gave CRITICAL write-cache-disabled with `sdparm --set WCE=1` (issue #10 item 9); now an info note names the hypervisor setting and offers no command.\n\n" +
		"| machine | verdict | findings | virtual disks | not judged | skipped (unknown, with reasons in the report) |\n|---|---|---|---|---|---|\n" +
		strings.Join(rows, "\n") + "\n"
	p := filepath.Join("..", "docs", "corpus-machines.md")
	if f := flag.Lookup("update"); f != nil && f.Value.String() == "true" {
		if err := os.WriteFile(p, []byte(doc), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	b, err := os.ReadFile(p)
	if err != nil || string(b) != doc {
		t.Errorf("docs/corpus-machines.md is stale: go test ./checks -run TestEveryRuleOnEveryMachineStrict -update (%v)", err)
	}
}
