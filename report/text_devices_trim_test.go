package report

import (
	"testing"

	"github.com/diskdoctor/diskdoctor/checks"
)

// TestTrimCell: unknown is "?", never NEVER; a running zpool trim is not
// NEVER; a guest's disk says what the guest sees.
func TestTrimCell(t *testing.T) {
	ssd := func(kv ...any) map[string]any {
		d := map[string]any{checks.FactRotational: false}
		for i := 0; i < len(kv); i += 2 {
			d[kv[i].(string)] = kv[i+1]
		}
		return d
	}
	for _, c := range []struct {
		name string
		d    map[string]any
		want string
	}{
		{"schedule unread", ssd(checks.FactTrimSupported, true, checks.FactTrimRelevant, true, checks.FactTrimCovered, nil), "?"},
		{"discard support unread", ssd(checks.FactTrimCovered, false), "?"},
		{"nothing trims it", ssd(checks.FactTrimSupported, true, checks.FactTrimRelevant, true, checks.FactTrimCovered, false), "NEVER"},
		{"zpool trim running", ssd(checks.FactTrimSupported, true, checks.FactTrimRelevant, true, checks.FactTrimCovered, false, checks.FactZFSTrimState, "active"), "running"},
		{"scheduled", ssd(checks.FactTrimSupported, true, checks.FactTrimRelevant, true, checks.FactTrimCovered, true), "scheduled"},
		{"holds nothing", ssd(checks.FactTrimSupported, true, checks.FactTrimRelevant, false, checks.FactTrimCovered, false), "yes"},
		{"takes no discard", ssd(checks.FactTrimSupported, false), "no"},
		{"hard disk", map[string]any{checks.FactRotational: true}, "-"},
		{"guest disk passes", map[string]any{checks.FactVirtualDisk: true, checks.FactRotational: true, checks.FactTrimSupported: true}, "passes"},
		{"guest disk does not", map[string]any{checks.FactVirtualDisk: true, checks.FactTrimSupported: false}, "no"},
		{"guest disk unread", map[string]any{checks.FactVirtualDisk: true}, "?"},
	} {
		if got := trimCell(c.d); got != c.want {
			t.Errorf("%s: %q, want %q", c.name, got, c.want)
		}
	}
}
