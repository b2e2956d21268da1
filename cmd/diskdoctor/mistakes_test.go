package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
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
		{[]string{"--sample", "0s"}, "--sample 0s: must be longer than zero"},
		{[]string{"--sample", "-5s"}, "--sample -5s: must be longer than zero"},
		{[]string{"--probe-timeout", "0"}, "--probe-timeout 0s: must be longer than zero"},
		{[]string{"--probe-timeout", "-1s"}, "--probe-timeout -1s: must be longer than zero"},
		{[]string{"--width", "10"}, "--width 10: at least 40 columns"},
		{[]string{"--datasheets", notYAML}, "not a datasheet table"},
		{[]string{"--disable-check", "writecahce"}, `did you mean "write-cache"?`},
		{[]string{"--output", "/nonexistent-dir/report.json"}, "the directory /nonexistent-dir does not exist"},
		{[]string{"chekcs"}, `unknown command "chekcs": did you mean "checks"?`},
		{[]string{"explain", "write-cache-disabeld"}, `did you mean "write-cache-disabled"?`},
		{[]string{"explain", "write-cache-disabled", "--format", "md"}, `--format "md": not one of text, yaml`},
	} {
		var out, errb bytes.Buffer
		args := c.args
		if args[0] != "chekcs" && args[0] != "explain" {
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
