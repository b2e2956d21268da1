package report

import (
	"strings"
	"testing"

	"github.com/diskdoctor/diskdoctor/checks"
	"github.com/diskdoctor/diskdoctor/rules"
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

// A disk the kernel log says is gone is neither virtual nor an NVMe path,
// and a report with no block device at all says so under its heading.
func TestDeviceTableGoneAndEmpty(t *testing.T) {
	for _, c := range []struct {
		name    string
		devices []map[string]any
		want    string
		wantNot string
	}{
		{"gone", []map[string]any{{"name": "sdb", checks.FactJudged: false, "klog_gone": true}}, "gone (in the kernel log, no longer in /sys/block): sdb", "virtual"},
		{"none", nil, "no block device in /sys/block", ""},
	} {
		tw := &textWriter{p: newPalette(nil, false), width: 80}
		deviceTable(tw, &rules.Report{Devices: c.devices}, false)
		out := tw.b.String()
		if !strings.Contains(out, c.want) || c.wantNot != "" && strings.Contains(out, c.wantNot) {
			t.Errorf("%s: %q, want %q", c.name, out, c.want)
		}
	}
}

// A controller with nothing to show but its address gets no row of empty
// cells, and a table of none is left out.
func TestControllerTableLeavesOutEmptyRows(t *testing.T) {
	tw := &textWriter{p: newPalette(nil, false), width: 80}
	controllerTable(tw, &rules.Report{Controllers: []map[string]any{{"name": "0000:00:17.0", "ahci_remapped_nvme": 1}}})
	if out := tw.b.String(); out != "" {
		t.Errorf("%q", out)
	}
}
