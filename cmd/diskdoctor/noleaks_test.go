package main

import (
	"bytes"
	"encoding/json"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/diskdoctor/diskdoctor/checks"
	"github.com/diskdoctor/diskdoctor/doctor"
	"github.com/diskdoctor/diskdoctor/internal/fixturetest"
	"github.com/diskdoctor/diskdoctor/machine/manifest"
	"github.com/diskdoctor/diskdoctor/report"
	"github.com/diskdoctor/diskdoctor/rules"
)

// leakPatterns are what no output of the doctor may contain: the words of
// its own source and notes, never of the machine or of a public document.
var leakPatterns = []struct {
	what string
	re   *regexp.Regexp
}{
	{"an internal document", regexp.MustCompile(`\b(?:domain|design|architecture|sample-verdicts)\.md\b|\bdocs/[\w./-]+\.md\b|\bdomain brief\b`)},
	// A section of the project's notes (§1A, §2); a public
	// specification's (USB 3.2 §9.6.2) has dotted numbers.
	{"a section of an internal document", regexp.MustCompile(`§\d+[A-Z]?(?:[^.\d]|$)`)},
	// The project's own issues ("issue #24 item 6"); another project's
	// public one ("openzfs/zfs issue 7734") is a reference.
	{"an issue number", regexp.MustCompile(`(?i)(?:^|[\s("])(?:issues?|PR) #\d+|\bissue #?\d+ item\b`)},
	{"a TODO", regexp.MustCompile(`\b(?:TODO|FIXME|XXX)\b`)},
	{"an escaped control character", regexp.MustCompile(`\\x[0-9a-f]{2}`)},
	{"a sentinel printed as a number", regexp.MustCompile(`(?:^|[\s(,:;])-1(?:[\s,;)]|$)`)},
	{"Go's own text", regexp.MustCompile(`<nil>|%!|\bmap\[|\[\](?:string|any|int)\b|&\{|\b(?:checks|rules|report|machine)\.[A-Z]\w+|\bFact[A-Z]\w+|context (?:deadline exceeded|canceled)`)},
	{"a flag without its command", regexp.MustCompile(`(?:^|[^\w-])explain --`)},
}

// capsIdent is an identifier in capitals with underscores: the doctor's
// own constants and fact names in capitals must not reach a person.
var capsIdent = regexp.MustCompile(`\b[A-Z][A-Z0-9]*(?:_[A-Z0-9]+)+\b`)

// publicNames are identifiers in capitals that rules quote from outside
// the doctor, each a name a person looks up where it is defined.
var publicNames = regexp.MustCompile(`^(?:` +
	`ID_[A-Z0-9_]+` + // udev properties (udev(7), ata_id, scsi_id)
	`|GRUB_CMDLINE_LINUX(?:_DEFAULT)?` + // /etc/default/grub
	`|O_(?:DIRECT|SYNC|DSYNC|EXCL)` + // open(2)
	`|ATA_(?:QUIRK|HORKAGE|FLAG)_[A-Z0-9_]+|NVME_QUIRK_[A-Z0-9_]+|US_FL_[A-Z0-9_]+|IGNORE_UAS` + // kernel quirk flags
	`|SD_TIMEOUT|BLK_DEF_MAX_SECTORS|(?:CONFIG_)?SATA_MOBILE_LPM_POLICY` + // kernel constants and Kconfig
	`|R_ERR` + // SATA PHY event counter name (SATA 3.x, 13.4)
	`|DID_[A-Z_]+` + // SCSI host byte (include/scsi/scsi_status.h)
	`|SPACE_LIMIT` + // snapper-configs(5)
	`|NR_STRIPES` + // drivers/md/raid5.h
	`|INACCESSIBLE_BOOT_DEVICE` + // Windows stop code
	`)$`)

// externalFacts are fact names that are also the kernel's or a tool's own
// names (sysfs files, module parameters), which a rule may quote.
var externalFacts = map[string]bool{
	"queue_depth": true, "scaling_driver": true, "zfs_immediate_write_sz": true,
	"discard_max_bytes": true, "discard_granularity": true, "max_sectors_kb": true,
	"mismatch_cnt": true, "sync_action": true, "last_sync_action": true,
}

// TestNoLeaks examines every recorded machine (fixtures and the corpus)
// and holds its text, -v and JSON reports, and every rule's explain,
// against leaks: a reference to an internal document or issue, a
// constant or fact name, a sentinel, an escaped newline, a doubled
// prefix. Identifiers the machine's own recording holds (a serial, a
// kernel parameter in a log line) are the machine's words, not leaks.
// Each machine is examined once and its report rendered in the three
// forms as the root command renders it; the subtest "as printed" holds
// those renders to what run prints for the same flags.
func TestNoLeaks(t *testing.T) {
	if testing.Short() {
		t.Skip("runs every recorded machine")
	}
	facts := map[string]bool{}
	for _, d := range checks.Facts() {
		if strings.Contains(d.Name, "_") && !externalFacts[d.Name] {
			facts[d.Name] = true
		}
	}
	var dirs []string
	for _, base := range []string{fixturesDir, filepath.Join(fixturesDir, "corpus")} {
		for _, name := range fixturetest.Machines(t, base) {
			dirs = append(dirs, filepath.Join(base, name))
		}
	}
	t.Run("as printed", func(t *testing.T) {
		// A machine with a window and one without: the renders below are
		// run's output, byte for byte but the JSON's provenance.
		for _, name := range []string{"hpe-microserver-writethrough", "sata-saturated-nvme-idle"} {
			dir := filepath.Join(fixturesDir, name)
			got := leakForms(t, dir)
			for i, extra := range [][]string{nil, {"-v"}, {"--format", "json"}} {
				var out, errb bytes.Buffer
				code := run(t.Context(), append(leakArgs(dir), extra...), &out, &errb)
				if code == rules.ExitUnknown || errb.Len() > 0 {
					t.Fatalf("%s %v: exit %d: %s", name, extra, code, errb.String())
				}
				want := out.Bytes()
				if i == 2 {
					want = withoutProvenance(want)
				}
				if !bytes.Equal(want, got[i].out) {
					t.Errorf("%s %v: the render differs from what run prints\n%s", name, extra, fixturetest.FirstDiff(want, got[i].out))
				}
			}
		}
	})
	t.Run("machines", func(t *testing.T) {
		sem := make(chan struct{}, 2)
		for _, dir := range dirs {
			t.Run(filepath.Base(dir), func(t *testing.T) {
				t.Parallel()
				sem <- struct{}{}
				defer func() { <-sem }()
				checkMachine(t, dir, facts)
			})
		}
	})
	t.Run("explain", func(t *testing.T) {
		// The rules as explain loads them, once; each rule's text as
		// explain prints it (the first through run itself, to hold the
		// render to the command's).
		rs, refused, err := doctor.Rules(t.Context(), "")
		if err != nil || len(refused) > 0 {
			t.Fatalf("rules: %v %v", err, refused)
		}
		for i, r := range rs {
			var out bytes.Buffer
			if err := report.Explain(&out, r, report.DefaultWidth, false); err != nil {
				t.Fatalf("explain %s: %v", r.ID, err)
			}
			if i == 0 {
				var cli, errb bytes.Buffer
				if code := run(t.Context(), []string{"explain", r.ID}, &cli, &errb); code != 0 || !bytes.Equal(cli.Bytes(), out.Bytes()) {
					t.Fatalf("explain %s: exit %d: %s\nthe render differs from what run prints\n%s", r.ID, code, errb.String(), fixturetest.FirstDiff(cli.Bytes(), out.Bytes()))
				}
			}
			for _, l := range leaks(out.String(), nil, facts) {
				t.Errorf("explain %s: %s", r.ID, l)
			}
		}
	})
}

// leakArgs are the flags TestNoLeaks examines a recorded machine with.
func leakArgs(dir string) []string {
	args := []string{"--root", dir, "--color", "never"}
	if fixturetest.HasWindow(filepath.Dir(dir), filepath.Base(dir)) {
		args = append(args, "--sample", "5s")
	}
	return args
}

// leakForm is one rendering of a report: its flags and what it printed.
type leakForm struct {
	extra string
	out   []byte
}

// leakForms examines dir once with the options the root command makes of
// leakArgs, and renders the report as runDoctor does, in text, -v and
// JSON (without its provenance, the run's time and the binary).
func leakForms(t *testing.T, dir string) [3]leakForm {
	t.Helper()
	o := options{Options: doctor.Options{Root: dir, ProbeTimeout: doctor.DefaultProbeTimeout, Context: "auto", LiveWindow: doctor.DefaultLiveWindow}, color: "never"}
	if fixturetest.HasWindow(filepath.Dir(dir), filepath.Base(dir)) {
		o.Sample, o.LiveWindow = 5*time.Second, 0 // --sample given: no default window
	}
	start := time.Now()
	rep, err := examine(t.Context(), o)
	if err != nil {
		t.Fatalf("%s: %v", filepath.Base(dir), err)
	}
	var forms [3]leakForm
	for i, f := range []struct {
		extra, format string
		verbose       bool
	}{{"", "text", false}, {"-v", "text", true}, {"--format json", "json", false}} {
		var b bytes.Buffer
		run := report.RunInfo{Start: start, Duration: time.Since(start), Tool: tool(), Verbose: f.verbose}
		if err := report.Emit(&b, "", f.format, rep, run); err != nil {
			t.Fatalf("%s %s: %v", filepath.Base(dir), f.extra, err)
		}
		forms[i] = leakForm{f.extra, b.Bytes()}
	}
	forms[2].out = withoutProvenance(forms[2].out)
	return forms
}

func checkMachine(t *testing.T, dir string, facts map[string]bool) {
	own := machineWords(t, dir)
	forms := leakForms(t, dir)
	for _, f := range forms[:2] {
		for _, l := range leaks(string(f.out), own, facts) {
			t.Errorf("%s %s: %s", filepath.Base(dir), f.extra, l)
		}
	}
	var doc any
	if err := json.Unmarshal(forms[2].out, &doc); err != nil {
		t.Fatalf("%s --format json: %v", filepath.Base(dir), err)
	}
	var strs []string
	jsonStrings(doc, &strs)
	// Fact names are the JSON contract's keys and may be its values (a
	// rule's evidence list); only the prose is held to the rest.
	for _, l := range leaks(strings.Join(strs, "\n"), own, nil) {
		t.Errorf("%s --format json: %s", filepath.Base(dir), l)
	}
	recordedTools(t, dir, doc)
}

// leaks lists the lines of out that leak, with what each leaks. own holds
// the identifiers of the machine's recording; facts the fact names a text
// for people must not show (nil: not checked).
func leaks(out string, own map[string]bool, facts map[string]bool) []string {
	var found []string
	for _, line := range strings.Split(out, "\n") {
		for _, p := range leakPatterns {
			if m := p.re.FindString(line); m != "" {
				found = append(found, p.what+" ("+strings.TrimSpace(m)+"): "+line)
			}
		}
		// A prefix said twice ("/etc: /etc: not available").
		w := strings.Fields(line)
		for i := 0; i+1 < len(w); i++ {
			if strings.HasSuffix(w[i], ":") && len(w[i]) > 1 && w[i] == w[i+1] {
				found = append(found, "a doubled prefix ("+w[i]+" "+w[i+1]+"): "+line)
			}
		}
		for _, id := range capsIdent.FindAllString(line, -1) {
			if !publicNames.MatchString(id) && !own[id] {
				found = append(found, "an identifier in capitals ("+id+"): "+line)
			}
		}
		for _, w := range factWord.FindAllString(line, -1) {
			if facts[w] && !own[w] {
				found = append(found, "a fact's name ("+w+"): "+line)
			}
		}
	}
	return found
}

var factWord = regexp.MustCompile(`\b[a-z][a-z0-9]*(?:_[a-z0-9]+)+\b`)

// machineWords are the identifiers a recorded machine's own files hold, in
// their contents and names (a serial in a by-id link, a kernel parameter
// in its log, a sysfs file): the machine's words, which a report quotes.
// The fixture's README and golden files are the doctor's, not the
// machine's, and are left out.
func machineWords(t *testing.T, dir string) map[string]bool {
	words := map[string]bool{}
	add := func(b []byte) {
		for _, m := range capsIdent.FindAll(b, -1) {
			words[string(m)] = true
		}
		for _, m := range factWord.FindAll(b, -1) {
			words[string(m)] = true
		}
	}
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return nil
		}
		add([]byte(d.Name()))
		if !d.Type().IsRegular() || filepath.Dir(p) == dir {
			return nil // the fixture's own files: README, goldens, expect.yaml
		}
		if info, err := d.Info(); err != nil || info.Size() > 4<<20 {
			return nil
		}
		if b, err := os.ReadFile(p); err == nil {
			add(b)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return words
}

func jsonStrings(v any, out *[]string) {
	switch x := v.(type) {
	case string:
		*out = append(*out, x)
	case []any:
		for _, e := range x {
			jsonStrings(e, out)
		}
	case map[string]any:
		for _, e := range x {
			jsonStrings(e, out)
		}
	}
}

// recordedTools: a skipped entry of a recorded machine never asks to
// install a program the recording shows answering other commands there.
func recordedTools(t *testing.T, dir string, doc any) {
	b, err := os.ReadFile(filepath.Join(dir, "commands", "manifest.yaml"))
	if err != nil {
		return
	}
	entries, err := manifest.Parse(bytes.NewReader(b))
	if err != nil {
		t.Fatal(err)
	}
	answered := map[string]bool{}
	for _, e := range entries {
		if !e.Missing && !e.Timeout && len(e.Argv) > 0 {
			answered[e.Argv[0]] = true
		}
	}
	m, _ := doc.(map[string]any)
	skipped, _ := m["skipped"].([]any)
	for _, s := range skipped {
		e, _ := s.(map[string]any)
		reason, _ := e["reason"].(string)
		hint, _ := e["hint"].(string)
		// "MegaCli64 -PDList -aALL -NoLog: MegaCli64: not installed …":
		// the program is the reason's first word.
		tool, _, _ := strings.Cut(reason, ": ")
		tool, _, _ = strings.Cut(tool, " ")
		if answered[tool] && (strings.Contains(hint, "installed there") || strings.Contains(hint, "not installed") || strings.Contains(reason, "not installed")) {
			t.Errorf("%s: skipped %q: %s — hint %q, yet the recording holds %s's answers to other commands", filepath.Base(dir), e["check"], reason, hint, tool)
		}
	}
}

// TestLeakPatternsCatch: the leaks a trial found, each caught, and the
// machine's or a public document's words, each let through.
func TestLeakPatternsCatch(t *testing.T) {
	facts := map[string]bool{"wc_kernel_only_rules": true, "zfs_data_errors": true}
	for _, leak := range []string{
		"References: domain.md §1A",
		"  - domain.md §1A (HPE MicroServer, write cache off at boot)",
		"WC_KERNEL_ONLY_RULES writes queue/write_cache only",
		"only in some cases (explain --format yaml shows when)",
		"pool tank ONLINE, -1 data errors",
		"multipath -ll: mpatha dm-2 LIO-ORG,data-chunk2\\x0a| `- 5:0:0:0 sdd",
		"  trim schedule: /etc: /etc: not available",
		"  df: df: not recorded",
		"issue #24 item 6",
		"Evidence cited: wc_kernel_only_rules, zfs_data_errors",
		"value <nil>",
		"TODO: say it",
	} {
		if len(leaks(leak, nil, facts)) == 0 {
			t.Errorf("not caught: %q", leak)
		}
	}
	own := map[string]bool{"WDC_WDS200T1R0A": true}
	for _, ok := range []string{
		"USB 3.2 specification §9.6.2 (BOS descriptor)",
		"openzfs/zfs issue 7734: Swap deadlock in 0.7.9",
		"ENV{ID_SERIAL}==\"WDC_WDS200T1R0A\"",
		"GRUB_CMDLINE_LINUX_DEFAULT=\"quiet\" in /etc/default/grub",
		"[36190.795266] sd 1:0:0:0: [sdb] tag#15 Sense Key : Medium Error",
		"diskdoctor explain write-cache-disabled --format yaml prints the condition",
		"/sys/block/sda/device/queue_depth: 1",
		"controller: MegaCli64 -PDList -aALL -NoLog: MegaCli64: not recorded",
	} {
		if l := leaks(ok, own, facts); len(l) > 0 {
			t.Errorf("caught, yet not a leak: %q: %v", ok, l)
		}
	}
}
