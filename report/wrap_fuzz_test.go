package report

import (
	"strings"
	"testing"
	"unicode/utf8"
)

// FuzzClean: whatever a recorded machine holds, the cleaned text holds no
// control character and no bidi override.
func FuzzClean(f *testing.F) {
	for _, s := range []string{"x\x1b[2J\x1b[HREADY", "a\rb\a\u202e", "\xff\xfe", "plain", "\u0085\u009b31m"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		c := clean(s)
		if !utf8.ValidString(c) {
			t.Fatalf("clean(%q) = %q is not UTF-8", s, c)
		}
		for _, r := range c {
			if r < 0x20 || r == 0x7f || (r >= 0x80 && r < 0xa0) || isBidiControl(r) {
				t.Fatalf("clean(%q) = %q holds %U", s, c, r)
			}
		}
	})
}

// FuzzWrap: prose and commands are never wider than the width (a
// here-document's body aside), and prose keeps every word.
func FuzzWrap(f *testing.F) {
	f.Add("echo 'ACTION==\"add|change\", SUBSYSTEM==\"block\"' >> /etc/udev/rules.d/x.rules", 40)
	f.Add("a\\ b\\ c \"d e f\" 'g h' ij", 41)
	f.Add("wörd wörter — µs…", 45)
	f.Fuzz(func(t *testing.T, s string, w int) {
		if w < minWidth || w > 300 || !utf8.ValidString(s) || strings.ContainsAny(s, "\t\r") || strings.Contains(s, "<<") {
			return
		}
		s = clean(s)
		for _, l := range wrapCommand(s, w, 16, 16) {
			if width(l) > w {
				t.Fatalf("wrapCommand(%q, %d): line of %d columns: %q", s, w, width(l), l)
			}
		}
		prose := strings.ReplaceAll(s, "\n", " ")
		lines := wrap(prose, w, 4, 4)
		for _, l := range lines {
			if width(l) > w {
				t.Fatalf("wrap(%q, %d): line of %d columns: %q", prose, w, width(l), l)
			}
		}
		if got, want := strings.Join(strings.Fields(strings.Join(lines, "")), ""), strings.Join(strings.Fields(prose), ""); got != want {
			t.Fatalf("wrap(%q) lost text: %q", prose, got)
		}
	})
}
