package report

import (
	"bytes"
	"fmt"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/diskdoctor/diskdoctor/checks"
	"github.com/diskdoctor/diskdoctor/rules"

	"github.com/diskdoctor/diskdoctor/internal/fixturetest"
)

// The text exposition format, as node_exporter's textfile collector reads
// it (github.com/prometheus/common/expfmt is not in this module's graph, so
// the tests parse it themselves, strictly, and node_exporter parses it for
// real in TestNodeExporterTextfile).

var (
	metricNameRe = regexp.MustCompile(`^[a-zA-Z_:][a-zA-Z0-9_:]*$`)
	labelNameRe  = regexp.MustCompile(`^[a-zA-Z_][a-zA-Z0-9_]*$`)
)

type promSample struct {
	name   string
	labels map[string]string
	value  float64
}

// key identifies a series: its name and labels, sorted.
func (s promSample) key() string {
	names := make([]string, 0, len(s.labels))
	for n := range s.labels {
		names = append(names, n)
	}
	sort.Strings(names)
	var b strings.Builder
	b.WriteString(s.name + "{")
	for i, n := range names {
		if i > 0 {
			b.WriteByte(',')
		}
		b.WriteString(n + "=" + strconv.Quote(s.labels[n]))
	}
	b.WriteString("}")
	return b.String()
}

type promFam struct {
	name, help, typ string
	samples         []promSample
}

// parseSeries parses `name{label="value",…}` and returns what follows it.
func parseSeries(s string) (name string, labels map[string]string, rest string, err error) {
	i := strings.IndexAny(s, "{ ")
	if i < 0 {
		i = len(s)
	}
	name, s = s[:i], s[i:]
	if !metricNameRe.MatchString(name) {
		return "", nil, "", fmt.Errorf("bad metric name %q", name)
	}
	labels = map[string]string{}
	if !strings.HasPrefix(s, "{") {
		return name, labels, s, nil
	}
	s = s[1:]
	for {
		if strings.HasPrefix(s, "}") {
			return name, labels, s[1:], nil
		}
		eq := strings.IndexByte(s, '=')
		if eq < 0 {
			return "", nil, "", fmt.Errorf("label without '=' in %q", s)
		}
		ln := s[:eq]
		if !labelNameRe.MatchString(ln) || strings.HasPrefix(ln, "__") {
			return "", nil, "", fmt.Errorf("bad label name %q", ln)
		}
		if _, dup := labels[ln]; dup {
			return "", nil, "", fmt.Errorf("label %q twice", ln)
		}
		s = s[eq+1:]
		if !strings.HasPrefix(s, `"`) {
			return "", nil, "", fmt.Errorf("label %s: value not quoted", ln)
		}
		s = s[1:]
		var v strings.Builder
		closed := false
		for !closed {
			if s == "" {
				return "", nil, "", fmt.Errorf("label %s: unterminated value", ln)
			}
			c := s[0]
			s = s[1:]
			switch c {
			case '"':
				closed = true
			case '\n':
				return "", nil, "", fmt.Errorf("label %s: raw line feed in value", ln)
			case '\\':
				if s == "" {
					return "", nil, "", fmt.Errorf("label %s: dangling backslash", ln)
				}
				switch s[0] {
				case '\\':
					v.WriteByte('\\')
				case '"':
					v.WriteByte('"')
				case 'n':
					v.WriteByte('\n')
				default:
					return "", nil, "", fmt.Errorf("label %s: invalid escape \\%c", ln, s[0])
				}
				s = s[1:]
			default:
				v.WriteByte(c)
			}
		}
		labels[ln] = v.String()
		switch {
		case strings.HasPrefix(s, ","):
			s = s[1:]
		case strings.HasPrefix(s, "}"):
		default:
			return "", nil, "", fmt.Errorf("expected ',' or '}' after label %s, got %q", ln, s)
		}
	}
}

func parseValue(s string) (float64, error) {
	switch s {
	case "NaN":
		return math.NaN(), nil
	case "+Inf", "Inf":
		return math.Inf(1), nil
	case "-Inf":
		return math.Inf(-1), nil
	}
	return strconv.ParseFloat(s, 64)
}

// parseSampleLine parses `name{labels} value [timestamp]`.
func parseSampleLine(line string) (s promSample, timestamp bool, err error) {
	name, labels, rest, err := parseSeries(line)
	if err != nil {
		return promSample{}, false, err
	}
	f := strings.Fields(rest)
	if len(f) < 1 || len(f) > 2 || !strings.HasPrefix(rest, " ") {
		return promSample{}, false, fmt.Errorf("want ' value [timestamp]' after the series, got %q", rest)
	}
	v, err := parseValue(f[0])
	if err != nil {
		return promSample{}, false, err
	}
	return promSample{name: name, labels: labels, value: v}, len(f) == 2, nil
}

// parseTextfile parses diskdoctor's own output strictly: every family is
// one block of HELP, TYPE gauge and its samples, each family once, each
// series once, no timestamps, a line feed at the end of every line.
func parseTextfile(b []byte) ([]promFam, error) {
	if len(b) > 0 && b[len(b)-1] != '\n' {
		return nil, fmt.Errorf("the last line has no line feed")
	}
	// expfmt's text parser refuses a label value that is not valid UTF-8,
	// and the textfile collector the whole file with it.
	if !utf8.Valid(b) {
		return nil, fmt.Errorf("not valid UTF-8")
	}
	var fams []promFam
	seenFam, seenSeries := map[string]bool{}, map[string]bool{}
	lines := strings.Split(strings.TrimSuffix(string(b), "\n"), "\n")
	for i, line := range lines {
		n := i + 1
		switch {
		case strings.HasPrefix(line, "# HELP "):
			f := strings.SplitN(strings.TrimPrefix(line, "# HELP "), " ", 2)
			if len(f) != 2 || !metricNameRe.MatchString(f[0]) || f[1] == "" {
				return nil, fmt.Errorf("line %d: bad HELP", n)
			}
			if seenFam[f[0]] {
				return nil, fmt.Errorf("line %d: family %s appears twice", n, f[0])
			}
			seenFam[f[0]] = true
			fams = append(fams, promFam{name: f[0], help: f[1]})
		case strings.HasPrefix(line, "# TYPE "):
			f := strings.Fields(strings.TrimPrefix(line, "# TYPE "))
			if len(fams) == 0 || len(f) != 2 || f[0] != fams[len(fams)-1].name || fams[len(fams)-1].typ != "" || len(fams[len(fams)-1].samples) > 0 {
				return nil, fmt.Errorf("line %d: TYPE not right after its HELP", n)
			}
			if f[1] != "gauge" {
				return nil, fmt.Errorf("line %d: type %s, want gauge", n, f[1])
			}
			fams[len(fams)-1].typ = f[1]
		case strings.HasPrefix(line, "#") || strings.TrimSpace(line) == "":
			return nil, fmt.Errorf("line %d: unexpected %q", n, line)
		default:
			s, ts, err := parseSampleLine(line)
			if err != nil {
				return nil, fmt.Errorf("line %d: %v", n, err)
			}
			if ts {
				return nil, fmt.Errorf("line %d: a timestamp (the textfile collector rejects them)", n)
			}
			if len(fams) == 0 || fams[len(fams)-1].name != s.name || fams[len(fams)-1].typ == "" {
				return nil, fmt.Errorf("line %d: sample of %s outside its family block", n, s.name)
			}
			if seenSeries[s.key()] {
				return nil, fmt.Errorf("line %d: series %s twice", n, s.key())
			}
			seenSeries[s.key()] = true
			fams[len(fams)-1].samples = append(fams[len(fams)-1].samples, s)
		}
	}
	for _, f := range fams {
		if len(f.samples) == 0 {
			return nil, fmt.Errorf("family %s has no samples", f.name)
		}
	}
	return fams, nil
}

func renderProm(t *testing.T, rep *rules.Report, run RunInfo) []byte {
	t.Helper()
	var b bytes.Buffer
	if err := renderPrometheus(&b, rep, run); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

// allowedLabels are the only label names, each from a bounded set (probe:
// the probe names in the doctor's code; applicable: true or false).
var allowedLabels = map[string]bool{"rule": true, "severity": true, "subject": true, "device": true, "transport": true, "class": true, "check": true, "probe": true, "applicable": true, "waived": true, "state": true}

// TestPrometheusFixtures renders every fixture and checks the format, the
// series the alerts rely on, and that the output is deterministic.
func TestPrometheusFixtures(t *testing.T) {
	start := time.Unix(1795962300, 500_000_000) // 2026-11-29 14:25:00.5 UTC
	run := RunInfo{Start: start, Duration: 1234 * time.Millisecond}
	for _, name := range fixtures(t) {
		t.Run(name, func(t *testing.T) {
			rep := fixtureReport(t, name)
			out := renderProm(t, rep, run)
			if again := renderProm(t, fixtureReport(t, name), run); !bytes.Equal(out, again) {
				t.Errorf("two renderings differ:\n%s", fixturetest.FirstDiff(out, again))
			}
			fams, err := parseTextfile(out)
			if err != nil {
				t.Fatalf("%v\n%s", err, out)
			}
			byName := map[string]promFam{}
			for _, f := range fams {
				byName[f.name] = f
				if !strings.HasPrefix(f.name, "diskdoctor_") {
					t.Errorf("family %s outside the diskdoctor_ namespace", f.name)
				}
				for _, s := range f.samples {
					for l := range s.labels {
						if !allowedLabels[l] {
							t.Errorf("%s: label %s is not one of the bounded labels", s.key(), l)
						}
					}
				}
			}
			one := func(fam string) float64 {
				f, ok := byName[fam]
				if !ok || len(f.samples) != 1 {
					t.Fatalf("%s: want one sample, have %v", fam, f.samples)
				}
				return f.samples[0].value
			}
			if got := one("diskdoctor_verdict"); got != float64(rep.ExitCode()) {
				t.Errorf("diskdoctor_verdict %v, want %d", got, rep.ExitCode())
			}
			if got := one("diskdoctor_last_run_timestamp_seconds"); got != 1795962300.5 {
				t.Errorf("diskdoctor_last_run_timestamp_seconds %v, want 1795962300.5", got)
			}
			if got := one("diskdoctor_run_duration_seconds"); got != 1.234 {
				t.Errorf("diskdoctor_run_duration_seconds %v, want 1.234", got)
			}
			// One finding series per (rule, severity, subject), and nothing else.
			want := map[string]bool{}
			for _, f := range rep.Findings {
				for _, s := range f.Subjects {
					want[promSample{name: "diskdoctor_finding", labels: map[string]string{"rule": f.Rule, "severity": f.Severity, "subject": s, "waived": "false"}}.key()] = true
				}
			}
			got := map[string]bool{}
			for _, s := range byName["diskdoctor_finding"].samples {
				got[s.key()] = true
				if s.value != 1 {
					t.Errorf("%s = %v, want 1", s.key(), s.value)
				}
			}
			if fmt.Sprint(sortedKeys(got)) != fmt.Sprint(sortedKeys(want)) {
				t.Errorf("finding series %v, want %v", sortedKeys(got), sortedKeys(want))
			}
			// Device facts: a series exactly where the fact is known.
			for _, d := range rep.Devices {
				if d["judged"] != true {
					continue
				}
				for _, g := range deviceGauges {
					v, known := promNumber(d[g.fact])
					var have *promSample
					for _, s := range byName[g.name].samples {
						if s.labels["device"] == d["name"] {
							have = &s
						}
					}
					switch {
					case known && have == nil:
						t.Errorf("%s: %s=%v but no %s series", d["name"], g.fact, d[g.fact], g.name)
					case !known && have != nil:
						t.Errorf("%s: %s unknown but %s = %v", d["name"], g.fact, g.name, have.value)
					case known && have.value != v:
						t.Errorf("%s: %s = %v, want %v", d["name"], g.name, have.value, v)
					}
				}
			}
			skips := 0
			for _, s := range rep.Skipped {
				skips += max(1, len(s.Subjects))
			}
			total := 0.0
			for _, s := range byName["diskdoctor_checks_skipped"].samples {
				total += s.value
			}
			if total != float64(skips) {
				t.Errorf("diskdoctor_checks_skipped sums to %v, want %d", total, skips)
			}
			t.Logf("%d bytes, %d families", len(out), len(fams))
		})
	}
}

// TestPrometheusHPE pins what the alerts need from the HPE MicroServer.
func TestPrometheusHPE(t *testing.T) {
	out := string(renderProm(t, fixtureReport(t, "hpe-microserver-writethrough"), RunInfo{Start: time.Unix(1795962300, 0)}))
	for _, line := range []string{
		"diskdoctor_verdict 2",
		`diskdoctor_finding{rule="write-cache-disabled",severity="critical",subject="sda",waived="false"} 1`,
		`diskdoctor_finding{rule="write-cache-disabled",severity="critical",subject="sdd",waived="false"} 1`,
		`diskdoctor_finding{rule="trim-not-scheduled",severity="warning",subject="sdc",waived="false"} 1`,
		`diskdoctor_device_write_cache_enabled{device="sda"} 0`,
		`diskdoctor_device_write_cache_enabled{device="sde"} 1`,
		`diskdoctor_device_trim_scheduled{device="sdd"} 1`,
		"diskdoctor_last_run_timestamp_seconds 1795962300",
		"# TYPE diskdoctor_finding gauge",
	} {
		if !strings.Contains(out, "\n"+line+"\n") {
			t.Errorf("no line %q in\n%s", line, out)
		}
	}
	// SATA disks have no PCIe link: no series rather than a 0.
	for _, absent := range []string{"diskdoctor_device_pcie_link_speed_gts", "diskdoctor_device_pcie_link_width"} {
		if strings.Contains(out, absent) {
			t.Errorf("%s present, but nothing was observed for it", absent)
		}
	}
}

// TestPrometheusEscaping renders label values that need escaping and reads
// them back, and shows that free text never becomes a label.
func TestPrometheusEscaping(t *testing.T) {
	for in, want := range map[string]string{
		`plain`:        `plain`,
		`a"b`:          `a\"b`,
		`back\slash`:   `back\\slash`,
		"two\nlines":   `two\nlines`,
		"\\\"\n":       `\\\"\n`,
		`ünïcode sda `: `ünïcode sda `,
	} {
		if got := escapeLabelValue(in); got != want {
			t.Errorf("escapeLabelValue(%q) = %q, want %q", in, got, want)
		}
	}
	if got := escapeHelp("a\\b\nc\"d"); got != `a\\b\nc"d` {
		t.Errorf("escapeHelp: %q", got)
	}
	nasty := "we\"ird\\pool\nname"
	rep := &rules.Report{
		Schema: rules.Schema, Verdict: rules.VerdictWarning,
		Findings: []rules.Finding{
			{Rule: "zfs-background-work", Severity: rules.Warning, Subjects: []string{nasty, "sda"}, Title: "free \"text\"\nnever a label"},
			{Rule: "zfs-background-work", Severity: rules.Warning, Subjects: []string{"sda"}}, // the same series again
		},
		Skipped: []checks.Skipped{
			{Check: "hdparm -W", Reason: "timed out", Subjects: []string{"sda", "sdb"}},
			{Check: "hdparm -W", Reason: "not installed", Subjects: []string{"sdc"}},
			{Check: "cpu-power", Reason: "cpufreq: not available\nat all"},
		},
		Devices: []map[string]any{
			{"name": "sda", "judged": true, "transport": "sata", "class": "sata-ssd", "wc_on": nil, "wc_supported": true, "smart_passed": false, "pcie_cur_gts": 2.5},
			{"name": "loop0", "judged": false, "transport": "virtual", "wc_on": true},
		},
	}
	out := renderProm(t, rep, RunInfo{Start: time.Unix(0, 0)})
	fams, err := parseTextfile(out)
	if err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	var subjects []string
	for _, f := range fams {
		for _, s := range f.samples {
			if f.name == "diskdoctor_finding" {
				subjects = append(subjects, s.labels["subject"])
			}
			if f.name == "diskdoctor_checks_skipped" && s.labels["check"] == "hdparm -W" && s.value != 3 {
				t.Errorf("hdparm -W skipped %v, want 3 (subjects of both reasons)", s.value)
			}
			if s.labels["device"] == "loop0" {
				t.Errorf("unjudged loop0 has a series: %s", s.key())
			}
		}
	}
	sort.Strings(subjects)
	if fmt.Sprint(subjects) != fmt.Sprint([]string{"sda", nasty}) {
		t.Errorf("finding subjects read back %q, want sda and %q once each", subjects, nasty)
	}
	text := string(out)
	for _, line := range []string{
		`diskdoctor_finding{rule="zfs-background-work",severity="warning",subject="we\"ird\\pool\nname",waived="false"} 1`,
		`diskdoctor_checks_skipped{check="cpu-power",probe="cpu-power",applicable="true"} 1`,
		`diskdoctor_device_smart_healthy{device="sda"} 0`,
		`diskdoctor_device_write_cache_supported{device="sda"} 1`,
		`diskdoctor_device_pcie_link_speed_gts{device="sda"} 2.5`,
	} {
		if !strings.Contains(text, line+"\n") {
			t.Errorf("no line %s in\n%s", line, text)
		}
	}
	for _, leak := range []string{"never a label", "timed out", "not available", "diskdoctor_device_write_cache_enabled"} {
		if strings.Contains(text, leak) {
			t.Errorf("%q in the output (free text or an unknown fact)", leak)
		}
	}
}

// TestPrometheusPromtoolLint runs promtool's metric linter over the
// fixtures' textfiles, where promtool is installed.
func TestPrometheusPromtoolLint(t *testing.T) {
	promtool := lookTool(t, "promtool", "prometheus")
	for _, name := range fixtures(t) {
		out := renderProm(t, fixtureReport(t, name), RunInfo{Start: time.Unix(1795962300, 0), Duration: time.Second})
		cmd := exec.Command(promtool, "check", "metrics")
		cmd.Stdin = bytes.NewReader(out)
		if msg, err := cmd.CombinedOutput(); err != nil || len(bytes.TrimSpace(msg)) > 0 {
			t.Errorf("%s: promtool check metrics: %v\n%s", name, err, msg)
		}
	}
}

// lookTool finds a program, or skips the test saying which Debian package
// provides it.
func lookTool(t *testing.T, name, pkg string) string {
	t.Helper()
	for _, dir := range []string{"/usr/bin", "/usr/sbin", "/bin"} {
		if p := filepath.Join(dir, name); exists(p) {
			return p
		}
	}
	p, err := exec.LookPath(name)
	if err != nil {
		t.Skipf("%s is not installed (apt-get install %s, or make test-deps); skipping", name, pkg)
	}
	return p
}

// TestPrometheusOutputFile writes the textfile with --output through the
// built binary: the exit status is 0 with a critical verdict (it is in the
// metrics), the file is whole and alone in its directory, and
// world-readable for node_exporter.
func TestPrometheusOutputFile(t *testing.T) {
	dir := t.TempDir()
	out := filepath.Join(dir, "diskdoctor.prom")
	stdout, stderr, code := runBinary(t, "--root", "fixtures/hpe-microserver-writethrough", "--format", "prometheus", "--output", out)
	if code != 0 || len(stdout) != 0 {
		t.Fatalf("exit %d (want 0), stdout %q, stderr %s", code, stdout, stderr)
	}
	b, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := parseTextfile(b); err != nil {
		t.Fatal(err)
	}
	if st, _ := os.Stat(out); st.Mode().Perm() != 0o644 {
		t.Errorf("mode %v, want 0644", st.Mode().Perm())
	}
	if ents, _ := os.ReadDir(dir); len(ents) != 1 {
		t.Errorf("temporary files left beside the textfile: %v", ents)
	}
	t.Logf("HPE MicroServer textfile: %d bytes, %d lines", len(b), bytes.Count(b, []byte("\n")))
}

// A textfile run exits 0 once its metrics are written, whatever the
// verdict; only a run that wrote diskdoctor_up 0 exits 3.
func TestPrometheusExit(t *testing.T) {
	for code, want := range map[int]int{rules.ExitOK: 0, rules.ExitWarning: 0, rules.ExitCritical: 0, rules.ExitUnknown: 3} {
		if got := ExitStatus("prometheus", code); got != want {
			t.Errorf("ExitStatus(prometheus, %d) = %d, want %d", code, got, want)
		}
	}
}
