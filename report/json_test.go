package report

import (
	"bytes"
	"encoding/json"
	"errors"
	"math"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/diskdoctor/diskdoctor/checks"
	"github.com/diskdoctor/diskdoctor/rules"
)

// encoderJSON is the report as encoding/json's Encoder writes it with two
// spaces of indentation: renderJSON's document without provenance.
func encoderJSON(t *testing.T, rep *rules.Report) []byte {
	t.Helper()
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetIndent("", "  ")
	if err := enc.Encode(rep); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

// The document without provenance is the report as the Encoder writes
// it: every field in rules.Report's order, the devices one by one as in
// one array, hostile strings and keys escaped as encoding/json escapes
// them.
func TestRenderJSONIsTheEncoders(t *testing.T) {
	hostile := "a\"b\\c\n\t\x01<script>&\u2028é\xff"
	rep := &rules.Report{
		Schema:  rules.Schema,
		Host:    rules.Host{Hostname: hostile, Kernel: "6.1", Root: "/r"},
		Verdict: rules.VerdictCritical,
		Findings: []rules.Finding{{Rule: "r", Severity: rules.Critical, Subjects: []string{"sda", hostile},
			Evidence: []checks.Evidence{{Source: "/sys/x", Value: hostile}}, Remediation: []rules.Remediation{}}},
		Skipped: []checks.Skipped{},
		Devices: []map[string]any{
			{
				"name": "sda", "s": hostile, hostile: "key escaped", "t": true, "f": false, "nil": nil,
				"i": 3, "i64": int64(-7), "u64": uint64(1 << 63), "f0": 0.0, "fneg0": math.Copysign(0, -1),
				"f1": 1.5, "fsmall": 1e-7, "fsmall2": 1.234e-9, "fbig": 1e21, "fbig2": 123456789e20, "fmid": 999999999999.25,
				"strs": []string{"a", hostile}, "nostrs": []string{}, "nilstrs": []string(nil),
				"any": []any{1, "x", []string{"y"}, map[string]any{"k": 1.0}, nil}, "noany": []any{},
				"m":   map[string]any{"b": 1, "a": map[string]any{}, "c": map[string]any(nil)},
				"dur": 3 * time.Second, "ev": checks.Evidence{Source: "s", Value: "<v>"},
				"f32": float32(0.1), "ints": []int{1, 2}, "emptyMapOfInts": map[string]int{},
				"nested": []map[string]any{{"z": 1}}, "named": rules.Remediation{Command: "a && b", Risk: "runtime"},
			},
			{"name": "sdb"},
			{},
		},
		Sample: &checks.Sample{Seconds: 1, Source: "/proc/diskstats", Pressure: map[string]float64{"io_some": 2.5, "cpu_some": 0}},
	}
	for _, r := range []*rules.Report{rep, {Schema: rules.Schema}, {Devices: []map[string]any{}, Findings: []rules.Finding{}}} {
		var got bytes.Buffer
		if err := renderJSON(&got, r, RunInfo{}); err != nil {
			t.Fatal(err)
		}
		if want := encoderJSON(t, r); !bytes.Equal(got.Bytes(), want) {
			t.Errorf("renderJSON differs from encoding/json:\ngot:\n%s\nwant:\n%s", got.Bytes(), want)
		}
	}
}

// Provenance (tool, started_at, duration_seconds) comes right after the
// schema, and the rest of the document is the report's own encoding.
func TestRenderJSONProvenanceAfterSchema(t *testing.T) {
	rep := &rules.Report{Schema: rules.Schema, Host: rules.Host{Hostname: "h"}, Verdict: rules.VerdictOK,
		Findings: []rules.Finding{}, Skipped: []checks.Skipped{}, Devices: []map[string]any{{"name": "sda"}}}
	run := RunInfo{Start: time.Date(2026, 11, 29, 17, 58, 12, 0, time.UTC), Duration: 1500 * time.Millisecond,
		Tool: Tool{Name: "diskdoctor", Version: "1.2.3"}}
	var got bytes.Buffer
	if err := renderJSON(&got, rep, run); err != nil {
		t.Fatal(err)
	}
	const schema = "  \"schema\": \"diskdoctor/v1\",\n"
	provenance := "  \"tool\": {\n    \"name\": \"diskdoctor\",\n    \"version\": \"1.2.3\"\n  },\n" +
		"  \"started_at\": \"2026-11-29T17:58:12Z\",\n  \"duration_seconds\": 1.5,\n"
	want := strings.Replace(string(encoderJSON(t, rep)), schema, schema+provenance, 1)
	if got.String() != want {
		t.Errorf("got:\n%s\nwant:\n%s", got.String(), want)
	}
}

// renderJSON names the report's fields itself: a field added to
// rules.Report must be added to renderJSON too.
func TestRenderJSONKnowsEveryReportField(t *testing.T) {
	var names []string
	rt := reflect.TypeFor[rules.Report]()
	for i := range rt.NumField() {
		names = append(names, rt.Field(i).Tag.Get("json"))
	}
	want := "schema host platform,omitempty verdict incomplete ready not_ready,omitempty - findings skipped passed waived_findings,omitempty waivers,omitempty config,omitempty devices controllers,omitempty sample,omitempty"
	if got := strings.Join(names, " "); got != want {
		t.Fatalf("rules.Report's JSON fields are %q, renderJSON writes %q: update renderJSON", got, want)
	}
}

func TestRenderJSONErrors(t *testing.T) {
	// A value encoding/json cannot write is an error, as it was.
	rep := &rules.Report{Devices: []map[string]any{{"x": math.NaN()}}}
	var b bytes.Buffer
	var uv *json.UnsupportedValueError
	if err := renderJSON(&b, rep, RunInfo{}); !errors.As(err, &uv) {
		t.Errorf("NaN: got %v, want an UnsupportedValueError", err)
	}
	// A failing writer's error is returned.
	big := &rules.Report{}
	for range 2000 {
		big.Devices = append(big.Devices, map[string]any{"name": strings.Repeat("x", 100)})
	}
	if err := renderJSON(failWriter{}, big, RunInfo{}); !errors.Is(err, errFail) {
		t.Errorf("failing writer: got %v, want %v", err, errFail)
	}
}

var errFail = errors.New("disk full")

type failWriter struct{}

func (failWriter) Write([]byte) (int, error) { return 0, errFail }
