package checks

import (
	"slices"
	"testing"
)

// TestRunOrder: every check is named in runOrder and registered in its
// place there, whatever the order of the files' init functions.
func TestRunOrder(t *testing.T) {
	var names []string
	for _, c := range All() {
		names = append(names, c.Name)
	}
	if !slices.Equal(names, runOrder) {
		t.Errorf("checks registered as %q, want runOrder %q (a new check is appended to runOrder in check.go)", names, runOrder)
	}
}
