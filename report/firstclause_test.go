package report

import "testing"

// A finding's short line leaves out parenthesised asides, but not a
// parenthesis that is part of a word.
func TestFirstClauseKeepsWordParentheses(t *testing.T) {
	for in, want := range map[string]string{
		"md0 inactive with 4 member(s) held: sde1; on sde":            "md0 inactive with 4 member(s) held: sde1",
		"every member active ([UU] in /proc/mdstat), none marked (F)": "every member active, none marked",
		"inactive sde1[4](S) sdc1[1](S)":                              "inactive sde1[4](S) sdc1[1](S)",
		"Adaptec 6405 (c1) logical drive 0 (RAID 10): Degraded":       "Adaptec 6405 logical drive 0: Degraded",
	} {
		if got := firstClause(in); got != want {
			t.Errorf("firstClause(%q) = %q, want %q", in, got, want)
		}
	}
}
