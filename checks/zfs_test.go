package checks_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/diskdoctor/diskdoctor/checks"
	"github.com/diskdoctor/diskdoctor/machine"
)

// observe runs every check on a fixture and returns the facts by
// kind/subject, merged as the engine merges them.
func observe(t *testing.T, fixture string, timeout time.Duration) (map[string]map[string]any, []checks.Skipped) {
	t.Helper()
	h, err := machine.Recorded("../fixtures/" + fixture)
	if err != nil {
		t.Fatal(err)
	}
	res, err := checks.Run(t.Context(), h, checks.Options{ProbeTimeout: timeout})
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]map[string]any{}
	for _, o := range res.Observations {
		k := o.Kind + "/" + o.Subject
		if out[k] == nil {
			out[k] = map[string]any{}
		}
		for f, v := range checks.FactMap(o) {
			out[k][f] = v
		}
	}
	return out, res.Skipped
}

func TestZFSMembersAndLatency(t *testing.T) {
	facts, _ := observe(t, "hpe-microserver-writethrough", time.Second)
	for _, dev := range []string{"sda", "sdb", "sdc"} {
		f := facts["device/"+dev]
		if f["zfs_member_of"] != "storage" || f["zfs_vdev"] != "raidz1-0" || f["zfs_vdev_class"] != "data" || f["zfs_trim_state"] != "active" {
			t.Errorf("%s: member facts %v %v %v %v", dev, f["zfs_member_of"], f["zfs_vdev"], f["zfs_vdev_class"], f["zfs_trim_state"])
		}
		if w, _ := f["zfs_disk_wait_write_us"].(float64); w < 60000 || w > 70000 {
			t.Errorf("%s: disk_wait write %v µs, want ~65 ms", dev, f["zfs_disk_wait_write_us"])
		}
		if f["zfs_slow_vs_peers"] != false {
			t.Errorf("%s: all three members are equally slow, none slower than its peers", dev)
		}
	}
	if f := facts["device/sdd"]; f["zfs_member_of"] != nil {
		t.Errorf("sdd is not a pool member: %v", f["zfs_member_of"])
	}
	p := facts["pool/storage"]
	if strings.Join(p["zfs_member_devices"].([]string), ",") != "sda,sdb,sdc" || p["zfs_trim_active"] != true || p["zfs_trim_percent"] != 2.0 {
		t.Errorf("pool facts: %v %v %v", p["zfs_member_devices"], p["zfs_trim_active"], p["zfs_trim_percent"])
	}

	// R630: members named by partition UUID, a log device.
	facts, _ = observe(t, "r630-optane-schedutil", time.Second)
	if f := facts["device/nvme6n1"]; f["zfs_member_of"] != "tank" || f["zfs_vdev_class"] != "logs" || f["zfs_disk_wait_write_us"] != 90.2 {
		t.Errorf("nvme6n1: %v %v %v", f["zfs_member_of"], f["zfs_vdev_class"], f["zfs_disk_wait_write_us"])
	}
	if f := facts["device/sda"]; f["zfs_member_of"] != "boot-pool" {
		t.Errorf("sda: %v", f["zfs_member_of"])
	}
	if p := facts["pool/tank"]; len(p["zfs_member_devices"].([]string)) != 7 || strings.Join(p["zfs_sync_always_datasets"].([]string), ",") != "tank/db,tank/vm" {
		t.Errorf("tank: %v %v", p["zfs_member_devices"], p["zfs_sync_always_datasets"])
	}
}

func TestZFSResilverAndHang(t *testing.T) {
	facts, _ := observe(t, "zfs-resilvering", time.Second)
	p := facts["pool/backup"]
	if p["zfs_state"] != "DEGRADED" || p["zfs_scan_function"] != "resilver" || p["zfs_scan_in_progress"] != true || p["zfs_scan_percent"] != 42.63 {
		t.Errorf("backup: %v %v %v %v", p["zfs_state"], p["zfs_scan_function"], p["zfs_scan_in_progress"], p["zfs_scan_percent"])
	}
	if f := facts["device/sdc"]; f["zfs_member_of"] != "backup" || f["zfs_vdev"] != "mirror-0" {
		t.Errorf("sdc: %v %v", f["zfs_member_of"], f["zfs_vdev"])
	}

	// Two zpool commands hang: asked together, the run ends within one
	// probe timeout plus a second, not one timeout per command.
	const timeout = time.Second
	start := time.Now()
	facts, skipped := observe(t, "zpool-hung", timeout)
	if d := time.Since(start); d > timeout+time.Second {
		t.Errorf("a hanging zpool held the doctor for %s (probe timeout %s)", d, timeout)
	}
	hung, _ := facts["host/host"]["zfs_hung_commands"].([]string)
	if strings.Join(hung, "; ") != "zpool status -P -t; zpool get -H -o name,value autotrim" {
		t.Errorf("hung commands = %v", hung)
	}
	found := false
	for _, s := range skipped {
		found = found || s.Check == "zpool-status" && strings.Contains(s.Reason, "timed out")
	}
	if !found {
		t.Errorf("no skipped entry for the hung zpool status: %+v", skipped)
	}
}

// A pool whose zpool status answers and whose other commands hang: they
// are asked together, and the run ends within one probe timeout plus
// iostat's interval (its command answers only after it) and a second.
func TestZFSHungAfterStatus(t *testing.T) {
	root := copyFixture(t, "zfs-resilvering")
	manifest := filepath.Join(root, "commands/manifest.yaml")
	b, err := os.ReadFile(manifest)
	if err != nil {
		t.Fatal(err)
	}
	m := strings.NewReplacer("stdout: zpool-iostat-HpPvly-1-1.txt", "timeout: true", "stdout: zfs-get-write-props.txt", "timeout: true").Replace(string(b))
	if m == string(b) {
		t.Fatal("the fixture's manifest changed")
	}
	writeFile(t, manifest, m)
	h, err := machine.Recorded(root)
	if err != nil {
		t.Fatal(err)
	}
	const timeout = time.Second
	start := time.Now()
	res, err := checks.Run(t.Context(), h, checks.Options{ProbeTimeout: timeout})
	if err != nil {
		t.Fatal(err)
	}
	if d := time.Since(start); d > timeout+checks.ZpoolIostatInterval+time.Second {
		t.Errorf("hanging zpool iostat and zfs get held the doctor for %s (probe timeout %s)", d, timeout)
	}
	for _, o := range res.Observations {
		if o.Kind == checks.KindHost && o.Check == "zfs" {
			hung, _ := checks.FactMap(o)["zfs_hung_commands"].([]string)
			if len(hung) != 2 || !strings.HasPrefix(hung[0], "zpool iostat") || !strings.HasPrefix(hung[1], "zfs get") {
				t.Errorf("hung commands = %q", hung)
			}
		}
	}
}

func TestMDAndStack(t *testing.T) {
	facts, _ := observe(t, "md-raid1-degraded", time.Second)
	a := facts["pool/md0"]
	if a["md_degraded"] != true || a["md_level"] != "raid1" || strings.Join(a["md_failed_members"].([]string), ",") != "sdc1" || strings.Join(a["md_member_devices"].([]string), ",") != "sdc,sdb" {
		t.Errorf("md0: %v", a)
	}
	f := facts["device/sdb"]
	if layers, _ := f["stack_layers"].([]string); len(layers) != 1 || layers[0] != "sdb1 → md0 (md RAID) → /srv/backup ext4" || f["md_stacked"] != true {
		t.Errorf("sdb stack: %v %v", f["stack_layers"], f["md_stacked"])
	}
	if f["controller_kind"] != "direct" {
		t.Errorf("sdb controller kind %v", f["controller_kind"])
	}
	h := facts["host/host"]
	if h["vm_dirty_ratio"] != 20.0 || h["vm_dirty_background_ratio"] != 10.0 {
		t.Errorf("dirty: %v %v", h["vm_dirty_ratio"], h["vm_dirty_background_ratio"])
	}
}
