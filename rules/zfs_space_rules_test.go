package rules

import (
	"strings"
	"testing"

	"github.com/diskdoctor/diskdoctor/checks"
)

func spacePool(name string, capacity any) *checks.Observation {
	return pool(name, map[string]any{"zfs_capacity_percent": capacity, "zfs_fragmentation_percent": 20.0,
		"zfs_size_bytes": 486539264.0, "zfs_allocated_bytes": 447889920.0, "zfs_free_bytes": 38649344.0})
}

func TestZFSPoolFull(t *testing.T) {
	for _, tt := range []struct {
		capacity any
		want     string
	}{
		{79.0, ""}, {80.0, "zfs-pool-full warning p"}, {92.0, "zfs-pool-full warning p"},
		{94.0, "zfs-pool-full warning p"}, {95.0, "zfs-pool-full critical p"}, {100.0, "zfs-pool-full critical p"},
		{nil, ""}, // zpool list missing or "-": unknown, no finding
	} {
		if got := rulesOf(judge(t, spacePool("p", tt.capacity))); got != tt.want {
			t.Errorf("capacity %v: got %q, want %q", tt.capacity, got, tt.want)
		}
	}
	fs := judge(t, spacePool("my pool", 92.0))
	for _, m := range fs[0].Remediation {
		if m.Risk != RiskReadOnly {
			t.Errorf("%q is %s: every fix of a full pool here is read-only", m.Command, m.Risk)
		}
		if !strings.Contains(m.Command, "'my pool'") {
			t.Errorf("%q: the pool name is not quoted", m.Command)
		}
	}
	if obs := fs[0].PerSubject[0].Observed; !strings.Contains(obs, "36.9 MiB free") || !strings.Contains(obs, "20 % fragmented") {
		t.Errorf("observed = %q", obs)
	}
}

func TestZFSAshiftBelowNative(t *testing.T) {
	fs := judge(t, pool("bootpool", map[string]any{"zfs_nonnative_block_size": true,
		"zfs_nonnative_block_members": []string{"sdb4: 512B configured, 4096B native"}}))
	if got := rulesOf(fs); got != "zfs-ashift-below-native warning bootpool" {
		t.Fatalf("got %q", got)
	}
	for _, m := range fs[0].Remediation {
		if m.Risk != RiskReadOnly {
			t.Errorf("%q is %s: nothing but read-only commands on an in-use pool", m.Command, m.Risk)
		}
	}
	for _, facts := range []map[string]any{{"zfs_nonnative_block_size": false, "zfs_nonnative_block_members": []string{}}, {"zfs_nonnative_block_size": nil}} {
		if got := rulesOf(judge(t, pool("tank", facts))); got != "" {
			t.Errorf("%v: got %q", facts, got)
		}
	}
}

func TestZFSSyncDisabled(t *testing.T) {
	fs := judge(t, pool("tank", map[string]any{"zfs_sync_disabled_datasets": []string{"tank/tmp", "tank/tmp/a", "tank/vm's"}, "zfs_sync_disabled_roots": []string{"tank/tmp", "tank/vm's"}}))
	if got := rulesOf(fs); got != "zfs-sync-disabled warning tank" {
		t.Fatalf("got %q", got)
	}
	var cmds []string
	for _, m := range fs[0].Remediation {
		cmds = append(cmds, m.Risk+" "+m.Command)
	}
	want := []string{"read-only zfs get -r sync tank", "persistent zfs set sync=standard tank/tmp", `persistent zfs set sync=standard 'tank/vm'\''s'`}
	if strings.Join(cmds, "\n") != strings.Join(want, "\n") {
		t.Errorf("remediation:\n%s\nwant:\n%s", strings.Join(cmds, "\n"), strings.Join(want, "\n"))
	}
	for _, v := range []any{[]string{}, nil} {
		if got := rulesOf(judge(t, pool("tank", map[string]any{"zfs_sync_disabled_datasets": v}))); got != "" {
			t.Errorf("%v: got %q", v, got)
		}
	}
}

func TestZFSAllocVdevNotRedundant(t *testing.T) {
	single := map[string]any{"zfs_nonredundant_alloc_vdevs": []string{"special nvme0n1"}, "zfs_nonredundant_alloc_devices": []string{"nvme0n1"}, "zfs_data_redundant": true}
	fs := judge(t, pool("tank", single))
	if got := rulesOf(fs); got != "zfs-alloc-vdev-not-redundant critical tank" {
		t.Fatalf("got %q", got)
	}
	attach := false
	for _, m := range fs[0].Remediation {
		attach = attach || (m.Command == "zpool attach tank nvme0n1 NEW-DEVICE" && m.Risk == RiskPersistent)
		if m.Risk == RiskDestructive {
			t.Errorf("%q is destructive", m.Command)
		}
	}
	if !attach {
		t.Errorf("remediation = %+v", fs[0].Remediation)
	}
	for name, facts := range map[string]map[string]any{
		"mirrored special":          {"zfs_nonredundant_alloc_vdevs": []string{}, "zfs_data_redundant": true},
		"single-disk pool":          {"zfs_nonredundant_alloc_vdevs": []string{"special nvme0n1"}, "zfs_data_redundant": false},
		"status unread (facts nil)": {"zfs_nonredundant_alloc_vdevs": nil, "zfs_data_redundant": nil},
	} {
		if got := rulesOf(judge(t, pool("tank", facts))); got != "" {
			t.Errorf("%s: got %q", name, got)
		}
	}
}

// A log device whose own datasheet entry says it has no power-loss
// protection (the WD Red SA500 of the test devices) is a warning; an Optane
// log device, a data vdev member, or a model without an entry (a class
// default's PLP is a guess) is not.
func TestZFSLogDeviceNoPLP(t *testing.T) {
	logOf := func(extra map[string]any) *checks.Observation {
		f := map[string]any{"zfs_vdev_class": "logs", "zfs_member_of": "tank"}
		for k, v := range extra {
			f[k] = v
		}
		return device("sdb", f)
	}
	if got := rulesOf(judge(t, logOf(nil))); !strings.Contains(got, "zfs-log-device-no-plp warning sdb") {
		t.Errorf("consumer SSD as SLOG: got %q", got)
	}
	for name, extra := range map[string]map[string]any{
		"optane":      {"model": "INTEL SSDPEK1A118GA", "transport": "nvme"},
		"data member": {"zfs_vdev_class": "data"},
		"no entry":    {"model": "ACME SSD 9000"},
		"unknown":     {"zfs_vdev_class": nil},
	} {
		if got := rulesOf(judge(t, logOf(extra))); strings.Contains(got, "zfs-log-device-no-plp") {
			t.Errorf("%s: got %q", name, got)
		}
	}
}

func TestZFSLogDeviceSlowerThanPool(t *testing.T) {
	logOf := func(slower any) *checks.Observation {
		return device("sda", map[string]any{"transport": "sata", "rotational": false, "zfs_vdev_class": "logs",
			"zfs_member_of": "tank", "zfs_log_media": "ssd", "zfs_pool_data_media": "nvme",
			"zfs_pool_data_disks_media": []string{"nvme0n1 (nvme)", "nvme1n1 (nvme)"}, "zfs_log_slower_than_data": slower})
	}
	fs := judge(t, logOf(true))
	if got := rulesOf(fs); !strings.Contains(got, "zfs-log-device-slower-than-pool warning sda") {
		t.Fatalf("SATA SSD log in front of NVMe: got %q", got)
	}
	for _, m := range fs[0].Remediation {
		if m.Risk != RiskReadOnly {
			t.Errorf("%q is %s", m.Command, m.Risk)
		}
	}
	for _, slower := range []any{false, nil} {
		if got := rulesOf(judge(t, logOf(slower))); strings.Contains(got, "zfs-log-device-slower-than-pool") {
			t.Errorf("slower %v: got %q", slower, got)
		}
	}
}

func TestZFSDedupTableExceedsRAM(t *testing.T) {
	ddt := func(entries, ram, arc any) *checks.Observation {
		return pool("my pool", map[string]any{"zfs_ddt_entries": entries, "zfs_ddt_in_core_bytes": 18636502654.0,
			"zfs_ddt_on_disk_bytes": 143702709394.0, "zfs_mem_total_bytes": 33383407616.0, "zfs_arc_max_bytes": nil,
			"zfs_ddt_ram_percent": ram, "zfs_ddt_arc_percent": arc})
	}
	for _, tt := range []struct {
		entries, ram, arc any
		want              string
	}{
		{2261986.0, 55.8, nil, "zfs-dedup-table-exceeds-ram warning my pool"},
		{2261986.0, 27.9, 55.8, "zfs-dedup-table-exceeds-ram info my pool"},
		{2261986.0, 27.9, 24.9, ""},
		{2261986.0, nil, nil, ""}, // memory and ARC unknown: not judged
		{0.0, 60.0, 90.0, ""},     // no DDT entries
		{nil, nil, nil, ""},       // zpool status -D missing
	} {
		fs := judge(t, ddt(tt.entries, tt.ram, tt.arc))
		if got := rulesOf(fs); got != tt.want {
			t.Errorf("%v entries, %v %% RAM, %v %% ARC: got %q, want %q", tt.entries, tt.ram, tt.arc, got, tt.want)
			continue
		}
		for _, f := range fs {
			for _, m := range f.Remediation {
				if !strings.Contains(m.Command, "'my pool'") {
					t.Errorf("%q: the pool name is not quoted", m.Command)
				}
				if m.Risk != RiskReadOnly && !strings.HasPrefix(m.Command, "zfs set dedup=off ") {
					t.Errorf("%q is %s", m.Command, m.Risk)
				}
			}
		}
	}
}
