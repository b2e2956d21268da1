package bootcfg

import (
	"strings"
	"testing"
	"time"
)

func TestUdevGlobMatch(t *testing.T) {
	for _, tt := range []struct {
		p, s string
		want bool
	}{
		{"sd*", "sda", true}, {"sd*", "nvme0n1", false}, {"sd[a-z]", "sdb", true}, {"sd[a-z]", "sdaa", false},
		{"[sh]d[a-z]*", "hdc", true}, {"add|change", "add", true}, {"add|change", "remove", false},
		{"WD?X", "WD#X", true}, {"WD?X", "WDX", false}, {"*", "", true}, {"a*b*c", "axxbyyc", true},
		{"a*b*c", "axxbyy", false}, {`a\*`, "a*", true}, {`a\*`, "ab", false}, {"nvme[0-9]*n[0-9]*", "nvme10n1", true},
		{"1", "1", true}, {"0", "1", false},
	} {
		if got := udevGlobMatch(tt.p, tt.s); got != tt.want {
			t.Errorf("udevGlobMatch(%q, %q) = %v, want %v", tt.p, tt.s, got, tt.want)
		}
	}
}

// A hostile pattern in a recorded rules file cannot make matching slow.
func TestUdevGlobMatchBounded(t *testing.T) {
	p := strings.Repeat("*a", 200) + "b"
	s := strings.Repeat("a", 5000)
	done := make(chan bool, 1)
	go func() { done <- globMatch(p, s) }()
	select {
	case got := <-done:
		if got {
			t.Error("matched")
		}
	case <-time.After(5 * time.Second):
		t.Fatal("glob matching is super-linear")
	}
}

func FuzzUdevGlobMatch(f *testing.F) {
	f.Add("sd*", "sda")
	f.Add("[a-", "a")
	f.Add(`\`, `\`)
	f.Fuzz(func(t *testing.T, p, s string) {
		if len(p) > 256 || len(s) > 256 {
			return
		}
		_ = udevGlobMatch(p, s)
	})
}
