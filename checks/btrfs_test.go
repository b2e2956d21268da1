package checks

import (
	"testing"

	"github.com/diskdoctor/diskdoctor/probes/block"
	"github.com/diskdoctor/diskdoctor/probes/kernlog"
)

// linux-btrfs, 2021-06-04: a raid1 that btrfs names "device sdc" while
// the counters that grow are sdb's and sda's; each lands on its own disk,
// none on sdc. A bdev that is no judged disk's is left out.
func TestBTRFSObservationsFollowTheBdev(t *testing.T) {
	log := &kernlog.Log{Lines: kernlog.Parse([]byte(`[Fri Jun  4 09:53:03 2021] BTRFS error (device sdc): bdev /dev/sdb errs: wr 0, rd 0, flush 0, corrupt 324, gen 0
[Fri Jun  4 09:53:03 2021] BTRFS error (device sdc): bdev /dev/sda errs: wr 0, rd 0, flush 0, corrupt 409, gen 0
[Fri Jun  4 09:53:04 2021] BTRFS error (device sdc): bdev /dev/sdz errs: wr 2, rd 0, flush 0, corrupt 0, gen 0
`))}
	var devs []*block.Device
	for i, n := range []string{"sda", "sdb", "sdc"} {
		devs = append(devs, &block.Device{Name: n, DevNo: "8:" + string(rune('0'+i))})
	}
	obs := btrfsObservations(log.BTRFSDeviceStats(), block.NewMap(devs), map[string]bool{"sda": true, "sdb": true, "sdc": true})
	if len(obs) != 2 || obs[0].Subject != "sdb" || obs[1].Subject != "sda" {
		t.Fatalf("%d observations", len(obs))
	}
	if obs[0].Get("btrfs_dev_corruption_errs") != uint64(324) || obs[1].Get("btrfs_dev_corruption_errs") != uint64(409) || obs[1].Get("btrfs_dev_write_errs") != uint64(0) {
		t.Errorf("sdb %v, sda %v", obs[0].Get("btrfs_dev_corruption_errs"), obs[1].Get("btrfs_dev_corruption_errs"))
	}
	if ev := obs[1].EvidenceOf("btrfs_dev_errs"); len(ev) != 1 || ev[0].Source != "dmesg line 2" {
		t.Errorf("evidence %+v", ev)
	}
}
