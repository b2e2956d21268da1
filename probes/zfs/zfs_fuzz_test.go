package zfs

import (
	"os"
	"testing"

	"github.com/diskdoctor/diskdoctor/internal/testutil"
)

// Fuzz targets of the ZFS and md parsers; seeds are the fixtures' recorded
// outputs and the shared samples where present. None may panic.

func addFileSeeds(f *testing.F, paths ...string) {
	for _, p := range paths {
		if b, err := os.ReadFile(p); err == nil {
			f.Add(b)
		}
	}
}

func FuzzParseZpoolStatus(f *testing.F) {
	addFileSeeds(f, "../../fixtures/hpe-microserver-writethrough/commands/zpool-status-P-t.txt",
		"../../fixtures/zfs-resilvering/commands/zpool-status-P-t.txt",
		testutil.SharedSamples()+"/zpool/status-zol-degraded-spare-inuse.txt", testutil.SharedSamples()+"/zpool/status-illumos-degraded-with-log.txt")
	f.Add([]byte("  pool: p\n state: ONLINE\n  scan: resilver in progress since x\n\t1% done\nconfig:\n\tp ONLINE 0 0 0\n\t  a ONLINE 1.2K 0 0  (5% trimmed, started at y)\n"))
	f.Fuzz(func(t *testing.T, b []byte) {
		st, err := ParseStatus(b)
		if err == nil {
			for _, p := range st.Pools {
				_ = p.Leaves()
			}
		}
	})
}

func FuzzParseZpoolIostat(f *testing.F) {
	addFileSeeds(f, "../../fixtures/hpe-microserver-writethrough/commands/zpool-iostat-HpPvly-1-1.txt",
		"../../fixtures/r630-optane-schedutil/commands/zpool-iostat-HpPvly-1-1.txt")
	f.Add([]byte("tank\t1\t2\t3\t4\t5\t6\t-\t7\n"))
	f.Fuzz(func(t *testing.T, b []byte) {
		rows, err := ParseIostat(b)
		if err == nil {
			AssignPools(rows, []string{"tank"})
		}
	})
}

func FuzzParseZfsGet(f *testing.F) {
	addFileSeeds(f, "../../fixtures/r630-optane-schedutil/commands/zfs-get-write-props.txt")
	f.Add([]byte("tank\tsync\talways\n"))
	f.Fuzz(func(t *testing.T, b []byte) {
		_ = ParseGet(b).ByPool()
		_ = ParseZpoolGet(b)
		_, _ = ParseSize(string(b))
	})
}

func FuzzParseZpoolList(f *testing.F) {
	f.Add([]byte(list4657))
	f.Add([]byte("zion\t-\t-\t-\t-\t-\tFAULTED\n"))
	f.Fuzz(func(t *testing.T, b []byte) {
		rows, err := ParseList(b)
		for _, r := range rows {
			if err != nil || r.Capacity < 0 || r.Capacity > 100 || r.Frag < 0 || r.Frag > 100 {
				t.Fatalf("row %+v with err %v", r, err)
			}
		}
	})
}
