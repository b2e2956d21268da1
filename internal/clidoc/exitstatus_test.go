package clidoc

import (
	"strings"
	"testing"

	"github.com/spf13/cobra"
)

func TestAddExitStatusHelp(t *testing.T) {
	root := &cobra.Command{Use: "diskdoctor", Long: "diskdoctor reads."}
	diff := &cobra.Command{Use: "diff", Long: "diff compares.\n\nExit status: 0 same, 1 worse.\n\nMore text."}
	own := &cobra.Command{Use: "own", Long: "own.\n\nExit status: 0 fine, 5 odd."}
	bench := &cobra.Command{Use: "bench", Long: "bench.\n\nEXIT STATUS\n  0  ran"}
	list := &cobra.Command{Use: "list", Short: "List things"}
	sub := &cobra.Command{Use: "inner", Short: "Nested"}
	list.AddCommand(sub)
	root.AddCommand(diff, own, bench, list)
	AddExitStatusHelp(root)

	if !strings.HasSuffix(root.Long, "\n\nEXIT STATUS\n"+exitStatusHelp["diskdoctor"]) {
		t.Errorf("root:\n%s", root.Long)
	}
	// The table wins over a legacy paragraph, which is taken out.
	if want := "diff compares.\n\nMore text.\n\nEXIT STATUS\n" + exitStatusHelp["diff"]; diff.Long != want {
		t.Errorf("diff:\n%q\nwant\n%q", diff.Long, want)
	}
	// Without a table entry the legacy paragraph becomes the section.
	if want := "own.\n\nEXIT STATUS\n  0 fine, 5 odd."; own.Long != want {
		t.Errorf("own:\n%q\nwant\n%q", own.Long, want)
	}
	if bench.Long != "bench.\n\nEXIT STATUS\n  0  ran" {
		t.Errorf("a help that has its section is left as written:\n%q", bench.Long)
	}
	for _, c := range []*cobra.Command{list, sub} {
		if want := c.Short + ".\n\nEXIT STATUS\n" + exitStatusDefault; c.Long != want {
			t.Errorf("%s:\n%q\nwant\n%q", c.Name(), c.Long, want)
		}
	}
}

func TestExitStatusOfIsTheDesignsFour(t *testing.T) {
	for _, path := range []string{"diskdoctor", "diskdoctor diff", "diskdoctor bench", "diskdoctor rules"} {
		for _, e := range exitStatusOf(commandAt(path)) {
			if e.code < 0 || e.code > 3 || e.meaning == "" {
				t.Errorf("%s: exit status %d %q", path, e.code, e.meaning)
			}
		}
	}
}

// commandAt builds the command whose CommandPath is path.
func commandAt(path string) *cobra.Command {
	words := strings.Fields(path)
	c := &cobra.Command{Use: words[0]}
	for _, w := range words[1:] {
		s := &cobra.Command{Use: w}
		c.AddCommand(s)
		c = s
	}
	return c
}
