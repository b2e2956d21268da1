package report

import (
	"bytes"
	"encoding/json"
	"fmt"
	"regexp"
	"strings"
	"testing"

	"github.com/diskdoctor/diskdoctor/checks"
	"github.com/diskdoctor/diskdoctor/rules"
)

// nagiosLine1 is the status line of the plugin output guidelines:
// SERVICE STATUS - text | perfdata. Text holds no '|'; perfdata is
// 'label'=value[UOM][;warn;crit;min;max] separated by spaces.
var nagiosLine1 = regexp.MustCompile(`^DISKDOCTOR (OK|WARNING|CRITICAL|UNKNOWN) - ([^|\n]+) \| (critical=\d+ warning=\d+ info=\d+ skipped=\d+ incomplete=\d+)$`)

var nagiosExit = map[string]int{"OK": 0, "WARNING": 1, "CRITICAL": 2, "UNKNOWN": 3}

// checkNagios checks the plugin output's shape and that its status word is
// the exit status; it returns the status word and line 1's text.
func checkNagios(t *testing.T, out []byte, code int) (status, text string) {
	t.Helper()
	lines := strings.Split(strings.TrimSuffix(string(out), "\n"), "\n")
	if len(out) == 0 || out[len(out)-1] != '\n' {
		t.Fatalf("output does not end with a line feed: %q", out)
	}
	m := nagiosLine1.FindStringSubmatch(lines[0])
	if m == nil {
		t.Fatalf("line 1 is not a plugin status line: %q", lines[0])
	}
	if nagiosExit[m[1]] != code {
		t.Errorf("status %s but exit status %d", m[1], code)
	}
	if len(lines[0]) > 1000 {
		t.Errorf("line 1 is %d bytes long", len(lines[0]))
	}
	for i, l := range lines[1:] {
		if strings.Contains(l, "|") {
			t.Errorf("long-output line %d contains '|' (would start perfdata): %q", i+2, l)
		}
	}
	return m[1], m[2]
}

func TestNagiosFixtures(t *testing.T) {
	for _, c := range []struct {
		fixture  string
		statuses []string // allowed
		contains []string // on line 1
	}{
		{"hpe-microserver-writethrough", []string{"CRITICAL"}, []string{"DISKDOCTOR CRITICAL - write-cache-disabled on sda,sdb,sdc,sdd;", "io-pressure-high on host"}},
		{"healthy-workstation", []string{"OK"}, []string{"DISKDOCTOR OK - no warning or critical findings", "critical=0 warning=0"}},
		{"blind-vm", []string{"OK", "WARNING"}, []string{"skipped"}},
	} {
		t.Run(c.fixture, func(t *testing.T) {
			out, stderr, code := runBinary(t, "--root", "fixtures/"+c.fixture, "--format", "nagios", "--probe-timeout", "1s")
			if code > 2 {
				t.Fatalf("exit %d: %s", code, stderr)
			}
			status, _ := checkNagios(t, out, code)
			ok := false
			for _, s := range c.statuses {
				ok = ok || s == status
			}
			if !ok {
				t.Errorf("status %s, want one of %v", status, c.statuses)
			}
			line1, _, _ := strings.Cut(string(out), "\n")
			// The performance data counts what the same run's JSON holds.
			js, _, _ := runBinary(t, "--root", "fixtures/"+c.fixture, "--format", "json", "--probe-timeout", "1s")
			var rep rules.Report
			if err := json.Unmarshal(js, &rep); err != nil {
				t.Fatal(err)
			}
			n := map[string]int{}
			for _, f := range rep.Findings {
				n[f.Severity]++
			}
			perf := fmt.Sprintf("| critical=%d warning=%d info=%d skipped=%d", n[rules.Critical], n[rules.Warning], n[rules.Info], len(rep.Skipped))
			for _, want := range append(c.contains, perf) {
				if !strings.Contains(line1, want) {
					t.Errorf("line 1 lacks %q: %s", want, line1)
				}
			}
			t.Logf("exit %d: %s", code, out)
		})
	}
}

// TestNagiosEveryFixture: for every recorded machine, the plugin's status
// word, its exit status and the JSON verdict agree.
func TestNagiosEveryFixture(t *testing.T) {
	words := map[string]string{rules.VerdictOK: "OK", rules.VerdictWarning: "WARNING", rules.VerdictCritical: "CRITICAL"}
	for _, name := range fixtures(t) {
		t.Run(name, func(t *testing.T) {
			rep := fixtureReport(t, name)
			var b bytes.Buffer
			if err := renderNagios(&b, rep, RunInfo{}); err != nil {
				t.Fatal(err)
			}
			status, _ := checkNagios(t, b.Bytes(), rep.ExitCode())
			if status != words[rep.Verdict] {
				t.Errorf("status %s for verdict %s", status, rep.Verdict)
			}
			if got, want := strings.Count(b.String(), "\n"), 1+len(rep.Findings)+len(rep.Skipped); got != want {
				t.Errorf("%d lines, want 1 + one per finding and skipped entry = %d", got, want)
			}
		})
	}
}

// TestNagiosBounds: many findings and subjects, and text with '|' and line
// feeds, keep line 1 short and the perfdata intact.
func TestNagiosBounds(t *testing.T) {
	var disks []string
	for i := range 1000 {
		disks = append(disks, fmt.Sprintf("sd%d", i))
	}
	rep := &rules.Report{Schema: rules.Schema, Verdict: rules.VerdictCritical, Skipped: []checks.Skipped{{Check: "kernel-log", Reason: "a | b\nc", Hint: "x|y"}}}
	for i := range 5 {
		rep.Findings = append(rep.Findings, rules.Finding{Rule: fmt.Sprintf("rule-%d", i), Severity: rules.Critical, Subjects: disks, Title: "pipe | in\ntitle"})
	}
	rep.Findings = append(rep.Findings, rules.Finding{Rule: "trim-not-scheduled", Severity: rules.Warning, Subjects: []string{"sda"}, Title: "t"})
	var b bytes.Buffer
	if err := renderNagios(&b, rep, RunInfo{}); err != nil {
		t.Fatal(err)
	}
	_, text := checkNagios(t, b.Bytes(), rules.ExitCritical)
	for _, want := range []string{"rule-0 on sd0,sd1,sd2,sd3,sd4,sd5,sd6,sd7,+992 more", "rule-2 on", "; 2 more critical", "; 1 warning", "; 1 skipped"} {
		if !strings.Contains(text, want) {
			t.Errorf("line 1 lacks %q: %s", want, text)
		}
	}
	if strings.Contains(text, "rule-3") {
		t.Errorf("line 1 names more than %d findings: %s", nagiosMaxFindings, text)
	}
	if !strings.Contains(b.String(), "SKIPPED kernel-log: a / b c; x/y\n") {
		t.Errorf("skipped line not sanitised:\n%s", b.String())
	}
}

// Each reason a machine is not ready is named and kept apart: a device's
// load is itself a list of figures, and a rule's figures alone ("measured
// over 3 s: steal 54 %") would not say what they measure.
func TestNagiosNotReadyReasonsApart(t *testing.T) {
	ready := false
	rep := &rules.Report{Schema: rules.Schema, Verdict: rules.VerdictWarning, Host: rules.Host{Hostname: "h", Root: "/", Context: rules.ContextBenchmark},
		Ready: &ready, Findings: []rules.Finding{}, Skipped: []checks.Skipped{},
		NotReady: []rules.NotReady{
			{Reason: "sda did I/O in the 5 s window", Measured: "sda 100 % busy, 7.5 MB/s written"},
			{Reason: "sdb did I/O in the 5 s window", Measured: "sdb 62.0 % busy, 140 reads/s"},
			{Reason: "the hypervisor steals CPU time from this guest", Measured: "measured over 3 s: steal 54 % of the CPU time", Rule: "cpu-steal-high"},
		}}
	var b bytes.Buffer
	if err := renderNagios(&b, rep, RunInfo{}); err != nil {
		t.Fatal(err)
	}
	_, text := checkNagios(t, b.Bytes(), 1)
	if want := "not ready to benchmark: sda 100 % busy, 7.5 MB/s written; sdb 62.0 % busy, 140 reads/s; cpu-steal-high (measured over 3 s: steal 54 % of the CPU time)"; !strings.Contains(text, want) {
		t.Errorf("line 1 %q lacks %q", text, want)
	}
	if line := npdLine(rep); !strings.Contains(line, "not ready to benchmark: sda 100 % busy") {
		t.Errorf("npd line %q", line)
	}
}
