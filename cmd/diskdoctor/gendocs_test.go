package main

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/diskdoctor/diskdoctor/internal/buildinfo"
	"github.com/diskdoctor/diskdoctor/internal/clidoc"
	"github.com/diskdoctor/diskdoctor/rules"
)

func TestGenDocs(t *testing.T) {
	date := time.Date(2026, 11, 30, 12, 0, 0, 0, time.UTC)
	gen := func() string {
		dir := t.TempDir()
		exit := rules.ExitOK
		if err := clidoc.Write(newRootCmd(&exit), dir, "diskdoctor "+version, date); err != nil {
			t.Fatal(err)
		}
		return dir
	}
	a, b := gen(), gen()

	exit := rules.ExitOK
	root := newRootCmd(&exit)
	want := []string{"diskdoctor.8"}
	for _, c := range root.Commands() {
		if c.IsAvailableCommand() {
			want = append(want, "diskdoctor-"+c.Name()+".8")
		}
	}
	if len(want) < 8 {
		t.Fatalf("only %d commands in the tree: %v", len(want), want)
	}
	for _, name := range want {
		page, err := os.ReadFile(filepath.Join(a, "man", name))
		if err != nil {
			t.Error(err)
			continue
		}
		p := string(page)
		for _, sec := range []string{".SH NAME", ".SH SYNOPSIS", ".SH EXIT STATUS", ".SH FILES", ".SH SEE ALSO"} {
			if !strings.Contains(p, "\n"+sec+"\n") {
				t.Errorf("%s: no %s", name, sec)
			}
		}
		if !strings.Contains(p, `.TH "DISKDOCTOR`) || !strings.Contains(p, `"8" "Nov 2026"`) {
			t.Errorf("%s: header is not section 8 dated from the given date:\n%s", name, p[:min(200, len(p))])
		}
		if strings.Index(p, ".SH EXIT STATUS") > strings.Index(p, ".SH SEE ALSO") {
			t.Errorf("%s: EXIT STATUS after SEE ALSO", name)
		}
		again, _ := os.ReadFile(filepath.Join(b, "man", name))
		if !bytes.Equal(page, again) {
			t.Errorf("%s: two generations differ (the package would not be reproducible)", name)
		}
	}
	root8, _ := os.ReadFile(filepath.Join(a, "man", "diskdoctor.8"))
	for _, s := range []string{"/etc/diskdoctor/datasheets.d/*.yaml", "diskdoctor.timer", ".B 3"} {
		if !strings.Contains(strings.ReplaceAll(string(root8), `\-`, "-"), s) {
			t.Errorf("diskdoctor.8 does not mention %s", s)
		}
	}
	if _, err := os.Stat(filepath.Join(a, "man", "diskdoctor-gen-docs.8")); err == nil {
		t.Error("the hidden gen-docs command got a man page")
	}
	for name, marker := range map[string]string{
		"diskdoctor.bash": "complete -o default -F __start_diskdoctor diskdoctor",
		"_diskdoctor":     "#compdef diskdoctor",
		"diskdoctor.fish": "complete -c diskdoctor",
	} {
		comp, err := os.ReadFile(filepath.Join(a, "completions", name))
		if err != nil || !strings.Contains(string(comp), marker) {
			t.Errorf("%s: %v, or no %q", name, err, marker)
		}
	}
}

// TestVersionText: --version and the version subcommand print the same,
// with the four libraries of the real build (buildinfo's tests cover the
// formatting).
func TestVersionText(t *testing.T) {
	var flag, sub, stderr bytes.Buffer
	if code := run(context.Background(), []string{"--version"}, &flag, &stderr); code != 0 {
		t.Fatalf("--version: exit %d: %s", code, stderr.String())
	}
	if code := run(context.Background(), []string{"version"}, &sub, &stderr); code != 0 {
		t.Fatalf("version: exit %d: %s", code, stderr.String())
	}
	if flag.String() != sub.String() {
		t.Errorf("--version and version differ:\n%s\n%s", flag.String(), sub.String())
	}
	for _, d := range buildinfo.Deps {
		if !strings.Contains(sub.String(), d+" v") {
			t.Errorf("version does not give %s's version:\n%s", d, sub.String())
		}
	}
}
