package checks_test

import (
	"testing"
	"time"
)

func TestZFSSpaceFacts(t *testing.T) {
	facts, skipped := observe(t, "zfs-pool-full", time.Second)
	full, half := facts["pool/mypool2"], facts["pool/mypool"]
	if full["zfs_capacity_percent"] != 92.0 || full["zfs_fragmentation_percent"] != 20.0 || full["zfs_free_bytes"] != 38649344.0 ||
		full["zfs_size_bytes"] != 486539264.0 || full["zfs_allocated_bytes"] != 447889920.0 {
		t.Errorf("mypool2 space facts: %v %v %v %v %v", full["zfs_capacity_percent"], full["zfs_fragmentation_percent"], full["zfs_free_bytes"], full["zfs_size_bytes"], full["zfs_allocated_bytes"])
	}
	if half["zfs_capacity_percent"] != 26.0 {
		t.Errorf("mypool capacity %v, want 26", half["zfs_capacity_percent"])
	}
	for _, s := range skipped {
		if s.Check == "zpool-list" {
			t.Errorf("zpool list is recorded, skipped as %+v", s)
		}
	}
	// zfs get is not recorded: which datasets disable sync is unknown.
	if v, ok := full["zfs_sync_disabled_datasets"]; !ok || v != nil {
		t.Errorf("zfs_sync_disabled_datasets = %v (present %v), want nil", v, ok)
	}
}

func TestZFSSpaceUnknownWithoutZpoolList(t *testing.T) {
	facts, skipped := observe(t, "zfs-ashift-nonnative", time.Second)
	p := facts["pool/bootpool"]
	for _, k := range []string{"zfs_capacity_percent", "zfs_fragmentation_percent", "zfs_free_bytes"} {
		if v, ok := p[k]; !ok || v != nil {
			t.Errorf("%s = %v (present %v): unknown must be nil", k, v, ok)
		}
	}
	found := false
	for _, s := range skipped {
		found = found || s.Check == "zpool-list"
	}
	if !found {
		t.Errorf("no skipped entry for zpool-list: %+v", skipped)
	}
}

func TestZFSNonNativeBlockSize(t *testing.T) {
	facts, _ := observe(t, "zfs-ashift-nonnative", time.Second)
	p := facts["pool/bootpool"]
	m, _ := p["zfs_nonnative_block_members"].([]string)
	if p["zfs_nonnative_block_size"] != true || len(m) != 1 || m[0] != "/dev/disk/by-id/ata-WDC_WD40EFZX-68AWUN0_WD-WX52D71KL3F9-part1: 512B configured, 4096B native" {
		t.Errorf("pool facts: %v %v", p["zfs_nonnative_block_size"], p["zfs_nonnative_block_members"])
	}
	if c, n := facts["device/sdc"]["zfs_block_size_configured"], facts["device/sdc"]["zfs_block_size_native"]; c != 512.0 || n != 4096.0 {
		t.Errorf("sdc: block sizes %v/%v, want 512/4096", c, n)
	}
	if n := facts["device/sdb"]["zfs_block_size_native"]; n != 0.0 {
		t.Errorf("sdb: native %v, want 0 (zpool status printed no block size)", n)
	}
	if facts["pool/mypool"] != nil {
		t.Error("wrong fixture")
	}
}
