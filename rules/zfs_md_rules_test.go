package rules

import (
	"strings"
	"testing"

	"github.com/diskdoctor/diskdoctor/checks"
)

func member(name string, facts map[string]any) *checks.Observation {
	base := map[string]any{"zfs_member_of": "tank", "zfs_vdev_class": "data", "zfs_pool_member_count": 3, "zfs_slow_vs_peers": false}
	for k, v := range facts {
		base[k] = v
	}
	return device(name, base)
}

func pool(name string, facts map[string]any) *checks.Observation {
	o := checks.NewObservation("test", checks.KindPool, name)
	for k, v := range facts {
		o.Set(k, v, checks.Evidence{Source: "zpool status -P -t", Value: "x"})
	}
	return o
}

func rulesOf(fs []Finding) string {
	var out []string
	for _, f := range fs {
		out = append(out, f.Rule+" "+f.Severity+" "+strings.Join(f.Subjects, ","))
	}
	return strings.Join(out, "; ")
}

func TestZFSDeviceSlow(t *testing.T) {
	tests := []struct {
		name  string
		obs   []*checks.Observation
		want  string
		notes []string
	}{
		{"SATA SSDs with the cache off: 8 ms per 64 KiB write", []*checks.Observation{
			member("sda", map[string]any{"zfs_write_iops": 121.0, "zfs_write_size_bytes": 65601.0, "zfs_effective_write_us": 8264.5, "zfs_disk_wait_write_us": 68211.9, "zfs_above_device_write_us": 193895.5, "wc_on": false, "wc_supported": true, "zfs_peer_count": 2}),
		}, "zfs-device-slow critical sda", []string{"write cache off", "equally slow", "queued in ZFS"}},
		{"Optane log device at 90 µs with parked CPUs", []*checks.Observation{
			device("nvme6n1", map[string]any{"transport": "nvme", "ata": false, "model": "INTEL SSDPEK1A118GA", "zfs_member_of": "tank", "zfs_vdev_class": "logs", "zfs_write_iops": 3050.0, "zfs_write_size_bytes": 4096.0, "zfs_effective_write_us": 90.2, "zfs_disk_wait_write_us": 90.2, "wc_on": false, "wc_supported": false}),
			hostObs(map[string]any{"governor": "schedutil", "cpus_at_min_fraction": 1.0}),
		}, "zfs-device-slow warning nvme6n1", []string{"power-saving governor", "zfs_immediate_write_sz"}},
		{"busy NVMe data member within its class", []*checks.Observation{
			device("nvme0n1", map[string]any{"transport": "nvme", "ata": false, "model": "SAMSUNG MZQLB1T9HAJR-00007", "zfs_member_of": "tank", "zfs_vdev_class": "data", "zfs_write_iops": 36.0, "zfs_write_size_bytes": 120866.0, "zfs_effective_write_us": 182.3}),
		}, "", nil},
		{"hard disk resilvering: 0.6 ms between completions", []*checks.Observation{
			member("sdc", map[string]any{"rotational": true, "model": "WDC WD40EFZX-68AWUN0", "zfs_write_iops": 1611.0, "zfs_write_size_bytes": 132000.0, "zfs_effective_write_us": 620.7}),
		}, "", nil},
		{"too few writes to judge", []*checks.Observation{
			member("sda", map[string]any{"zfs_write_iops": 2.0, "zfs_write_size_bytes": 14336.0, "zfs_effective_write_us": 311.2}),
		}, "", nil},
		{"one member far slower than its peers", []*checks.Observation{
			member("sdb", map[string]any{"zfs_write_iops": 40.0, "zfs_write_size_bytes": 131072.0, "zfs_effective_write_us": 900.0, "zfs_disk_wait_write_us": 9000.0, "zfs_slow_vs_peers": true, "zfs_peer_count": 2}),
		}, "zfs-device-slow warning sdb", []string{"much slower than the other members"}},
		{"one member slow on reads (a disk retrying internally)", []*checks.Observation{
			member("sdb", map[string]any{"rotational": true, "model": "WDC WD40EFZX-68AWUN0", "zfs_write_iops": 3.0, "zfs_effective_write_us": 4000.0, "zfs_read_iops": 85.0, "zfs_slow_read_vs_peers": true, "zfs_disk_wait_read": "212 ms", "zfs_peer_disk_wait_read": "9.1 ms", "zfs_peer_count": 2}),
		}, "zfs-device-slow warning sdb", []string{"read disk_wait 212 ms"}},
		{"no latency sample", []*checks.Observation{member("sda", nil)}, "", nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			fs := judge(t, tt.obs...)
			var slow []Finding
			for _, f := range fs {
				if f.Rule == "zfs-device-slow" {
					slow = append(slow, f)
				}
			}
			if got := rulesOf(slow); got != tt.want {
				t.Fatalf("got %q, want %q", got, tt.want)
			}
			for _, n := range tt.notes {
				if !strings.Contains(strings.Join(slow[0].Notes, "\n"), n) {
					t.Errorf("no note mentioning %q in %q", n, slow[0].Notes)
				}
			}
		})
	}
}

func hostObs(facts map[string]any) *checks.Observation {
	o := checks.NewObservation("test", checks.KindHost, "host")
	for k, v := range facts {
		o.Set(k, v)
	}
	return o
}

func TestPoolRules(t *testing.T) {
	tests := []struct {
		name string
		obs  []*checks.Observation
		want string
	}{
		{"trim at 2 %", []*checks.Observation{pool("storage", map[string]any{"zfs_background": []string{"trim in progress on sda1, 2 % done"}, "zfs_trim_active": true, "zfs_trim_percent": 2.0, "zfs_state": "ONLINE", "zfs_data_errors": 0})},
			"zfs-background-work warning storage"},
		{"resilvering and degraded", []*checks.Observation{pool("backup", map[string]any{"zfs_background": []string{"resilver in progress, 42.63 % done"}, "zfs_scan_function": "resilver", "zfs_scan_in_progress": true, "zfs_state": "DEGRADED", "zfs_vdev_problems": []string{"9023367216730291711 UNAVAIL"}, "zfs_vdev_errors": []string{}, "zfs_data_errors": 0})},
			"zfs-pool-unhealthy critical backup; zfs-background-work warning backup"},
		{"checksum errors on an ONLINE pool", []*checks.Observation{pool("tank", map[string]any{"zfs_state": "ONLINE", "zfs_vdev_errors": []string{"sdb1: 0 read, 0 write, 12 checksum errors"}, "zfs_vdev_problems": []string{}, "zfs_data_errors": 0})},
			"zfs-pool-unhealthy warning tank"},
		{"healthy pool with a log and sync=always datasets", []*checks.Observation{pool("tank", map[string]any{"zfs_state": "ONLINE", "zfs_data_errors": 0, "zfs_background": []string{}, "zfs_log_devices": []string{"nvme6n1"}, "zfs_sync_always_datasets": []string{"tank/db"}, "zfs_logbias_throughput_datasets": []string{}})},
			"zfs-sync-writes-log info tank"},
		{"zpool hung", []*checks.Observation{hostObs(map[string]any{"zfs_hung_commands": []string{"zpool status -P -t"}})},
			"zfs-command-hung warning host"},
		{"md RAID1 lost a member", []*checks.Observation{pool("md0", map[string]any{"md_degraded": true, "md_level": "raid1", "md_active": int64(1), "md_disks": int64(2), "md_failed_members": []string{"sdc1"}, "md_action": ""})},
			"md-degraded critical md0"},
		{"md recovery onto a spare", []*checks.Observation{pool("md6", map[string]any{"md_degraded": true, "md_level": "raid1", "md_active": int64(1), "md_disks": int64(2), "md_failed_members": []string{}, "md_action": "recovery", "md_sync_percent": 8.5, "md_sync_speed_mbs": 266.0, "md_sync_finish_min": 17.0})},
			"md-degraded critical md6; md-background-work warning md6"},
		{"md check", []*checks.Observation{pool("md201", map[string]any{"md_degraded": false, "md_action": "check", "md_sync_percent": 5.7})},
			"md-background-work warning md201"},
		{"256 GB RAM, dirty_ratio 20, an ext4 filesystem", []*checks.Observation{hostObs(map[string]any{"vm_dirty_ratio": 20.0, "vm_dirty_background_ratio": 10.0, "vm_dirty_bytes": 0.0, "vm_dirty_limit_gib": 50.3, "pagecache_filesystems": []string{"/"}})},
			"vm-dirty-writeback-large info host"},
		{"256 GB RAM, everything on ZFS", []*checks.Observation{hostObs(map[string]any{"vm_dirty_ratio": 20.0, "vm_dirty_limit_gib": 50.3, "pagecache_filesystems": []string{}})}, ""},
		{"idle healthy md array", []*checks.Observation{pool("md0", map[string]any{"md_degraded": false, "md_action": ""})}, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := rulesOf(judge(t, tt.obs...)); got != tt.want {
				t.Errorf("got %q, want %q", got, tt.want)
			}
		})
	}
	// The remediation of a failed md member names its device node.
	fs := judge(t, pool("md0", map[string]any{"md_degraded": true, "md_level": "raid1", "md_active": int64(1), "md_disks": int64(2), "md_failed_members": []string{"sdc1"}, "md_action": ""}))
	found := false
	for _, m := range fs[0].Remediation {
		found = found || m.Command == "mdadm /dev/md0 --remove /dev/sdc1"
	}
	if !found {
		t.Errorf("remediation = %+v", fs[0].Remediation)
	}
}

// A ZFS scan with more than a month to go is called stalled, and its
// first step is to find what holds it back, not to wait for it.
func TestZFSScanStalledTitle(t *testing.T) {
	for _, tt := range []struct {
		stalled bool
		title   string
		step    string
	}{
		{true, "ZFS pool's scrub or resilver has stalled", "find what holds the resilver back"},
		{false, "ZFS pool is busy with background work (scrub, resilver or trim)", "let the resilver finish"},
	} {
		p := pool("Data", map[string]any{"zfs_background": []string{"resilver in progress"}, "zfs_scan_function": "resilver", "zfs_scan_in_progress": true, "zfs_scan_stalled": tt.stalled})
		var got *Finding
		for _, f := range judge(t, p) {
			if f.Rule == "zfs-background-work" {
				got = &f
			}
		}
		if got == nil || got.Title != tt.title || !strings.Contains(got.FirstStep, tt.step) {
			t.Errorf("stalled %v: %+v, want %q and %q", tt.stalled, got, tt.title, tt.step)
		}
	}
}

// The first clause of an md finding's observation and expectation is its
// line on the first screen, where parenthesised asides are left out: it
// names the failed member and says "failed" in words, not only "(F)".
func TestMDShortClauses(t *testing.T) {
	first := func(s string) string { c, _, _ := strings.Cut(s, "; "); return c }
	for _, tc := range []struct {
		name     string
		obs      *checks.Observation
		rule     string
		obsWant  []string
		expWant  string
		obsAvoid string
	}{
		{"failed spare in a complete raid1", pool("md1", map[string]any{"md_degraded": false, "md_level": "raid1", "md_active": int64(5), "md_disks": int64(5), "md_failed_members": []string{"sdh1"}, "md_spares": []string{}, "md_members": []string{"sdc1", "sdh1"}}),
			"md-failed-device", []string{"sdh1 marked failed", "5 of 5"}, "no device marked failed", ""},
		{"degraded raid1", pool("md0", map[string]any{"md_degraded": true, "md_level": "raid1", "md_active": int64(1), "md_disks": int64(2), "md_failed_members": []string{"sdc1"}, "md_action": ""}),
			"md-degraded", []string{"failed: sdc1"}, "none marked failed", ""},
		{"inactive with four members", pool("md0", map[string]any{"md_inactive": true, "md_members": []string{"sde1", "sdc1", "sdb1", "sdd1"}, "md_member_devices": []string{}}),
			"md-inactive", []string{"4 members held"}, "", "member(s)"},
		{"inactive with one member", pool("md0", map[string]any{"md_inactive": true, "md_members": []string{"sde1"}, "md_member_devices": []string{}}),
			"md-inactive", []string{"1 member held"}, "", "members"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var f *Finding
			for _, x := range judge(t, tc.obs) {
				if x.Rule == tc.rule {
					f = &x
				}
			}
			if f == nil {
				t.Fatalf("%s did not fire", tc.rule)
			}
			p := f.PerSubject[0]
			for _, w := range tc.obsWant {
				if !strings.Contains(first(p.Observed), w) {
					t.Errorf("observed %q: its first clause lacks %q", p.Observed, w)
				}
			}
			if tc.obsAvoid != "" && strings.Contains(p.Observed, tc.obsAvoid) {
				t.Errorf("observed %q has %q", p.Observed, tc.obsAvoid)
			}
			if !strings.Contains(first(p.Expected), tc.expWant) {
				t.Errorf("expected %q: its first clause lacks %q", p.Expected, tc.expWant)
			}
		})
	}
}

// A resync or a check replaces no drive: only a recovery's first step
// speaks of replacing another one.
func TestMDBackgroundFirstStep(t *testing.T) {
	for action, another := range map[string]bool{"resync": false, "reshape": false, "recovery": true} {
		fs := judge(t, pool("md3", map[string]any{"md_degraded": action == "recovery", "md_action": action, "md_sync_percent": 37.2, "md_level": "raid10", "md_active": int64(8), "md_disks": int64(8), "md_failed_members": []string{}}))
		var step string
		for _, f := range fs {
			if f.Rule == "md-background-work" {
				step = f.FirstStep
			}
		}
		if !strings.HasPrefix(step, "let the "+action+" finish before benchmarking") || strings.Contains(step, "another drive") != another {
			t.Errorf("%s: first step %q", action, step)
		}
	}
}

// A degraded array that holds an idle spare is not told to add another
// drive: what keeps md from recovering onto the spare is the question.
func TestMDDegradedWithAnIdleSpare(t *testing.T) {
	base := map[string]any{"md_degraded": true, "md_level": "raid4", "md_active": int64(1), "md_disks": int64(2), "md_failed_members": []string{}, "md_action": "", "md_no_redundancy": true}
	for spare, want := range map[bool]string{true: "find why md does not recover onto the spare (sdf)", false: "add a replacement drive"} {
		facts := map[string]any{"md_spares": []string{}}
		if spare {
			facts["md_spares"] = []string{"sdf"}
		}
		for k, v := range base {
			facts[k] = v
		}
		fs := judge(t, pool("md127", facts))
		if len(fs) != 1 || !strings.HasPrefix(fs[0].FirstStep, want) {
			t.Fatalf("spare %v: %+v", spare, fs)
		}
		adds := false
		for _, m := range fs[0].Remediation {
			adds = adds || strings.Contains(m.Command, "--add")
		}
		if adds == spare {
			t.Errorf("spare %v: remediation %+v", spare, fs[0].Remediation)
		}
	}
}
