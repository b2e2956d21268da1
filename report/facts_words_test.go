package report

import (
	"bytes"
	"encoding/json"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/diskdoctor/diskdoctor/checks"
	"github.com/diskdoctor/diskdoctor/internal/fixturetest"
	"github.com/diskdoctor/diskdoctor/rules"
)

// recordedMachines are every recorded machine: the fixtures and the
// corpus's whole machines (its captures are replayed by checks'
// TestCorpus), by their path under fixtures/.
func recordedMachines(t *testing.T) []string {
	t.Helper()
	out := fixtures(t)
	m, _ := filepath.Glob(filepath.Join(fixturesDir, "corpus", "*", "sys"))
	for _, s := range m {
		out = append(out, filepath.Join("corpus", filepath.Base(filepath.Dir(s))))
	}
	return out
}

// examineWithFacts is a recorded machine's report as the golden tests
// have it, with the facts it was judged from: every subject's, with
// what the engine added (class, datasheet facts).
func examineWithFacts(t *testing.T, name string) (*rules.Report, fixturetest.Facts) {
	t.Helper()
	res := examination(t, name, hasWindow(name))
	facts := fixturetest.Facts{"host": {}}
	for _, ob := range res.Checks.Observations {
		if facts[ob.Subject] == nil {
			facts[ob.Subject] = map[string]any{}
		}
		for _, f := range ob.Facts() {
			facts[ob.Subject][f.Name] = f.Value
		}
	}
	for _, d := range append(slices.Clone(res.Report.Devices), res.Report.Controllers...) {
		name, _ := d["name"].(string)
		if facts[name] == nil {
			facts[name] = map[string]any{}
		}
		for k, v := range d {
			facts[name][k] = v
		}
	}
	return res.Report, facts
}

// TestEveryMachineSaysOnlyWhatItsFactsShow runs every recorded machine
// through the doctor and holds what its text (default and -v) and JSON
// reports say against the facts they were judged from: no failed battery
// beside a healthy one, no failing-health title where the health check
// passed, no NEVER in the TRIM column where nothing is left untrimmed or
// the schedule was not read, no rule both found and checked and fine on a
// subject (or on the controller of a volume it found), no note that points
// at a finding the wrong way, no figure quoted for a device class or host
// it was not measured on, no lost redundancy on an ONLINE pool, no long
// md pass left uncalled stalled, no platform note for another generation.
func TestEveryMachineSaysOnlyWhatItsFactsShow(t *testing.T) {
	for _, name := range recordedMachines(t) {
		t.Run(name, func(t *testing.T) {
			rep, facts := examineWithFacts(t, name)
			passed := map[string][]string{}
			for _, p := range rep.Passed {
				passed[p.Rule] = p.Subjects
			}
			// The findings as the engine made them, each subject's texts
			// its own.
			var fs []fixturetest.Finding
			for _, f := range rep.Findings {
				texts := map[string]string{}
				for _, p := range f.PerSubject {
					texts[p.Subject] = p.Impact + " " + p.Observed
				}
				fs = append(fs, fixturetest.Finding{Rule: f.Rule, Title: f.Title, Subjects: f.Subjects, Texts: texts, Notes: f.Notes})
			}
			for _, c := range fixturetest.Contradictions(fs, facts, passed, rep.Host.Platform) {
				t.Error(c)
			}
			// The JSON, as a program reads it.
			var b bytes.Buffer
			if err := renderJSON(&b, rep, RunInfo{}); err != nil {
				t.Fatal(err)
			}
			var doc struct {
				Findings []struct {
					Rule, Title, Impact, Observed string
					Subjects                      []string
					Notes                         []string
				}
				Passed []rules.Passed
			}
			if err := json.Unmarshal(b.Bytes(), &doc); err != nil {
				t.Fatal(err)
			}
			var jfs []fixturetest.Finding
			for _, f := range doc.Findings {
				imp, obs := fixturetest.PerSubject(f.Impact, f.Subjects), fixturetest.PerSubject(f.Observed, f.Subjects)
				texts := map[string]string{}
				for _, s := range f.Subjects {
					texts[s] = imp[s] + " " + obs[s]
				}
				jfs = append(jfs, fixturetest.Finding{Rule: f.Rule, Title: f.Title, Subjects: f.Subjects, Texts: texts, Notes: f.Notes})
			}
			jpassed := map[string][]string{}
			for _, p := range doc.Passed {
				jpassed[p.Rule] = p.Subjects
			}
			for _, c := range fixturetest.Contradictions(jfs, facts, jpassed, rep.Host.Platform) {
				t.Error("JSON: " + c)
			}
			checkShortLines(t, rep, facts)
			for _, o := range []textOptions{{width: 80}, {width: 80, verbose: true}} {
				text := textOf(t, rep, o)
				what := "text"
				if o.verbose {
					what = "-v text"
				}
				checkTrimColumn(t, what, text, rep)
				checkPassedText(t, what, text, rep, facts, o.verbose)
			}
		})
	}
}

// checkShortLines: the line a finding gets on the first screen (the first
// clause of its observation and of its expectation) is made of the full
// text's words, none cut ("member(s)" is not "member"); it names every
// SMART attribute that rose and every md member marked failed.
func checkShortLines(t *testing.T, rep *rules.Report, facts fixturetest.Facts) {
	t.Helper()
	words := func(s string) map[string]bool {
		m := map[string]bool{}
		for _, w := range strings.Fields(s) {
			m[strings.Trim(w, ",;:.")] = true
		}
		return m
	}
	for _, f := range rep.Findings {
		for _, p := range f.PerSubject {
			for _, full := range []string{p.Observed, p.Expected} {
				all := words(full)
				for w := range words(firstClause(full)) {
					if !all[w] {
						t.Errorf("%s on %s: the short line %q has %q, which is no word of %q", f.Rule, p.Subject, firstClause(full), w, full)
					}
				}
			}
			if f.Rule == "md-failed-device" || f.Rule == "md-degraded" {
				failed, _ := facts[p.Subject]["md_failed_members"].([]string)
				for _, m := range failed {
					if short := firstClause(p.Observed); !strings.Contains(short, m) {
						t.Errorf("%s on %s: the short line %q leaves out the failed member %s", f.Rule, p.Subject, short, m)
					}
				}
			}
		}
	}
	for _, f := range rep.Findings {
		if f.Rule != "smart-failing" {
			continue
		}
		for _, p := range f.PerSubject {
			short := firstClause(p.Observed)
			ws, _ := facts[p.Subject]["smart_warnings"].([]string)
			for _, w := range ws {
				if !strings.Contains(short, w) {
					t.Errorf("%s on %s: the short line %q leaves out %q", f.Rule, p.Subject, short, w)
				}
			}
		}
	}
}

// checkTrimColumn: a device table row says NEVER only for a disk that
// holds something nothing trims, in a run that read the trim schedule.
func checkTrimColumn(t *testing.T, what string, text []byte, rep *rules.Report) {
	t.Helper()
	unread := slices.ContainsFunc(rep.Skipped, func(s checks.Skipped) bool { return s.Check == "trim schedule" })
	for _, d := range rep.Devices {
		name, _ := d["name"].(string)
		row := regexp.MustCompile(`(?m)^` + regexp.QuoteMeta(name) + ` .*\bNEVER\b`)
		if !row.Match(text) {
			continue
		}
		uncovered, _ := d["trim_uncovered"].([]string)
		switch {
		case unread:
			t.Errorf("%s: TRIM NEVER on %s, but the trim schedule was not read", what, name)
		case len(uncovered) == 0:
			t.Errorf("%s: TRIM NEVER on %s, which holds nothing left untrimmed", what, name)
		}
	}
}

// passedItem is one "area (subjects)" or "rule (subjects)" of the
// checked-and-fine lines.
var passedItem = regexp.MustCompile(`([a-zA-Z][a-zA-Z0-9 -]*) \(([^()]*)\)`)

// checkPassedText: the checked-and-fine lines name no subject of a
// finding in the same area (default) or of the same rule (-v), nor the
// controller of a volume it found.
func checkPassedText(t *testing.T, what string, text []byte, rep *rules.Report, facts fixturetest.Facts, verbose bool) {
	t.Helper()
	_, section, ok := bytes.Cut(text, []byte("Checked and fine"))
	if !ok {
		return
	}
	if i := bytes.Index(section, []byte("\n\n")); i >= 0 {
		section = section[:i]
	}
	flat := strings.Join(strings.Fields(string(section)), " ")
	listed := map[string][]string{}
	for _, m := range passedItem.FindAllStringSubmatch(flat, -1) {
		key := strings.TrimSpace(m[1])
		if i := strings.LastIndex(key, ": "); i >= 0 {
			key = key[i+2:]
		}
		listed[key] = append(listed[key], strings.Split(m[2], ", ")...)
	}
	for _, f := range rep.Findings {
		key := rules.AreaOf(f.Rule)
		if verbose {
			key = f.Rule
		}
		for _, s := range f.Subjects {
			named := []string{s}
			if c, ok := facts[s]["ctl_controller"].(string); ok && facts[s]["controller_volume"] == true {
				named = append(named, c)
			}
			for _, n := range named {
				if slices.Contains(listed[key], n) {
					t.Errorf("%s: %s found on %s, and %s (%s) is checked and fine", what, f.Rule, s, key, n)
				}
			}
		}
	}
}

// TestContradictionsAreCaught: the check above fails on each kind of
// sentence it is there to stop.
func TestContradictionsAreCaught(t *testing.T) {
	facts := fixturetest.Facts{
		"host": {"role": "desktop", "cpus_at_min_fraction": 0.0},
		"sda":  {"ctl_energy_state": "ok", "ctl_energy_pack": "battery", "ctl_controller": "slot=0", "controller_volume": true},
		"sdb":  {"smart_passed": true, "smart_critical": []string{}, "class": "sata-hdd"},
		"tank": {"zfs_state": "ONLINE"},
		"md0":  {"md_action": "reshape", "md_sync_finish_min": 168083.4, "md_sync_stalled": true},
		"Data": {"zfs_scan_in_progress": true, "zfs_scan_to_go_min": 2000000.0, "zfs_scan_stalled": true},
	}
	for _, c := range []struct {
		name   string
		f      []fixturetest.Finding
		passed map[string][]string
		want   string
	}{
		{"battery", []fixturetest.Finding{{Rule: "controller-cache-unprotected", Title: "RAID controller writes back without power-loss protection", Subjects: []string{"sda"}}}, nil, "battery"},
		{"health", []fixturetest.Finding{{Rule: "smart-failing", Title: "The drive reports failing health", Subjects: []string{"sdb"}}}, nil, "failing health"},
		{"class", []fixturetest.Finding{{Rule: "write-cache-disabled", Title: "x", Subjects: []string{"sdb"}, Impact: "10-100x slower (measured on WD Red SA500 SATA SSDs)"}}, nil, "SATA SSD"},
		{"governor", []fixturetest.Finding{{Rule: "cpu-governor-powersave", Title: "x", Subjects: []string{"host"}, Impact: "measured on a Dell PowerEdge R630 with its cores at 1200 MHz"}}, nil, "parked cores"},
		{"no source", []fixturetest.Finding{{Rule: "cpu-governor-powersave", Title: "x", Subjects: []string{"host"}, Impact: "sync write latency 2-4x higher (measured: 3,050 → 10,687 IOPS)"}}, nil, "without what it was measured on"},
		{"pool", []fixturetest.Finding{{Rule: "zfs-pool-unhealthy", Title: "x", Subjects: []string{"tank"}, Impact: "redundancy reduced; retries"}}, nil, "lost redundancy"},
		{"stalled", []fixturetest.Finding{{Rule: "md-background-work", Title: "Software RAID array is resyncing", Subjects: []string{"md0"}}}, nil, "not called stalled"},
		{"passed", []fixturetest.Finding{{Rule: "controller-cache-disabled", Title: "x", Subjects: []string{"sda"}}}, map[string][]string{"controller-cache-disabled": {"slot=0"}}, "its controller"},
		{"zfs stalled", []fixturetest.Finding{{Rule: "zfs-background-work", Title: "ZFS pool is busy with background work (scrub, resilver or trim)", Subjects: []string{"Data"}}}, nil, "not called stalled"},
		{"cloudflare", []fixturetest.Finding{{Rule: "dm-crypt-workqueues", Title: "x", Subjects: []string{"sda"}, Impact: "less throughput (Cloudflare measured at least twice the throughput without them)"}}, nil, "Cloudflare"},
		{"raw bool", []fixturetest.Finding{{Rule: "btrfs-device-missing", Title: "x", Subjects: []string{"/var/media"}, Observed: "/var/media: missing devid 1; degraded mount true"}}, nil, "raw value"},
		{"note", []fixturetest.Finding{{Rule: "kernel-hung-tasks", Title: "x", Subjects: []string{"host"}, Notes: []string{"The device findings above this one are the likely cause"}}}, nil, "without naming"},
		{"note order", []fixturetest.Finding{
			{Rule: "kernel-hung-tasks", Title: "x", Subjects: []string{"host"}, Notes: []string{"The likely cause is finding 2 above (kernel-io-errors on sdb)"}},
			{Rule: "kernel-io-errors", Title: "y", Subjects: []string{"sdb"}},
		}, nil, "is above"},
	} {
		t.Run(c.name, func(t *testing.T) {
			got := strings.Join(fixturetest.Contradictions(c.f, facts, c.passed, "ProLiant DL380p Gen8"), "\n")
			if !strings.Contains(got, c.want) {
				t.Errorf("got %q, want a contradiction mentioning %q", got, c.want)
			}
		})
	}
	if got := fixturetest.Contradictions([]fixturetest.Finding{{Rule: "write-cache-disabled", Title: "x", Subjects: []string{"sda"}, Notes: []string{"HPE ProLiant (Gen10 and later): firmware"}}}, facts, nil, "ProLiant DL380p Gen8"); len(got) == 0 {
		t.Error("a Gen10 note on a Gen8 is not caught")
	}
}
