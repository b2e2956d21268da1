package report

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/santhosh-tekuri/jsonschema/v6"

	"github.com/diskdoctor/diskdoctor/doctor"
)

const schemaPath = "../docs/schema/diskdoctor-v1.schema.json"

func compileSchema(t *testing.T) *jsonschema.Schema {
	t.Helper()
	sch, err := jsonschema.NewCompiler().Compile(schemaPath)
	if err != nil {
		t.Fatalf("compile %s: %v", schemaPath, err)
	}
	return sch
}

func validateJSON(t *testing.T, sch *jsonschema.Schema, doc []byte) error {
	t.Helper()
	inst, err := jsonschema.UnmarshalJSON(bytes.NewReader(doc))
	if err != nil {
		t.Fatalf("not JSON: %v", err)
	}
	return sch.Validate(inst)
}

// TestSchemaFixtures validates every fixture's golden expected.json and the
// in-process doctor's output for it against docs/schema.
func TestSchemaFixtures(t *testing.T) {
	sch := compileSchema(t)
	for _, name := range fixtures(t) {
		t.Run(name, func(t *testing.T) {
			golden, err := os.ReadFile(filepath.Join(fixturesDir, name, "expected.json"))
			switch {
			case os.IsNotExist(err):
				t.Logf("%s has no expected.json yet; validating the live output only", name)
			case err != nil:
				t.Fatal(err)
			default:
				if err := validateJSON(t, sch, golden); err != nil {
					t.Errorf("expected.json does not match the schema:\n%v", err)
				}
			}
			live, err := json.Marshal(fixtureReport(t, name))
			if err != nil {
				t.Fatal(err)
			}
			if err := validateJSON(t, sch, live); err != nil {
				t.Errorf("the doctor's JSON does not match the schema:\n%v", err)
			}
		})
	}
}

// TestSchemaLiveMachine validates the doctor's output for this machine.
func TestSchemaLiveMachine(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: not examining the live machine")
	}
	sch := compileSchema(t)
	rep, err := doctor.Examine(t.Context(), doctor.Options{ProbeTimeout: 2 * time.Second, Context: "auto"})
	if err != nil {
		t.Skipf("this machine cannot be examined here: %v", err)
	}
	doc, err := json.Marshal(rep)
	if err != nil {
		t.Fatal(err)
	}
	if err := validateJSON(t, sch, doc); err != nil {
		t.Errorf("the live report does not match the schema:\n%v", err)
	}
}

// TestSchemaRejects shows that the schema is not vacuous: each broken
// variant of a valid report is rejected, for the stated reason.
func TestSchemaRejects(t *testing.T) {
	sch := compileSchema(t)
	base, err := os.ReadFile(filepath.Join(fixturesDir, "hpe-microserver-writethrough", "expected.json"))
	if err != nil {
		t.Skipf("no golden report to mutate: %v", err)
	}
	if err := validateJSON(t, sch, base); err != nil {
		t.Fatalf("the base document is invalid: %v", err)
	}
	cases := []struct {
		name   string
		mutate func(m map[string]any)
		want   string // a fragment of the validation error
	}{
		{"schema", func(m map[string]any) { m["schema"] = "diskdoctor/v2" }, "/schema"},
		{"verdict enum", func(m map[string]any) { m["verdict"] = "fine" }, "/verdict"},
		{"verdict follows findings", func(m map[string]any) { m["verdict"] = "warning" }, "/verdict"},
		{"rule id kebab-case", func(m map[string]any) { finding(m)["rule"] = "Write_Cache" }, "/findings/0/rule"},
		{"severity enum", func(m map[string]any) { finding(m)["severity"] = "major" }, "/findings/0/severity"},
		{"subjects non-empty", func(m map[string]any) { finding(m)["subjects"] = []any{} }, "/findings/0/subjects"},
		{"evidence needs a source", func(m map[string]any) {
			finding(m)["evidence"] = []any{map[string]any{"value": "write through"}}
		}, "/findings/0/evidence/0"},
		{"risk enum", func(m map[string]any) {
			finding(m)["remediation"] = []any{map[string]any{"command": "hdparm -W1 /dev/sda", "risk": "dangerous"}}
		}, "/findings/0/remediation/0/risk"},
		{"destructive needs a note", func(m map[string]any) {
			finding(m)["remediation"] = []any{map[string]any{"command": "blkdiscard /dev/sdz", "risk": "destructive"}}
		}, "/findings/0/remediation/0"},
		{"skipped needs a reason", func(m map[string]any) {
			m["skipped"] = []any{map[string]any{"check": "hdparm -W", "hint": "apt-get install hdparm"}}
		}, "/skipped/0"},
		{"device fact type", func(m map[string]any) {
			m["devices"].([]any)[0].(map[string]any)["wc_on"] = "yes"
		}, "/devices/0/wc_on"},
		{"missing devices", func(m map[string]any) { delete(m, "devices") }, "devices"},
		{"passed needs subjects", func(m map[string]any) {
			m["passed"] = []any{map[string]any{"rule": "trim-unsupported", "area": "TRIM", "subjects": []any{}}}
		}, "/passed/0/subjects"},
		{"passed needs an area", func(m map[string]any) {
			m["passed"] = []any{map[string]any{"rule": "trim-unsupported", "subjects": []any{"sdd"}}}
		}, "/passed/0"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			var m map[string]any
			if err := json.Unmarshal(base, &m); err != nil {
				t.Fatal(err)
			}
			c.mutate(m)
			doc, _ := json.Marshal(m)
			err := validateJSON(t, sch, doc)
			if err == nil {
				t.Fatalf("accepted")
			}
			if !strings.Contains(err.Error(), c.want) {
				t.Errorf("rejected, but not at %s:\n%v", c.want, err)
			}
		})
	}
}

func finding(m map[string]any) map[string]any {
	return m["findings"].([]any)[0].(map[string]any)
}

// TestSchemaProvenanceAndFailure: a report with its provenance (tool,
// started_at, duration_seconds) and the failure form of an exit-3 run are
// both diskdoctor/v1; a failure form with report fields, or a report
// without them, is not (issue #25).
func TestSchemaProvenanceAndFailure(t *testing.T) {
	sch := compileSchema(t)
	var b bytes.Buffer
	run := RunInfo{Start: time.Date(2026, 11, 29, 17, 58, 12, 0, time.FixedZone("", 3600)), Duration: 1234567 * time.Microsecond, Tool: Tool{Name: "diskdoctor", Version: "1.2.3", Commit: "abc1234"}}
	if err := renderJSON(&b, fixtureReport(t, "healthy-workstation"), run); err != nil {
		t.Fatal(err)
	}
	if err := validateJSON(t, sch, b.Bytes()); err != nil {
		t.Errorf("a report with provenance does not match the schema:\n%v", err)
	}
	for _, want := range []string{`"started_at": "2026-11-29T17:58:12+01:00"`, `"duration_seconds": 1.235`, `"version": "1.2.3"`, `"commit": "abc1234"`} {
		if !strings.Contains(b.String(), want) {
			t.Errorf("no %s in:\n%.400s", want, b.String())
		}
	}
	var f bytes.Buffer
	if err := Failure(&f, "json", run.Tool, FailUsage, "unknown flag --formt: did you mean --format?"); err != nil {
		t.Fatal(err)
	}
	if err := validateJSON(t, sch, f.Bytes()); err != nil {
		t.Errorf("the failure form does not match the schema:\n%v\n%s", err, f.Bytes())
	}
	for _, bad := range []string{
		`{"schema": "diskdoctor/v1", "tool": {"name": "diskdoctor", "version": "1"}, "error": "x", "reason": "usage", "exit": 3, "verdict": "ok", "findings": []}`,
		`{"schema": "diskdoctor/v1", "tool": {"name": "diskdoctor", "version": "1"}}`,
		`{"schema": "diskdoctor/v1", "tool": {"name": "diskdoctor", "version": "1"}, "error": "x", "reason": "usage", "exit": 2}`,
	} {
		if validateJSON(t, sch, []byte(bad)) == nil {
			t.Errorf("the schema accepts %s", bad)
		}
	}
}

// TestFailureForms: the Prometheus failure form is a textfile node_exporter
// accepts, saying diskdoctor_up 0 and why; the Nagios one is UNKNOWN on one
// line; text writes nothing.
func TestFailureForms(t *testing.T) {
	msg := "recorded machine \"/x\n\\y\": no such file"
	var p bytes.Buffer
	if err := Failure(&p, "prometheus", Tool{Name: "diskdoctor", Version: "1"}, FailExamine, msg); err != nil {
		t.Fatal(err)
	}
	fams, err := parseTextfile(p.Bytes())
	if err != nil {
		t.Fatalf("not a textfile node_exporter reads: %v\n%s", err, p.String())
	}
	if len(fams) != 2 || !strings.Contains(p.String(), "\ndiskdoctor_up 0\n") || !strings.Contains(p.String(), `diskdoctor_error_info{reason="examine"} 1`) {
		t.Errorf("prometheus failure form:\n%s", p.String())
	}
	if n := strings.Count(p.String(), "\n"); n != 6 || !strings.Contains(p.String(), "This run: recorded machine") {
		t.Errorf("the message broke the comment line (%d lines):\n%s", n, p.String())
	}
	var n bytes.Buffer
	_ = Failure(&n, "nagios", Tool{}, FailUsage, "bad\nflag | x")
	if got := n.String(); !strings.HasPrefix(got, "DISKDOCTOR UNKNOWN - ") || strings.Count(got, "\n") != 1 || strings.Contains(got, "|") {
		t.Errorf("nagios failure form %q", got)
	}
	var x bytes.Buffer
	_ = Failure(&x, "text", Tool{}, FailUsage, "bad")
	if x.Len() != 0 {
		t.Errorf("text failure form %q, want nothing (stderr has it)", x.String())
	}
}
