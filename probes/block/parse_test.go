package block

import (
	"testing"
)

func TestParseScheduler(t *testing.T) {
	tests := []struct {
		in     string
		active string
		n      int
	}{
		{"none [mq-deadline] kyber bfq", "mq-deadline", 4},
		{"[none] mq-deadline", "none", 2},
		{"none", "none", 1},
		{"", "", 0},
		{"[] none", "", 2},
		{"[bfq", "", 1},
	}
	for _, tt := range tests {
		a, all := ParseScheduler(tt.in)
		if a != tt.active || len(all) != tt.n {
			t.Errorf("ParseScheduler(%q) = %q %v", tt.in, a, all)
		}
	}
}
