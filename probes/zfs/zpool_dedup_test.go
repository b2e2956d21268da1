package zfs

import (
	"strings"
	"testing"
)

// The dedup: lines below are real captures posted in OpenZFS issue
// threads (command output, used as data):
//   - #2414 (ioquatix, 2014, ZFS on Linux 0.6): the whole zpool status -D,
//     sizes as plain per-entry byte counts;
//     https://github.com/openzfs/zfs/issues/2414
//   - #5904 / #6947 (ggzengel, 2017, 0.7.3): zfs_nicenum per-entry sizes;
//     https://github.com/openzfs/zfs/issues/5904
//   - #14654 (rincebrain, 2023, OpenZFS 2.1/2.2): zfs_nicebytes per-entry
//     sizes; https://github.com/openzfs/zfs/pull/14654
//   - #10169 (allanjude, 2020, a Klara build): totals with ", N cached
//     (P%)"; https://github.com/openzfs/zfs/pull/10169
//
// "no DDT entries" is print_dedup_stats' own text (cmd/zpool/zpool_main.c).
const status2414 = `# zpool status -D
  pool: backup
 state: ONLINE
  scan: none requested
config:

        NAME                                        STATE     READ WRITE CKSUM
        backup                                      ONLINE       0     0     0
          ata-eSATA-2_ExternalRAID_WD-WCAZA6489285  ONLINE       0     0     0

errors: No known data errors

 dedup: DDT entries 3255693, size 311 on disk, 179 in core
`

func TestParseDedup(t *testing.T) {
	got := ParseDedup([]byte(status2414))
	d := got["backup"]
	if len(got) != 1 || d == nil {
		t.Fatalf("pools = %v", got)
	}
	if d.Entries != 3255693 || d.InCore != 3255693*179 || d.OnDisk != 3255693*311 || !d.PerEntry {
		t.Errorf("backup = %+v", d)
	}
	if !strings.HasPrefix(d.Line, "dedup: DDT entries 3255693") {
		t.Errorf("line = %q", d.Line)
	}
}

func TestParseDDTLineForms(t *testing.T) {
	for _, c := range []struct {
		line            string
		entries, inCore float64
		perEntry        bool
	}{
		{"DDT entries 2261986, size 63529 on disk, 8239 in core", 2261986, 2261986 * 8239, true},
		{"DDT entries 5248804, size 38.2K on disk, 4.24K in core", 5248804, 5248804 * 4.24 * 1024, true},
		{"DDT entries 2748780, size 767B on disk, 247B in core", 2748780, 2748780 * 247, true},
		{"DDT entries 265611, size 82.9M on disk, 51.0M in core, 51.0M cached (100.00%)", 265611, 51.0 * (1 << 20), false},
		{"no DDT entries", 0, 0, true},
	} {
		d := parseDDTLine(c.line)
		if d == nil {
			t.Errorf("%q: not parsed", c.line)
			continue
		}
		if d.Entries != c.entries || d.InCore != c.inCore || d.PerEntry != c.perEntry {
			t.Errorf("%q = %+v, want entries %v in core %v per entry %v", c.line, d, c.entries, c.inCore, c.perEntry)
		}
	}
}

// A pool whose dedup: line is garbage, or that has none (a faulted pool's
// config has no dedup statistics), is absent: unknown, not empty.
func TestParseDedupHostile(t *testing.T) {
	for _, s := range []string{
		"",
		"  pool: p\n state: FAULTED\n",
		"  pool: p\n dedup: DDT entries x, size 1 on disk, 2 in core\n",
		"  pool: p\n dedup: DDT entries 1, size 1 on disk\n",
		"  pool: p\n dedup: DDT entries 1, size -1 on disk, 2 in core\n",
		"  pool: p\n dedup: DDT entries 18446744073709551615, size 16E on disk, 16E in core\n",
		"  pool: 1bad\n dedup: no DDT entries\n",
		" dedup: no DDT entries\n",
	} {
		if got := ParseDedup([]byte(s)); len(got) != 0 {
			t.Errorf("%q = %v, want no pool", s, got)
		}
	}
}

func FuzzParseDedup(f *testing.F) {
	addFileSeeds(f, "../../fixtures/zfs-dedup-table-large/commands/zpool-status-D.txt")
	f.Add([]byte(status2414))
	f.Add([]byte("  pool: p\n dedup: DDT entries 1, size 1K on disk, 2K in core, 2K cached (100.00%)\n"))
	f.Fuzz(func(t *testing.T, b []byte) {
		for _, d := range ParseDedup(b) {
			if d.Entries < 0 || d.InCore < 0 || d.OnDisk < 0 {
				t.Fatalf("negative: %+v", d)
			}
		}
	})
}
