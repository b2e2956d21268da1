package report

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/diskdoctor/diskdoctor/rules"
)

// hostilePool is a recorded pool name of issue 26: bytes that are not
// UTF-8, control bytes, a bidi override and the format's own specials.
const hostilePool = "tank\xff\xfe\x01\x1b[31m\u202e\"\\\r\nend"

func hostileReport() *rules.Report {
	return &rules.Report{
		Schema: rules.Schema, Verdict: rules.VerdictCritical,
		Findings: []rules.Finding{
			{Rule: "zfs-pool-degraded", Severity: rules.Critical, Subjects: []string{hostilePool, "tank\xfe"}},
			// A second name that escapes to the same text: one series.
			{Rule: "zfs-pool-degraded", Severity: rules.Critical, Subjects: []string{`tank\xfe`}},
		},
		Devices: []map[string]any{{"name": "sd\x00a\xc3", "judged": true, "transport": "sata\x7f", "class": "sata-ssd", "smart_passed": true}},
	}
}

// Issue 26: the pool name went raw into a label and node_exporter refused
// the whole textfile, the critical verdict with it. Every label value is
// now valid UTF-8 with its control characters as text.
func TestPrometheusHostileLabels(t *testing.T) {
	out := renderProm(t, hostileReport(), RunInfo{Start: time.Unix(0, 0)})
	fams, err := parseTextfile(out)
	if err != nil {
		t.Fatalf("%v\n%q", err, out)
	}
	var subjects, devices []string
	for _, f := range fams {
		for _, s := range f.samples {
			for _, v := range s.labels {
				if strings.ContainsFunc(v, func(r rune) bool { return r < 0x20 && r != '\n' || r == 0x7f || r == '\u202e' }) {
					t.Errorf("%s: control character in a label value %q", f.name, v)
				}
			}
			if f.name == "diskdoctor_finding" {
				subjects = append(subjects, s.labels["subject"])
			}
			if f.name == "diskdoctor_device_info" {
				devices = append(devices, s.labels["device"], s.labels["transport"])
			}
		}
	}
	want := `tank\xff\xfe\x01\x1b[31m\u202e"\` + `\x0d` + "\nend"
	if len(subjects) != 2 || (subjects[0] != want && subjects[1] != want) {
		t.Errorf("subjects read back %q, want %q and tank\\xfe once", subjects, want)
	}
	if strings.Join(devices, " ") != `sd\x00a\xc3 sata\x7f` {
		t.Errorf("device labels %q", devices)
	}
	if verdict := `diskdoctor_verdict`; !strings.Contains(string(out), verdict) {
		t.Errorf("no %s in\n%s", verdict, out)
	}
}

// node_exporter itself reads the hostile textfile: no scrape error, and
// the finding is served.
func TestNodeExporterHostileLabels(t *testing.T) {
	exporter := lookTool(t, "prometheus-node-exporter", "prometheus-node-exporter")
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "diskdoctor.prom"), renderProm(t, hostileReport(), RunInfo{Start: time.Unix(0, 0)}), 0o644); err != nil {
		t.Fatal(err)
	}
	got, body := scrape(t, startNodeExporter(t, exporter, dir))
	if e, ok := got[promSample{name: "node_textfile_scrape_error"}.key()]; !ok || e.value != 0 {
		t.Fatalf("node_textfile_scrape_error = %v (present: %v), want 0\n%s", e.value, ok, body)
	}
	if !strings.Contains(body, `diskdoctor_finding{rule="zfs-pool-degraded",severity="critical",subject="tank\\xfe",waived="false"} 1`) {
		t.Errorf("the finding is not served:\n%s", body)
	}
}
