package main

import (
	"bytes"
	"strings"
	"testing"

	"github.com/spf13/cobra"
)

func init() {
	// A subcommand that panics, for TestPanicExits3; hidden from help.
	subcommands = append(subcommands, func() *cobra.Command {
		return &cobra.Command{Use: "zz-test-panic", Hidden: true, RunE: func(*cobra.Command, []string) error {
			var m map[string]int
			//lint:ignore SA5000 the test needs a real runtime panic, not a panic() call
			m["x"]++ // assignment to entry in nil map
			return nil
		}}
	})
}

// TestPanicExits3: a runtime panic is recovered at the top and exits 3
// (UNKNOWN) with its message, never 2, the status of a critical verdict
// (issue #16).
func TestPanicExits3(t *testing.T) {
	var out, errb bytes.Buffer
	code := run(t.Context(), []string{"zz-test-panic"}, &out, &errb)
	if code != 3 || !strings.Contains(errb.String(), "internal error") || !strings.Contains(errb.String(), "assignment to entry in nil map") {
		t.Errorf("exit %d, stderr %q; want 3 and the panic's message", code, errb.String())
	}
}

// TestEveryCommandHasExitStatus: every command's help ends with an EXIT
// STATUS section (issue #13), subcommands of subcommands included.
func TestEveryCommandHasExitStatus(t *testing.T) {
	exit := 0
	root := newRootCmd(&exit)
	var walk func(c *cobra.Command)
	n := 0
	walk = func(c *cobra.Command) {
		n++
		var out bytes.Buffer
		c.SetOut(&out)
		if err := c.Help(); err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(out.String(), "\nEXIT STATUS\n  0  ") {
			t.Errorf("%q: no EXIT STATUS section in its help:\n%s", c.CommandPath(), out.String())
		}
		if strings.Count(strings.ToLower(out.String()), "exit status") != 1 {
			t.Errorf("%q: the exit status is described more than once:\n%s", c.CommandPath(), out.String())
		}
		for _, sub := range c.Commands() {
			walk(sub)
		}
	}
	walk(root)
	if n < 8 {
		t.Errorf("walked %d commands", n)
	}
}
