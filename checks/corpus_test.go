package checks_test

import (
	"bytes"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"testing"
	"time"

	"go.yaml.in/yaml/v3"

	"github.com/diskdoctor/diskdoctor/checks"
	"github.com/diskdoctor/diskdoctor/internal/fixturetest"
	"github.com/diskdoctor/diskdoctor/machine"
	"github.com/diskdoctor/diskdoctor/probes/block"
	"github.com/diskdoctor/diskdoctor/probes/kernlog"
	"github.com/diskdoctor/diskdoctor/probes/smart"
	"github.com/diskdoctor/diskdoctor/rules"
)

// The real-world corpus (fixtures/corpus/<name>/): captures nobody here
// wrote (kernel logs from mailing lists and bug trackers, smartctl JSON
// from other projects' test data, /proc/mdstat and zpool status from
// incident reports), each with the verdict a person wrote down from its
// README before the doctor ran on it (expect.yaml). docs/corpus.md lists
// them. Each capture is replayed through its parser, the check that
// reads it and the rules that judge it, strictly.

const corpusDir = "../fixtures/corpus"

// corpusRules judge the corpus: the rules whose facts a capture of one
// kind can give.
var corpusRules = []string{
	"kernel-io-errors", "kernel-hung-tasks", "kernel-thermal-throttling", "kernel-device-gone",
	"smart-failing", "smart-link-errors", "smart-temperature",
	"md-degraded", "md-inactive", "md-background-work", "md-sync-pending", "md-failed-device", "md-mismatch-count",
	"zfs-pool-unhealthy", "zfs-background-work",
}

// corpusInventory is what the capture implies about the machine's disks
// (inventory.yaml): the names sysfs held when the capture was taken. It is
// never more than the capture says (a log naming nvme7n1p2 as a surviving
// mirror implies nvme7n1 was there).
type corpusInventory struct {
	Disks []struct {
		Name      string `yaml:"name"`
		Transport string `yaml:"transport"`
	} `yaml:"disks"`
}

func readInventory(t *testing.T, dir string) *corpusInventory {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(dir, "inventory.yaml"))
	if os.IsNotExist(err) {
		return nil
	}
	if err != nil {
		t.Fatal(err)
	}
	dec := yaml.NewDecoder(bytes.NewReader(b))
	dec.KnownFields(true)
	var inv corpusInventory
	if err := dec.Decode(&inv); err != nil {
		t.Fatalf("inventory.yaml: %v", err)
	}
	return &inv
}

// corpusEntry lists the capture files a corpus entry may hold.
var corpusCaptures = []string{"dmesg.txt", "smartctl.json", "mdstat", "zpool-status.txt"}

func TestCorpus(t *testing.T) {
	ents, err := os.ReadDir(corpusDir)
	if err != nil {
		t.Fatal(err)
	}
	e := engineWith(t, corpusRules...)
	kinds := map[string]int{}
	for _, ent := range ents {
		if !ent.IsDir() {
			continue
		}
		dir := filepath.Join(corpusDir, ent.Name())
		if _, err := os.Stat(filepath.Join(dir, "sys")); err == nil {
			continue // a recorded machine: TestEveryRuleOnEveryMachineStrict replays it whole
		}
		t.Run(ent.Name(), func(t *testing.T) {
			if _, err := os.Stat(filepath.Join(dir, "README.md")); err != nil {
				t.Fatal("no README.md (source, licence, what it shows)")
			}
			exp, err := readExpectation(filepath.Join(dir, "expect.yaml"))
			if err != nil {
				t.Fatal(err)
			}
			var capture string
			for _, c := range corpusCaptures {
				if _, err := os.Stat(filepath.Join(dir, c)); err == nil {
					if capture != "" {
						t.Fatalf("two captures: %s and %s", capture, c)
					}
					capture = c
				}
			}
			if capture == "" {
				t.Fatalf("no capture (one of %v)", corpusCaptures)
			}
			kinds[capture]++
			b, err := os.ReadFile(filepath.Join(dir, capture))
			if err != nil {
				t.Fatal(err)
			}
			inv := readInventory(t, dir)
			var res *checks.Result
			switch capture {
			case "dmesg.txt":
				var topo *kernlog.Topology
				res, topo = replayKernelLog(t, b, inv)
				checkAttribution(t, exp.Attribution, topo)
			case "smartctl.json":
				res = replaySmartctl(t, b, inv)
			case "mdstat":
				res = replayMDStat(t, b)
			case "zpool-status.txt":
				res = replayZpool(t, b)
			}
			fs, err := e.Judge(res)
			if err != nil {
				t.Fatal(err)
			}
			rep := &rules.Report{Verdict: rules.VerdictOK, Findings: fs}
			for _, f := range fs {
				switch {
				case f.Severity == rules.Critical:
					rep.Verdict = rules.VerdictCritical
				case f.Severity == rules.Warning && rep.Verdict == rules.VerdictOK:
					rep.Verdict = rules.VerdictWarning
				}
			}
			diffs := compareExpectation(exp, rep)
			for _, d := range diffs {
				t.Error(d)
			}
			// What the findings say holds against the capture's facts, as
			// report's TestEveryMachineSaysOnlyWhatItsFactsShow holds it
			// for whole machines.
			for _, c := range fixturetest.Contradictions(claimsOf(fs), factsOf(res), nil, "") {
				t.Error(c)
			}
			for _, f := range fs {
				t.Logf("%s %s %v: %s", f.Rule, f.Severity, f.Subjects, f.Observed)
			}
		})
	}
	if n := kinds["dmesg.txt"] + kinds["smartctl.json"] + kinds["mdstat"] + kinds["zpool-status.txt"]; n < 20 {
		t.Errorf("%d captures in the corpus (%v), want at least 20", n, kinds)
	}
}

// claimsOf is what fixturetest.Contradictions reads of findings.
func claimsOf(fs []rules.Finding) []fixturetest.Finding {
	var out []fixturetest.Finding
	for _, f := range fs {
		texts := map[string]string{}
		for _, p := range f.PerSubject {
			texts[p.Subject] = p.Impact + " " + p.Observed
		}
		out = append(out, fixturetest.Finding{Rule: f.Rule, Title: f.Title, Subjects: f.Subjects, Texts: texts, Notes: f.Notes})
	}
	return out
}

// factsOf merges a run's observations by subject.
func factsOf(res *checks.Result) fixturetest.Facts {
	facts := fixturetest.Facts{"host": {}}
	for _, o := range res.Observations {
		if facts[o.Subject] == nil {
			facts[o.Subject] = map[string]any{}
		}
		for _, f := range o.Facts() {
			facts[o.Subject][f.Name] = f.Value
		}
	}
	return facts
}

// replayKernelLog: the log through the parser, the topology (sysfs as the
// capture implies it, and the log's own probe messages), the kernel-log
// check's observations and a stand-in for the inventory check.
func replayKernelLog(t *testing.T, b []byte, inv *corpusInventory) (*checks.Result, *kernlog.Topology) {
	t.Helper()
	k := &kernlog.Log{Source: "dmesg", Lines: kernlog.Parse(b)}
	if len(k.Lines) == 0 {
		t.Fatal("no lines")
	}
	var judged []string
	transport := map[string]string{}
	topo := &kernlog.Topology{}
	if inv != nil {
		var devs []*block.Device
		for _, d := range inv.Disks {
			bd := &block.Device{Name: d.Name, Transport: d.Transport}
			if d.Transport == "nvme" {
				bd.Controllers = []string{nvmeNamespace.ReplaceAllString(d.Name, "$1")}
			}
			devs = append(devs, bd)
			judged = append(judged, d.Name)
			transport[d.Name] = d.Transport
		}
		topo = kernlog.NewTopology(devs, nil)
	}
	topo.LearnFromLog(k)
	if inv == nil {
		// A log read on its own: the disks it names are the ones judged.
		seen := map[string]bool{}
		for _, ev := range kernlog.Classify(k, topo, -1) {
			for _, d := range ev.Devices {
				seen[d] = true
			}
		}
		for d := range topo.Disks {
			seen[d] = true
		}
		for d := range seen {
			judged = append(judged, d)
		}
		sort.Strings(judged)
	}
	var obs []*checks.Observation
	for _, d := range judged {
		tr := transport[d]
		if tr == "" {
			tr = topo.Transport[d]
		}
		if tr == "" {
			tr = "sata"
			if strings.HasPrefix(d, "nvme") {
				tr = "nvme"
			}
		}
		obs = append(obs, inventory(d, tr))
	}
	obs = append(obs, checks.KernelLogObservations(k, topo, -1, judged)...)
	return &checks.Result{Observations: obs}, topo
}

// checkAttribution compares which disks the log's names were attributed
// to (ata1.01, nvme0c0n1, nvme9) with what the capture shows.
func checkAttribution(t *testing.T, want map[string][]string, topo *kernlog.Topology) {
	t.Helper()
	for ref, disks := range want {
		kind := kernlog.RefBlock
		switch {
		case strings.HasPrefix(ref, "ata"):
			kind = kernlog.RefATA
		case nvmeCtrl.MatchString(ref):
			kind = kernlog.RefNVMe
		}
		got := topo.Attribute(kind, ref)
		if strings.Join(got, ",") != strings.Join(disks, ",") {
			t.Errorf("%s attributed to %v, want %v", ref, got, disks)
		}
	}
}

var nvmeCtrl = regexp.MustCompile(`^nvme\d+$`)

var nvmeNamespace = regexp.MustCompile(`^(nvme\d+)n\d+$`)

// replaySmartctl: the JSON through the parser and the SMART check's
// observation, on the device the capture names (inventory.yaml).
func replaySmartctl(t *testing.T, b []byte, inv *corpusInventory) *checks.Result {
	t.Helper()
	if inv == nil || len(inv.Disks) != 1 {
		t.Fatal("a smartctl capture needs inventory.yaml with its one disk (name, transport)")
	}
	s, err := smart.ParseJSON(b)
	if err != nil {
		t.Fatal(err)
	}
	d := inv.Disks[0]
	s.Source = "smartctl.json"
	return &checks.Result{Observations: []*checks.Observation{inventory(d.Name, d.Transport), checks.SMARTObservation(d.Name, s)}}
}

// replayMDStat: /proc/mdstat through procfs' parser and the md check.
func replayMDStat(t *testing.T, b []byte) *checks.Result {
	t.Helper()
	arrays, err := readMDStat(t, b)
	if err != nil {
		t.Fatal(err)
	}
	if len(arrays) == 0 {
		t.Fatal("no arrays")
	}
	return &checks.Result{Observations: checks.MDObservations(arrays, nil, func(*block.Device) bool { return true })}
}

// runRecorded runs every check but smart on the recorded machine at root
// (smart would only report each missing smartctl answer).
func runRecorded(t *testing.T, root string) *checks.Result {
	t.Helper()
	h, err := machine.Recorded(root)
	if err != nil {
		t.Fatal(err)
	}
	res, err := checks.Run(t.Context(), h, checks.Options{ProbeTimeout: time.Second, Disabled: []string{"smart"}})
	if err != nil {
		t.Fatal(err)
	}
	return res
}

// replayZpool: zpool status as the recorded output of `zpool status -P -t`
// on an otherwise empty machine with ZFS loaded, through the whole check
// run.
func replayZpool(t *testing.T, b []byte) *checks.Result {
	t.Helper()
	root := t.TempDir()
	for _, d := range []string{"sys/block", "sys/module/zfs/parameters", "commands"} {
		if err := os.MkdirAll(filepath.Join(root, d), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	write(t, filepath.Join(root, "commands", "status.txt"), string(b))
	write(t, filepath.Join(root, "commands", "manifest.yaml"), "- argv: [zpool, status, -P, -t]\n  stdout: status.txt\n")
	res := runRecorded(t, root)
	for _, s := range res.Skipped {
		if s.Check == "zpool-status" {
			t.Fatalf("zpool status skipped: %s", s.Reason)
		}
	}
	return res
}
