package checks_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// The log device's media against the pool's data disks: r630-optane-schedutil
// as recorded (an Optane NVMe log in front of NVMe mirrors: not slower), and
// the same machine with the log moved onto a partition of its SATA SSD sda
// (constructed here: a SATA SSD log in front of an NVMe pool, slower).
func TestZFSLogMedia(t *testing.T) {
	facts, _ := observe(t, "r630-optane-schedutil", time.Second)
	log := facts["device/nvme6n1"]
	if log["zfs_log_media"] != "nvme" || log["zfs_pool_data_media"] != "nvme" || log["zfs_log_slower_than_data"] != false {
		t.Errorf("Optane log: media %v, pool data %v, slower %v", log["zfs_log_media"], log["zfs_pool_data_media"], log["zfs_log_slower_than_data"])
	}
	if v, ok := facts["device/nvme0n1"]["zfs_log_slower_than_data"]; !ok || v != nil {
		t.Errorf("a data disk: zfs_log_slower_than_data = %v (present %v), want nil", v, ok)
	}

	root := copyFixture(t, "r630-optane-schedutil")
	p := filepath.Join(root, "commands/zpool-status-P-t.txt")
	b, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	moved := strings.Replace(string(b), "/dev/disk/by-partuuid/7057fce1-623d-44c7-8d49-2dc8d942ea9a", "/dev/sda2                                                 ", 1)
	if moved == string(b) {
		t.Fatal("test input not changed")
	}
	writeFile(t, p, moved)
	facts, _ = observeRoot(t, root)
	sda := facts["device/sda"]
	if sda["zfs_log_media"] != "ssd" || sda["zfs_pool_data_media"] != "nvme" || sda["zfs_log_slower_than_data"] != true {
		t.Errorf("SATA SSD log: media %v, pool data %v, slower %v", sda["zfs_log_media"], sda["zfs_pool_data_media"], sda["zfs_log_slower_than_data"])
	}
	if d, _ := sda["zfs_pool_data_disks_media"].([]string); len(d) != 6 || d[0] != "nvme0n1 (nvme)" {
		t.Errorf("data disks: %v", sda["zfs_pool_data_disks_media"])
	}
}
