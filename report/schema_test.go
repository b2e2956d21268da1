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
