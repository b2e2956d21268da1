package checks

import (
	"strings"
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
	obs := btrfsObservations(btrfsLogErrs(log.BTRFSDeviceStats()), block.NewMap(devs), map[string]bool{"sda": true, "sdb": true, "sdc": true})
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

// linux-btrfs, 2025-09-05: after "parent transid verify failed" btrfs
// aborts the transaction and forces the filesystem read-only under the
// name "device sdb1". That is filesystem corruption, reported on sdb as
// such and not as a critical I/O error of the disk.
func TestBTRFSForcedReadonlyIsNotADiskError(t *testing.T) {
	log := &kernlog.Log{Lines: kernlog.Parse([]byte(`[ 9000.000000] BTRFS error (device sdb1): parent transid verify failed on logical 54114557984768 mirror 2 wanted 1250553 found 1250557
[ 9000.023579] BTRFS error (device sdb1): parent transid verify failed on logical 54114557984768 mirror 1 wanted 1250553 found 1250557
[ 9000.023633] BTRFS error (device sdb1 state A): Transaction aborted (error -5)
[ 9000.023674] BTRFS info (device sdb1 state EA): forced readonly
`))}
	sdb := &block.Device{Name: "sdb", DevNo: "8:16", Partitions: []block.Partition{{Name: "sdb1", DevNo: "8:17"}}}
	topo := kernlog.NewTopology([]*block.Device{sdb}, nil)
	for _, o := range KernelLogObservations(log, topo, -1, []string{"sdb"}) {
		if o.Subject != "sdb" {
			continue
		}
		if o.Get("klog_critical_events") != 0 || o.Get("klog_fs_readonly") != false {
			t.Errorf("critical %v, read-only %v", o.Get("klog_critical_events"), o.Get("klog_fs_readonly"))
		}
		if s, _ := o.Get("klog_summary").(string); !strings.Contains(s, "not disk errors") {
			t.Errorf("summary %q", s)
		}
		return
	}
	t.Fatal("no observation of sdb")
}
