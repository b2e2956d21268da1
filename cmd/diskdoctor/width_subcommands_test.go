package main

import (
	"bytes"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"unicode/utf8"
)

// Every subcommand that prints text for a person takes --width and wraps
// at word boundaries (explain's, which had it, wraps commands as shell
// continuations: report's tests hold it): each line fits, and the words are those of the
// unwrapped text (none cut in two). Below the narrowest width the
// subcommand refuses, as the main command does.
func TestSubcommandsWrapAtWidth(t *testing.T) {
	for _, args := range [][]string{
		{"diff", filepath.Join(fixturesDir, "upgrade-before"), filepath.Join(fixturesDir, "upgrade-after"), "--probe-timeout", "1s"},
		{"checks"},
		{"rules"},
	} {
		wide := runText(t, append(slices.Clone(args), "--width", "1000")...)
		for _, w := range []int{50, 80} {
			out := runText(t, append(slices.Clone(args), "--width", itoaW(w))...)
			for _, l := range strings.Split(strings.TrimRight(out, "\n"), "\n") {
				if n := utf8.RuneCountInString(l); n > w {
					t.Errorf("%s --width %d: a line of %d columns: %q", args[0], w, n, l)
				}
			}
			if got, want := strings.Fields(out), strings.Fields(wide); !slices.Equal(got, want) {
				for i := range min(len(got), len(want)) {
					if got[i] != want[i] {
						t.Errorf("%s --width %d: word %d is %q, unwrapped %q (a word cut?)", args[0], w, i, got[i], want[i])
						break
					}
				}
				if len(got) != len(want) {
					t.Errorf("%s --width %d: %d words, unwrapped %d", args[0], w, len(got), len(want))
				}
			}
		}
		var stdout, stderr bytes.Buffer
		if code := run(t.Context(), append(slices.Clone(args), "--width", "20"), &stdout, &stderr); code == 0 || !strings.Contains(stderr.String(), "--width 20: at least 40 columns") {
			t.Errorf("%s --width 20: exit %d, %s", args[0], code, stderr.String())
		}
	}
}

// runText runs the command in this process and returns what it
// printed; exit 1 is diff's "something got worse".
func runText(t *testing.T, args ...string) string {
	t.Helper()
	var stdout, stderr bytes.Buffer
	if code := run(t.Context(), args, &stdout, &stderr); code != 0 && !(args[0] == "diff" && code == 1) {
		t.Fatalf("%v: exit %d: %s", args, code, stderr.String())
	}
	return stdout.String()
}

func itoaW(n int) string { return strconv.Itoa(n) }

// The main command's --color works on every subcommand that prints text for
// a person (a script passes the same flags to each): never gives no escape
// sequence, always colours explain's headings, an unknown mode is refused.
func TestSubcommandsTakeColor(t *testing.T) {
	for _, args := range [][]string{
		{"diff", filepath.Join(fixturesDir, "upgrade-before"), filepath.Join(fixturesDir, "upgrade-after"), "--probe-timeout", "1s"},
		{"checks"},
		{"rules"},
		{"explain", "write-cache-disabled"},
	} {
		if out := runText(t, append(slices.Clone(args), "--color", "never")...); strings.Contains(out, "\x1b[") {
			t.Errorf("%s --color never: an escape sequence in %q", args[0], out)
		}
		var stdout, stderr bytes.Buffer
		if code := run(t.Context(), append(slices.Clone(args), "--color", "nope"), &stdout, &stderr); code != 3 || !strings.Contains(stderr.String(), `--color "nope": not one of auto, always, never`) {
			t.Errorf("%s --color nope: exit %d, %s", args[0], code, stderr.String())
		}
	}
	if out := runText(t, "explain", "write-cache-disabled", "--color", "always"); !strings.Contains(out, "\x1b[") {
		t.Errorf("explain --color always: no colour in %q", out)
	}
}
