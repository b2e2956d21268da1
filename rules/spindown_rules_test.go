package rules

import "testing"

// hdd-spindown-in-array on facts built in the test, for the sources and
// memberships the fixture md-raid1-spindown-standby does not show: a raidz
// member, a btrfs raid1 or single device, a lone disk.
func TestSpindownRule(t *testing.T) {
	hdd := map[string]any{"rotational": true, "spindown_conf_s": 0, "spindown_conf_value": 0, "smart_standby": nil,
		"md_member_redundant": nil, "zfs_vdev_redundant": nil, "md_member_of": nil, "zfs_member_of": nil,
		"hdparm_power_state": nil, "btrfs_member_redundant": nil, "btrfs_member_of": nil}
	tests := []struct {
		name  string
		facts map[string]any
		want  string
	}{
		{"timer on an md raid1 member", map[string]any{"spindown_conf_s": 300, "spindown_conf_value": 60, "md_member_redundant": true, "md_member_of": []string{"md0 (sda1 of raid1)"}}, Warning},
		{"timer on a raidz member", map[string]any{"spindown_conf_s": 3600, "spindown_conf_value": 242, "zfs_vdev_redundant": true, "zfs_member_of": "tank"}, Warning},
		{"found in standby, raidz member", map[string]any{"smart_standby": "STANDBY", "zfs_vdev_redundant": true}, Warning},
		{"hdparm -C standby, md raid5 member", map[string]any{"hdparm_power_state": "standby", "md_member_redundant": true}, Warning},
		{"timer on a btrfs raid1 device", map[string]any{"spindown_conf_s": 1200, "spindown_conf_value": 240, "btrfs_member_redundant": true, "btrfs_member_of": "/srv"}, Warning},
		{"hdparm -C active/idle, timer-less member", map[string]any{"hdparm_power_state": "active/idle", "md_member_redundant": true}, ""},
		{"hdparm -C standby, btrfs single", map[string]any{"hdparm_power_state": "standby", "btrfs_member_redundant": false}, Info},
		{"timer on a lone disk", map[string]any{"spindown_conf_s": 120, "spindown_conf_value": 24}, Info},
		{"no timer, active, in an array", map[string]any{"md_member_redundant": true}, ""},
		{"an SSD with a timer", map[string]any{"rotational": false, "spindown_conf_s": 120, "md_member_redundant": true}, ""},
		{"hdparm.conf unknown", map[string]any{"spindown_conf_s": nil, "md_member_redundant": true}, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			wantSeverity(t, "server", "auto", device("sda", merged(hdd, tt.facts)), "hdd-spindown-in-array", tt.want)
		})
	}
}
