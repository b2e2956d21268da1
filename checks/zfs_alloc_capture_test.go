package checks_test

import (
	"os"
	"strings"
	"testing"

	"github.com/diskdoctor/diskdoctor/checks"
	"github.com/diskdoctor/diskdoctor/rules"
)

// A real zpool status of a raidz1 pool whose dedup class is two single
// devices (Brian Behlendorf's pool "dozer" in openzfs/zfs issue 8821,
// 2019-05-29, rebuilding the reporter's raidz1 pool with two unmirrored
// dedup devices on files; testdata/openzfs-8821-single-dedup-vdevs/README.md).
// Replayed through the whole check run as `zpool status -P -t`, the pool's
// data vdev is redundant and both dedup vdevs are named with their status
// lines as evidence; zfs-alloc-vdev-not-redundant is critical on dozer. The
// healthy counterpart is Checkmk/checkmk#475's real tree (a data mirror, a
// mirrored special vdev): no finding.
func TestZFSAllocVdevNotRedundantRealCapture(t *testing.T) {
	judge := func(status []byte, name string) ([]rules.Finding, *checks.Observation) {
		t.Helper()
		res := replayZpool(t, status)
		var pool *checks.Observation
		for _, o := range res.Observations {
			if o.Kind == checks.KindPool && o.Subject == name {
				pool = o
			}
		}
		if pool == nil {
			t.Fatalf("no pool observation for %s", name)
		}
		fs, err := engineWith(t, "zfs-alloc-vdev-not-redundant").Judge(res)
		if err != nil {
			t.Fatal(err)
		}
		return fs, pool
	}

	b, err := os.ReadFile("testdata/openzfs-8821-single-dedup-vdevs/zpool-status.txt")
	if err != nil {
		t.Fatal(err)
	}
	fs, pool := judge(b, "dozer")
	if v, _ := pool.Get("zfs_nonredundant_alloc_vdevs").([]string); strings.Join(v, ",") != "dedup /var/tmp/vdev4,dedup /var/tmp/vdev5" || pool.Get("zfs_data_redundant") != true {
		t.Fatalf("nonredundant %v, data redundant %v; want dedup /var/tmp/vdev4 and vdev5, true", v, pool.Get("zfs_data_redundant"))
	}
	if got := verdicts(fs); len(got) != 1 || got[0] != "zfs-alloc-vdev-not-redundant "+rules.Critical+" dozer" {
		t.Fatalf("findings = %v, want zfs-alloc-vdev-not-redundant critical on dozer", got)
	}
	var ev []string
	for _, e := range fs[0].Evidence {
		ev = append(ev, e.Source+": "+e.Value)
	}
	for _, line := range []string{"/var/tmp/vdev4    ONLINE       0     0     0", "/var/tmp/vdev5    ONLINE       0     0     0"} {
		if !strings.Contains(strings.Join(ev, "\n"), "zpool status -P -t: "+line) {
			t.Errorf("evidence = %q, want the status line %q", ev, line)
		}
	}

	if fs, _ := judge([]byte(checkmk475Status), "storage"); len(fs) != 0 {
		t.Errorf("findings on Checkmk 475's mirrored special vdev = %v, want none", verdicts(fs))
	}
}
