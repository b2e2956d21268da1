package report

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"reflect"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/diskdoctor/diskdoctor/checks"
	"github.com/diskdoctor/diskdoctor/rules"
)

// encoderJSON is what renderJSON must write: encoding/json's Encoder with
// two spaces of indentation.
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

// TestRenderJSONKeyOrdersAreNotConfused: objects with the same number of
// keys but other keys, key sets that come back after more than maxOrders
// others, and nested objects at the same depth are each written in their
// own sorted order with their own values.
func TestRenderJSONKeyOrdersAreNotConfused(t *testing.T) {
	var devs []map[string]any
	sets := [][]string{{"a", "b", "c"}, {"a", "b", "d"}, {"b", "c", "d"}, {"x"}, {"a", "c", "d"}, {"y", "z"}, {"a", "b", "c", "d"}}
	for round := range 3 {
		for si, set := range sets {
			m := map[string]any{}
			for ki, k := range set {
				m[k] = fmt.Sprintf("%d-%d-%d", round, si, ki)
			}
			m["inner"] = map[string]any{set[0]: round, "q": si}
			devs = append(devs, m)
		}
	}
	rep := &rules.Report{Schema: rules.Schema, Findings: []rules.Finding{}, Skipped: []checks.Skipped{}, Devices: devs}
	var got bytes.Buffer
	if err := renderJSON(&got, rep, RunInfo{}); err != nil {
		t.Fatal(err)
	}
	if want := encoderJSON(t, rep); !bytes.Equal(got.Bytes(), want) {
		t.Errorf("renderJSON differs from encoding/json:\ngot:\n%s\nwant:\n%s", got.Bytes(), want)
	}
}

// A report with many devices, written through more than one flush of
// the writer's buffer, is the encoder's bytes, and a NaN in a late device the
// encoder's error, whether its devices are written on one core or in rounds
// of chunks on several (devices): one short of a parallel round, exactly
// one, and several with an odd last chunk.
func TestRenderJSONManyDevices(t *testing.T) {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(0))
	hostile := "a\"b\\c\n<&>\u2028é\xff"
	for _, procs := range []int{1, 2, 3} {
		runtime.GOMAXPROCS(procs)
		for _, n := range []int{2*devicesChunk - 1, 2 * devicesChunk, 263} {
			rep := &rules.Report{Schema: rules.Schema, Findings: []rules.Finding{}, Skipped: []checks.Skipped{}}
			for i := range n {
				d := map[string]any{"name": fmt.Sprintf("sd%d", i), "i": i, "f": float64(i) / 3, "s": hostile, "pad": strings.Repeat("p", 200)}
				if i%3 == 0 {
					d["extra"] = []any{i, hostile, map[string]any{"k": i}}
				}
				rep.Devices = append(rep.Devices, d)
			}
			var got bytes.Buffer
			if err := renderJSON(&got, rep, RunInfo{}); err != nil {
				t.Fatal(err)
			}
			if got.Len() <= jsonFlushAt {
				t.Fatalf("%d bytes: the test should span a flush", got.Len())
			}
			if want := encoderJSON(t, rep); !bytes.Equal(got.Bytes(), want) {
				t.Errorf("GOMAXPROCS %d: renderJSON of %d devices differs from encoding/json", procs, n)
			}
			rep.Devices[n-3]["x"] = math.NaN()
			var uv *json.UnsupportedValueError
			if err := renderJSON(&bytes.Buffer{}, rep, RunInfo{}); !errors.As(err, &uv) {
				t.Errorf("GOMAXPROCS %d, %d devices: NaN in a late device: got %v, want an UnsupportedValueError", procs, n, err)
			}
			delete(rep.Devices[n-3], "x")
			if err := renderJSON(failingWriter{}, rep, RunInfo{}); !errors.Is(err, errWriterFailed) {
				t.Errorf("GOMAXPROCS %d, %d devices: a failing writer: got %v", procs, n, err)
			}
		}
	}
}

var errWriterFailed = errors.New("writer failed")

// failingWriter fails every write, as a closed pipe does.
type failingWriter struct{}

func (failingWriter) Write([]byte) (int, error) { return 0, errWriterFailed }

// The streaming renderer names the report's fields itself: a field added
// to rules.Report must be added to renderJSON too.
func TestRenderJSONKnowsEveryReportField(t *testing.T) {
	var names []string
	rt := reflect.TypeFor[rules.Report]()
	for i := range rt.NumField() {
		names = append(names, rt.Field(i).Tag.Get("json"))
	}
	want := "schema host verdict findings skipped passed waived_findings,omitempty waivers,omitempty config,omitempty devices controllers,omitempty sample,omitempty"
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

// FuzzRenderJSON: any string (as a value, a key, in a list) and any number
// is written as encoding/json writes it.
func FuzzRenderJSON(f *testing.F) {
	f.Add("sda", "model", 1.5, int64(3))
	f.Add("a\"<b>&\u2028\xff\x00", "\t", 1e-7, int64(-1))
	f.Add("", "", 1e21, int64(0))
	f.Fuzz(func(t *testing.T, s, k string, x float64, n int64) {
		if math.IsNaN(x) || math.IsInf(x, 0) {
			return // an error for both, tested above
		}
		rep := &rules.Report{Schema: rules.Schema, Host: rules.Host{Hostname: s}, Verdict: k,
			Findings: []rules.Finding{{Rule: k, Subjects: []string{s}}}, Skipped: []checks.Skipped{},
			Devices: []map[string]any{{"name": s, k: x, s + k: []string{s, k}, "n": n, "m": map[string]any{k: s, "l": []any{x, s, n}}}}}
		var got bytes.Buffer
		if err := renderJSON(&got, rep, RunInfo{}); err != nil {
			t.Fatal(err)
		}
		if want := encoderJSON(t, rep); !bytes.Equal(got.Bytes(), want) {
			t.Fatalf("renderJSON differs from encoding/json:\ngot:\n%s\nwant:\n%s", got.Bytes(), want)
		}
	})
}

// TestRenderJSONEveryByte: a string of each byte value, alone and between
// plain letters, is written as encoding/json writes it.
func TestRenderJSONEveryByte(t *testing.T) {
	for c := range 256 {
		for _, s := range []string{string([]byte{byte(c)}), "a" + string([]byte{byte(c)}) + "b"} {
			rep := &rules.Report{Schema: rules.Schema, Host: rules.Host{Hostname: s}, Skipped: []checks.Skipped{},
				Devices: []map[string]any{{"name": s, s: []string{s}}}}
			var got bytes.Buffer
			if err := renderJSON(&got, rep, RunInfo{}); err != nil {
				t.Fatal(err)
			}
			if want := encoderJSON(t, rep); !bytes.Equal(got.Bytes(), want) {
				t.Fatalf("byte %#x: renderJSON differs from encoding/json:\ngot:\n%s\nwant:\n%s", c, got.Bytes(), want)
			}
		}
	}
}
