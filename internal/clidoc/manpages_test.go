package clidoc

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/spf13/cobra"
)

// The whole program's tree is cmd/diskdoctor's TestGenDocs; this one is a
// small tree, to show each section lands where man-pages(7) wants it.
func TestWriteSmallTree(t *testing.T) {
	root := &cobra.Command{Use: "diskdoctor", Short: "root", Run: func(*cobra.Command, []string) {}}
	root.Flags().String("root", "", "a recorded machine")
	diff := &cobra.Command{Use: "diff OLD NEW", Short: "compare", Run: func(*cobra.Command, []string) {}}
	hidden := &cobra.Command{Use: "gen-docs", Hidden: true, Run: func(*cobra.Command, []string) {}}
	root.AddCommand(diff, hidden)
	dir := t.TempDir()
	date := time.Date(2026, 11, 30, 0, 0, 0, 0, time.UTC)
	if err := Write(root, dir, "diskdoctor 9.9", date); err != nil {
		t.Fatal(err)
	}
	page, err := os.ReadFile(filepath.Join(dir, "man", "diskdoctor-diff.8"))
	if err != nil {
		t.Fatal(err)
	}
	p := string(page)
	exit, files, see := strings.Index(p, ".SH EXIT STATUS\n"), strings.Index(p, ".SH FILES\n"), strings.Index(p, ".SH SEE ALSO\n")
	if exit < 0 || files < exit || see < files {
		t.Errorf("sections out of order (EXIT STATUS %d, FILES %d, SEE ALSO %d):\n%s", exit, files, see, p)
	}
	if !strings.Contains(p, `"diskdoctor 9.9"`) || !strings.Contains(p, ".TP\n.B 1\nSomething got worse") {
		t.Errorf("diff page lacks the source or its exit status 1:\n%s", p)
	}
	if _, err := os.Stat(filepath.Join(dir, "man", "diskdoctor-gen-docs.8")); err == nil {
		t.Error("a hidden command got a page")
	}
	for _, c := range []string{"diskdoctor.bash", "_diskdoctor", "diskdoctor.fish"} {
		if _, err := os.Stat(filepath.Join(dir, "completions", c)); err != nil {
			t.Error(err)
		}
	}
}

func TestRoffText(t *testing.T) {
	for in, want := range map[string]string{
		"--root DIR":      `\-\-root DIR`,
		`a\b`:             `a\eb`,
		".hidden request": `\&.hidden request`,
		"'quote":          `\&'quote`,
	} {
		if got := roffText(in); got != want {
			t.Errorf("roffText(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestDate(t *testing.T) {
	d, err := Date("1764504000")
	if err != nil || !d.Equal(time.Unix(1764504000, 0)) || d.Location() != time.UTC {
		t.Errorf("Date(epoch) = %v, %v", d, err)
	}
	if _, err := Date("yesterday"); err == nil {
		t.Error("a SOURCE_DATE_EPOCH that is not a number must be an error")
	}
	if d, err := Date(""); err != nil || time.Since(d) > time.Minute {
		t.Errorf("Date(\"\") = %v, %v; want now", d, err)
	}
}

func TestAddManSectionsNeedsSeeAlso(t *testing.T) {
	if _, err := addManSections([]byte(".SH NAME\nx\n"), &cobra.Command{Use: "diskdoctor"}); err == nil {
		t.Error("a page without SEE ALSO must be an error, not a page without EXIT STATUS")
	}
}
