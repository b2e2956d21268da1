package rules

import (
	"testing"

	"github.com/diskdoctor/diskdoctor/checks"
)

// btrfsFS is a filesystem observation of the btrfs check, every fact at
// its healthy value unless facts says otherwise.
func btrfsFS(facts map[string]any) *checks.Observation {
	o := checks.NewObservation("test", checks.KindFilesystem, "/srv/data")
	base := map[string]any{
		"btrfs_uuid": "8641eeeb-ddf0-47af-8ed0-254327dcc050", "btrfs_mountpoints": []string{"/srv/data"},
		"btrfs_devices": []string{"sda1", "sdb1"}, "btrfs_disks": []string{"sda", "sdb"},
		"btrfs_chunk_bytes": uint64(1 << 30), "btrfs_unallocated_max_bytes": uint64(10 << 40),
		"btrfs_metadata_used_percent": 60.0, "btrfs_enospc_lines": 0,
		"btrfs_missing_devices": []string{}, "btrfs_degraded": false, "btrfs_background": []string{},
		"btrfs_raid56": []string{}, "btrfs_quota": false, "btrfs_subvolumes": nil, "btrfs_hung_tasks": []string{},
	}
	for k, v := range merged(base, facts) {
		o.Set(k, v, checks.Evidence{Source: "btrfs filesystem usage -b /srv/data", Value: "x"})
	}
	return o
}

// The btrfs filesystem rules on facts built in the test: each state, its
// severity steps, and the unknowns that must stay silent. The fixtures
// btrfs-metadata-enospc, btrfs-raid1-unallocated and btrfs-raid5-degraded
// hold the real captures.
func TestBTRFSFilesystemRules(t *testing.T) {
	tests := []struct {
		name, rule string
		facts      map[string]any
		want       string
	}{
		{"1 MiB unallocated, metadata 91.6 %", "btrfs-unallocated-low", map[string]any{"btrfs_unallocated_max_bytes": uint64(1 << 20), "btrfs_metadata_used_percent": 91.65}, Warning},
		{"1 MiB unallocated, metadata 98 %", "btrfs-unallocated-low", map[string]any{"btrfs_unallocated_max_bytes": uint64(1 << 20), "btrfs_metadata_used_percent": 98.0}, Critical},
		{"1 MiB unallocated, ENOSPC logged", "btrfs-unallocated-low", map[string]any{"btrfs_unallocated_max_bytes": uint64(1 << 20), "btrfs_enospc_lines": 2}, Critical},
		{"metadata 98.82 %, terabytes unallocated", "btrfs-unallocated-low", map[string]any{"btrfs_metadata_used_percent": 98.82}, ""},
		{"300 MiB on a small filesystem (256 MiB chunks)", "btrfs-unallocated-low", map[string]any{"btrfs_unallocated_max_bytes": uint64(300 << 20), "btrfs_chunk_bytes": uint64(256 << 20)}, ""},
		{"unallocated unknown", "btrfs-unallocated-low", map[string]any{"btrfs_unallocated_max_bytes": nil, "btrfs_metadata_used_percent": 99.0, "btrfs_enospc_lines": 3}, ""},

		{"devid missing", "btrfs-device-missing", map[string]any{"btrfs_missing_devices": []string{"devid 2"}}, Critical},
		{"mounted degraded", "btrfs-device-missing", map[string]any{"btrfs_degraded": true}, Critical},
		{"all present", "btrfs-device-missing", nil, ""},
		{"missing unknown", "btrfs-device-missing", map[string]any{"btrfs_missing_devices": nil, "btrfs_degraded": nil}, ""},

		{"scrub running", "btrfs-background-work", map[string]any{"btrfs_background": []string{"scrub (4.9 % done)"}}, Warning},
		{"balance paused", "btrfs-background-work", map[string]any{"btrfs_background": []string{"balance (paused)"}}, Warning},
		{"idle", "btrfs-background-work", nil, ""},
		{"unknown", "btrfs-background-work", map[string]any{"btrfs_background": nil}, ""},

		{"data raid5", "btrfs-raid56", map[string]any{"btrfs_raid56": []string{"data raid5"}}, Warning},
		{"raid1", "btrfs-raid56", nil, ""},
		{"profiles unknown", "btrfs-raid56", map[string]any{"btrfs_raid56": nil}, ""},

		{"quotas with snapshots", "btrfs-quota-snapshots", map[string]any{"btrfs_quota": true, "btrfs_subvolumes": 14}, Info},
		{"quotas, snapshots and a hung commit", "btrfs-quota-snapshots", map[string]any{"btrfs_quota": true, "btrfs_subvolumes": 14, "btrfs_hung_tasks": []string{"btrfs-transacti:1158"}}, Warning},
		{"quotas on the top level alone", "btrfs-quota-snapshots", map[string]any{"btrfs_quota": true, "btrfs_subvolumes": 1}, ""},
		{"quotas off", "btrfs-quota-snapshots", map[string]any{"btrfs_quota": false, "btrfs_hung_tasks": []string{"btrfs-transacti:1158"}}, ""},
		{"quota unknown", "btrfs-quota-snapshots", map[string]any{"btrfs_quota": nil}, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			h := checks.NewObservation("test", checks.KindHost, "host")
			h.Set("role", "server")
			h.Set("context", "auto")
			var got string
			for _, f := range judge(t, btrfsFS(tt.facts), h) {
				if f.Rule == tt.rule {
					got = f.Severity
				}
			}
			if got != tt.want {
				t.Errorf("%s: %q, want %q", tt.rule, got, tt.want)
			}
		})
	}
}
