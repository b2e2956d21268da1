package main

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/santhosh-tekuri/jsonschema/v6"
)

// TestMistakesAPersonMakes: each is refused with exit 3 before anything
// runs, saying what is valid or what was meant (issues #11, #16 item 11).
func TestMistakesAPersonMakes(t *testing.T) {
	notYAML := filepath.Join(t.TempDir(), "shadow")
	if err := os.WriteFile(notYAML, []byte("root:$y$j9T$abc$def:19800:0:99999:7:::\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	root := []string{"--root", "../../fixtures/healthy-workstation"}
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"--context", "Server"}, `--context "Server": not one of auto, server, desktop, laptop, vm, benchmark (did you mean "server"?)`},
		{[]string{"--context", "sever"}, `did you mean "server"?`},
		{[]string{"--context", "bogus"}, "not one of auto, server, desktop, laptop, vm, benchmark"},
		{[]string{"--color", "sometimes"}, `--color "sometimes": not one of auto, always, never`},
		{[]string{"--color", "bogus"}, "not one of auto, always, never"},
		{[]string{"--format", "jsno"}, `did you mean "json"?`},
		{[]string{"--sample", "-5s"}, "--sample -5s: must be 0 (no window) or longer"},
		{[]string{"--probe-timeout", "0"}, "--probe-timeout 0s: must be longer than zero"},
		{[]string{"--probe-timeout", "-1s"}, "--probe-timeout -1s: must be longer than zero"},
		{[]string{"--width", "10"}, "--width 10: at least 40 columns"},
		{[]string{"--datasheets", notYAML}, "not a datasheet table"},
		{[]string{"--disable-check", "writecahce"}, `did you mean "write-cache"?`},
		{[]string{"--output", "/nonexistent-dir/report.json"}, "the directory /nonexistent-dir does not exist"},
		{[]string{"chekcs"}, `unknown command "chekcs": did you mean "checks"?`},
		{[]string{"explain", "write-cache-disabeld"}, `did you mean "write-cache-disabled"?`},
		{[]string{"explain", "write-cache-disabled", "--format", "md"}, `--format "md": not one of text, yaml`},
		{[]string{"--formt", "json"}, "unknown flag --formt: did you mean --format?"},
		{[]string{"explain", "write-cache-disabled", "--widht", "80"}, "unknown flag --widht: did you mean --width?"},
		{[]string{"--zzzzzzzz"}, "unknown flag --zzzzzzzz (see 'diskdoctor --help')"},
		{[]string{"explain"}, "explain needs one rule id: explain RULE-ID; 'diskdoctor rules' lists them"},
		{[]string{"--root", "mistakes_test.go"}, "not a directory: --root takes a recorded machine's directory, --snapshot a snapshot archive"},
		{[]string{"diff", "A"}, "diff needs two snapshot archives (or recorded machine directories), 1 given: diff OLD NEW"},
	} {
		var out, errb bytes.Buffer
		args := c.args
		if args[0] != "chekcs" && args[0] != "explain" && args[0] != "diff" && args[0] != "--root" {
			args = append(append([]string{}, c.args...), root...)
		}
		code := run(t.Context(), args, &out, &errb)
		if code != 3 || !strings.Contains(errb.String(), c.want) {
			t.Errorf("%v: exit %d, stderr %q; want 3 and %q", c.args, code, errb.String(), c.want)
		}
	}
}

// TestExplainFormats: explain prints words by default and the definition
// with --format yaml.
func TestExplainFormats(t *testing.T) {
	var out, errb bytes.Buffer
	if code := run(t.Context(), []string{"explain", "write-cache-disabled", "--format", "yaml"}, &out, &errb); code != 0 {
		t.Fatalf("exit %d: %s", code, errb.String())
	}
	if !strings.Contains(out.String(), "id: write-cache-disabled") || !strings.Contains(out.String(), "when: ") {
		t.Errorf("--format yaml is not the definition:\n%s", out.String())
	}
}

// TestExit3SaysWhyInEveryFormat: a run that reaches no verdict, for a usage
// error as for a machine that cannot be examined, prints its format's
// failure form on stdout (issue #25): a diskdoctor/v1 JSON document with
// the error, diskdoctor_up 0, the Nagios UNKNOWN line.
func TestExit3SaysWhyInEveryFormat(t *testing.T) {
	sch, err := jsonschema.NewCompiler().Compile("../../docs/schema/diskdoctor-v1.schema.json")
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		args   []string
		reason string
	}{
		{[]string{"--formt", "x"}, "usage"},
		{[]string{"--context", "sever"}, "usage"},
		{[]string{"--root", filepath.Join(t.TempDir(), "nothing-here")}, "examine"},
	} {
		var out, errb bytes.Buffer
		if code := run(t.Context(), append(append([]string{}, c.args...), "--format", "json"), &out, &errb); code != 3 {
			t.Fatalf("%v: exit %d, want 3", c.args, code)
		}
		inst, err := jsonschema.UnmarshalJSON(bytes.NewReader(out.Bytes()))
		if err != nil {
			t.Fatalf("%v --format json: not JSON: %v\n%s", c.args, err, out.String())
		}
		if err := sch.Validate(inst); err != nil {
			t.Errorf("%v --format json: not diskdoctor/v1: %v\n%s", c.args, err, out.String())
		}
		var doc struct {
			Error, Reason string
			Exit          int
		}
		_ = json.Unmarshal(out.Bytes(), &doc)
		if doc.Exit != 3 || doc.Reason != c.reason || !strings.Contains(errb.String(), doc.Error) {
			t.Errorf("%v: %+v, stderr %q", c.args, doc, errb.String())
		}
		out.Reset()
		run(t.Context(), append(append([]string{}, c.args...), "-f", "prometheus"), &out, &bytes.Buffer{})
		if !strings.Contains(out.String(), "\ndiskdoctor_up 0\n") || !strings.Contains(out.String(), `diskdoctor_error_info{reason="`+c.reason+`"} 1`) {
			t.Errorf("%v --format prometheus:\n%s", c.args, out.String())
		}
		out.Reset()
		run(t.Context(), append(append([]string{}, c.args...), "--format=nagios"), &out, &bytes.Buffer{})
		if !strings.HasPrefix(out.String(), "DISKDOCTOR UNKNOWN - ") || strings.Count(out.String(), "\n") != 1 {
			t.Errorf("%v --format nagios: %q", c.args, out.String())
		}
		out.Reset()
		run(t.Context(), c.args, &out, &bytes.Buffer{})
		if out.Len() != 0 {
			t.Errorf("%v (text): stdout %q, want nothing", c.args, out.String())
		}
	}
}

// TestJSONProvenance: the binary's JSON names itself, when it started and
// how long it took (issue #25).
func TestJSONProvenance(t *testing.T) {
	var out, errb bytes.Buffer
	if code := run(t.Context(), []string{"--root", "../../fixtures/healthy-workstation", "--format", "json"}, &out, &errb); code != 0 {
		t.Fatalf("exit %d: %s", code, errb.String())
	}
	var doc struct {
		Tool struct {
			Name, Version string
		}
		StartedAt       string   `json:"started_at"`
		DurationSeconds *float64 `json:"duration_seconds"`
	}
	if err := json.Unmarshal(out.Bytes(), &doc); err != nil {
		t.Fatal(err)
	}
	at, err := time.Parse(time.RFC3339, doc.StartedAt)
	if doc.Tool.Name != "diskdoctor" || doc.Tool.Version != version || err != nil || time.Since(at) > time.Hour || doc.DurationSeconds == nil || *doc.DurationSeconds < 0 {
		t.Errorf("provenance %+v (started_at: %v)", doc, err)
	}
}

func TestFlagArg(t *testing.T) {
	for args, want := range map[string]string{
		"--format json": "json", "-f prometheus": "prometheus", "--format=nagios": "nagios", "-fjson": "json",
		"--root x": "", "--format json -- --format text": "json", "-f json --format text": "text",
	} {
		if got := flagArg(strings.Fields(args), "format", "f"); got != want {
			t.Errorf("flagArg(%s) = %q, want %q", args, got, want)
		}
	}
}

// A failed run with --output replaces the file with the failure form: a
// node_exporter textfile must not keep the last good report (a critical
// one, say) after the runs that followed failed. The run that wrote its
// metrics exits 0 whatever its verdict (it is in the metrics), the failed
// one 3: the shipped unit fails only then.
func TestExit3ReplacesTheOutputFile(t *testing.T) {
	file := filepath.Join(t.TempDir(), "diskdoctor.prom")
	if code := run(t.Context(), []string{"--root", "../../fixtures/hpe-microserver-writethrough", "-f", "prometheus", "-o", file}, &bytes.Buffer{}, &bytes.Buffer{}); code != 0 {
		t.Fatalf("the good run (a critical verdict): exit %d, want 0", code)
	}
	if b, _ := os.ReadFile(file); !strings.Contains(string(b), "\ndiskdoctor_up 1\n") || !strings.Contains(string(b), "\ndiskdoctor_verdict 2\n") {
		t.Fatalf("the good run's file:\n%s", b)
	}
	if code := run(t.Context(), []string{"--root", filepath.Join(t.TempDir(), "gone"), "-f", "prometheus", "-o", file}, &bytes.Buffer{}, &bytes.Buffer{}); code != 3 {
		t.Fatalf("the failed run: exit %d, want 3", code)
	}
	b, _ := os.ReadFile(file)
	if !strings.Contains(string(b), "\ndiskdoctor_up 0\n") || strings.Contains(string(b), "diskdoctor_findings") {
		t.Errorf("after the failed run the file is:\n%s", b)
	}
}
