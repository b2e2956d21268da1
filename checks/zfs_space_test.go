package checks_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/diskdoctor/diskdoctor/checks"
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

// syncFacts runs the checks on an otherwise empty machine with one pool and the given
// `zfs get` output (nil: zfs get not recorded) and returns the pool's facts.
func syncFacts(t *testing.T, zfsGet *string) map[string]any {
	t.Helper()
	return poolFacts(t, "  pool: tank\n state: ONLINE\nconfig:\n\n\tNAME STATE READ WRITE CKSUM\n\ttank ONLINE 0 0 0\n\nerrors: No known data errors\n", zfsGet, "tank")
}

// statusFacts: the facts of the first pool of a zpool status text.
func statusFacts(t *testing.T, status string) map[string]any {
	t.Helper()
	name := strings.Fields(strings.SplitN(status, "pool:", 2)[1])[0]
	return poolFacts(t, status, nil, name)
}

func poolFacts(t *testing.T, status string, zfsGet *string, name string) map[string]any {
	t.Helper()
	root := t.TempDir()
	for _, d := range []string{"sys/block", "sys/module/zfs/parameters", "commands"} {
		if err := os.MkdirAll(filepath.Join(root, d), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	write(t, filepath.Join(root, "commands", "status.txt"), status)
	manifest := "- argv: [zpool, status, -P, -t]\n  stdout: status.txt\n"
	if zfsGet != nil {
		write(t, filepath.Join(root, "commands", "get.txt"), *zfsGet)
		manifest += "- argv: [zfs, get, -H, -p, -t, \"filesystem,volume\", -o, \"name,property,value\", \"compression,sync,logbias,recordsize\"]\n  stdout: get.txt\n"
	}
	write(t, filepath.Join(root, "commands", "manifest.yaml"), manifest)
	res := runRecorded(t, root)
	for _, o := range res.Observations {
		if o.Kind == checks.KindPool && o.Subject == name {
			return checks.FactMap(o)
		}
	}
	t.Fatal("no pool observation")
	return nil
}

func TestZFSSyncDisabledFacts(t *testing.T) {
	get := "tank\tsync\tstandard\ntank/tmp\tsync\tdisabled\ntank/tmp\tlogbias\tlatency\ntank/db\tsync\talways\ntank/tmp/a\tsync\tdisabled\ntank/tmpx\tsync\tdisabled\n"
	f := syncFacts(t, &get)
	if d, _ := f["zfs_sync_disabled_datasets"].([]string); strings.Join(d, ",") != "tank/tmp,tank/tmp/a,tank/tmpx" {
		t.Errorf("sync=disabled datasets = %v", f["zfs_sync_disabled_datasets"])
	}
	if d, _ := f["zfs_sync_disabled_roots"].([]string); strings.Join(d, ",") != "tank/tmp,tank/tmpx" {
		t.Errorf("topmost sync=disabled datasets = %v, want tank/tmp,tank/tmpx", f["zfs_sync_disabled_roots"])
	}
	if a, _ := f["zfs_sync_always_datasets"].([]string); len(a) != 1 || a[0] != "tank/db" {
		t.Errorf("sync=always datasets = %v", f["zfs_sync_always_datasets"])
	}
	none := "tank\tsync\tstandard\n"
	if d, ok := syncFacts(t, &none)["zfs_sync_disabled_datasets"].([]string); !ok || len(d) != 0 {
		t.Errorf("no dataset disables sync: got %v, want []", d)
	}
	if v, ok := syncFacts(t, nil)["zfs_sync_disabled_datasets"]; !ok || v != nil {
		t.Errorf("zfs get not recorded: got %v (present %v), want nil", v, ok)
	}
}

// checkmk475Status is the vdev tree of Checkmk/checkmk#475 (phreaker0,
// 2022-06-01): a data mirror and a mirrored special vdev.
const checkmk475Status = "  pool: storage\n state: ONLINE\nconfig:\n\n" +
	"        NAME                                                   STATE     READ WRITE CKSUM\n" +
	"        storage                                                ONLINE       0     0     0\n" +
	"          mirror-0                                             ONLINE       0     0     0\n" +
	"            ata-ST2000VM003-1CT164_W1H3SR9H                    ONLINE       0     0     0\n" +
	"            ata-TOSHIBA_DT01ACA200_94RRPEVAS                   ONLINE       0     0     0\n" +
	"        special \n" +
	"          mirror-2                                             ONLINE       0     0     0\n" +
	"            ata-Samsung_SSD_860_QVO_1TB_S4CZNF0N459001M-part3  ONLINE       0     5     0\n" +
	"            ata-Samsung_SSD_860_QVO_1TB_S4CZNF0N458919M-part3  ONLINE       0     0     0\n\nerrors: No known data errors\n"

func TestZFSAllocVdevRedundancy(t *testing.T) {
	// checkmk475Status, and the same tree with the special vdev as one
	// partition.
	mirrored := checkmk475Status
	single := strings.Replace(mirrored, "          mirror-2                                             ONLINE       0     0     0\n            ata-Samsung_SSD_860_QVO_1TB_S4CZNF0N459001M-part3  ONLINE       0     5     0\n            ata-Samsung", "          ata-Samsung", 1)
	if single == mirrored {
		t.Fatal("test input not changed")
	}
	for _, tt := range []struct {
		status string
		want   []string
	}{{mirrored, nil}, {single, []string{"special ata-Samsung_SSD_860_QVO_1TB_S4CZNF0N458919M-part3"}}} {
		f := statusFacts(t, tt.status)
		got, _ := f["zfs_nonredundant_alloc_vdevs"].([]string)
		if strings.Join(got, ",") != strings.Join(tt.want, ",") || f["zfs_data_redundant"] != true {
			t.Errorf("nonredundant %v, data redundant %v; want %v, true", got, f["zfs_data_redundant"], tt.want)
		}
	}
}
