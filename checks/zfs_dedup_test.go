package checks_test

import (
	"testing"
	"time"
)

// zfs-dedup-table-large: mypool's table is entries × per-entry in-core
// size against MemTotal; the ARC's ceiling is not recorded, so its share
// is unknown. A recording without zpool status -D leaves every table
// unknown, with a skipped entry.
func TestZFSDedupFacts(t *testing.T) {
	facts, _ := observe(t, "zfs-dedup-table-large", time.Second)
	p := facts["pool/mypool"]
	if p["zfs_ddt_entries"] != 2261986.0 || p["zfs_ddt_in_core_bytes"] != 2261986.0*8239 || p["zfs_ddt_ram_percent"] != 55.8 {
		t.Errorf("mypool: %v entries, %v in core, %v %% of RAM", p["zfs_ddt_entries"], p["zfs_ddt_in_core_bytes"], p["zfs_ddt_ram_percent"])
	}
	if v, ok := p["zfs_ddt_arc_percent"]; !ok || v != nil {
		t.Errorf("ARC share = %v (present %v), want nil", v, ok)
	}
	if r := facts["pool/mypool2"]["zfs_ddt_ram_percent"]; r != 1.7 {
		t.Errorf("mypool2: %v %% of RAM, want 1.7", r)
	}

	facts, skipped := observe(t, "zfs-pool-full", time.Second)
	if v, ok := facts["pool/mypool"]["zfs_ddt_entries"]; !ok || v != nil {
		t.Errorf("zpool status -D not recorded: entries %v (present %v), want nil", v, ok)
	}
	found := false
	for _, s := range skipped {
		found = found || s.Check == "zpool-status-dedup"
	}
	if !found {
		t.Errorf("no skipped entry for zpool-status-dedup: %+v", skipped)
	}
}
