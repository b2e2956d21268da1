package report

import (
	"bytes"
	"fmt"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/diskdoctor/diskdoctor/rules"
)

// checkNPDLine checks node-problem-detector's plugin protocol on output:
// one line, at most NPDMaxLine bytes (NPD keeps no more), valid UTF-8
// without control characters, starting with the word of the verdict.
func checkNPDLine(t *testing.T, out []byte, word string) string {
	t.Helper()
	s := string(out)
	if !strings.HasSuffix(s, "\n") || strings.Count(s, "\n") != 1 {
		t.Fatalf("not exactly one line: %q", s)
	}
	line := strings.TrimSuffix(s, "\n")
	if len(line) > NPDMaxLine {
		t.Errorf("%d bytes, more than %d: %q", len(line), NPDMaxLine, line)
	}
	if !utf8.ValidString(line) {
		t.Errorf("not UTF-8: %q", line)
	}
	for _, r := range line {
		if r < 0x20 || r == 0x7f || (r >= 0x80 && r < 0xa0) {
			t.Errorf("control character %U: %q", r, line)
		}
	}
	if !strings.HasPrefix(line, word+": ") {
		t.Errorf("does not start with %q: %q", word+": ", line)
	}
	return line
}

func TestNPDExit(t *testing.T) {
	for code, want := range map[int]int{rules.ExitOK: 0, rules.ExitWarning: 1, rules.ExitCritical: 1, rules.ExitUnknown: 2, 99: 2} {
		if got := ExitStatus("npd", code); got != want {
			t.Errorf("ExitStatus(npd, %d) = %d, want %d", code, got, want)
		}
		if got := ExitStatus("nagios", code); got != code {
			t.Errorf("ExitStatus(nagios, %d) = %d, want it unchanged", code, got)
		}
	}
}

// TestNPDEveryFixture: on every recorded machine the line keeps the
// protocol and names the first warning or critical finding.
func TestNPDEveryFixture(t *testing.T) {
	for _, name := range fixtures(t) {
		t.Run(name, func(t *testing.T) {
			rep := fixtureReport(t, name)
			var b bytes.Buffer
			if err := renderNPD(&b, rep, RunInfo{}); err != nil {
				t.Fatal(err)
			}
			line := checkNPDLine(t, b.Bytes(), nagiosStatus[rep.ExitCode()])
			for _, f := range rep.Findings {
				if f.Severity != rules.Info {
					if !strings.Contains(line, f.Rule) {
						t.Errorf("the first problem %s is not named: %q", f.Rule, line)
					}
					break
				}
			}
			t.Logf("exit %d: %s", NPDExit(rep.ExitCode()), line)
		})
	}
}

// TestNPDBounds: hostile and long names, many subjects and findings keep
// the line within NPD's 80 bytes, and what is left out is counted.
func TestNPDBounds(t *testing.T) {
	long := strings.Repeat("nvme0n1p", 40)
	var disks []string
	for i := range 500 {
		disks = append(disks, fmt.Sprintf("sd%d", i))
	}
	for _, c := range []struct {
		name     string
		findings []rules.Finding
		want     []string
	}{
		{"long device name", []rules.Finding{{Rule: "write-cache-disabled", Severity: rules.Critical, Subjects: []string{long, "sdb"}}}, []string{"CRITICAL: write-cache-disabled on nvme0n1p", "...,+1"}},
		{"control characters", []rules.Finding{{Rule: "smart-failing", Severity: rules.Critical, Subjects: []string{"sd\x1b[31ma\nb\r\t\u202e"}}}, []string{`smart-failing on sd\x1b[31ma`}},
		{"many subjects", []rules.Finding{{Rule: "trim-not-scheduled", Severity: rules.Warning, Subjects: disks}}, []string{"WARNING: trim-not-scheduled on sd0,sd1,", ",+4"}},
		{"many findings", func() (fs []rules.Finding) {
			for i := range 40 {
				fs = append(fs, rules.Finding{Rule: fmt.Sprintf("rule-number-%d", i), Severity: rules.Critical, Subjects: []string{"sda"}})
			}
			return
		}(), []string{"CRITICAL: rule-number-0 on sda; rule-number-1 on sda;", " more"}},
		{"long rule", []rules.Finding{{Rule: strings.Repeat("r", 200), Severity: rules.Warning, Subjects: []string{"sda"}}, {Rule: "x", Severity: rules.Warning}}, []string{"WARNING: rrr", "...; x"}},
		{"multibyte", []rules.Finding{{Rule: "write-cache-disabled", Severity: rules.Critical, Subjects: []string{strings.Repeat("ü", 100)}}}, []string{"on üü"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			rep := &rules.Report{Schema: rules.Schema, Verdict: c.findings[0].Severity, Findings: c.findings}
			var b bytes.Buffer
			if err := renderNPD(&b, rep, RunInfo{}); err != nil {
				t.Fatal(err)
			}
			line := checkNPDLine(t, b.Bytes(), nagiosStatus[rep.ExitCode()])
			for _, w := range c.want {
				if !strings.Contains(line, w) {
					t.Errorf("lacks %q: %q", w, line)
				}
			}
			t.Log(line)
		})
	}
	var b bytes.Buffer
	if err := Failure(&b, "npd", Tool{}, FailExamine, "cannot read "+long+"\n\x07second line"); err != nil {
		t.Fatal(err)
	}
	checkNPDLine(t, b.Bytes(), "UNKNOWN")
}

// A machine not ready for a benchmark, with nothing found, says what was
// measured rather than that nothing is wrong.
func TestNPDNotReady(t *testing.T) {
	ready := false
	rep := &rules.Report{Verdict: rules.VerdictWarning, Ready: &ready,
		NotReady: []rules.NotReady{{Reason: "nvme0n1 did I/O in the 5 s window", Measured: "nvme0n1 100 % busy, 25000 reads/s"}}}
	if got := npdLine(rep); got != "WARNING: not ready to benchmark: nvme0n1 100 % busy, 25000 reads/s" {
		t.Errorf("npd line %q", got)
	}
}
