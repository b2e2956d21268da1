package suggest

import "testing"

func TestClosest(t *testing.T) {
	cands := []string{"checks", "rules", "explain", "snapshot", "diff", "bench"}
	for word, want := range map[string]string{"chekcs": "checks", "rulse": "rules", "explian": "explain", "xyz": "", "snapshto": "snapshot", "banana": ""} {
		if got := Closest(word, cands); got != want {
			t.Errorf("Closest(%q) = %q, want %q", word, got, want)
		}
	}
}
