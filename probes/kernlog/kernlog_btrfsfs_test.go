package kernlog

import (
	"slices"
	"testing"
)

// linux-btrfs, 2020-08-01 ("Access Beyond End of Device & Input/Output
// Errors"): a degraded mount of a six-device filesystem, devid 1 missing;
// the journal's prefixes removed.
const btrfsDegradedMount = `[ 8.512215] BTRFS info (device sde1): allowing degraded mounts
[ 8.512220] BTRFS info (device sde1): disk space caching is enabled
[ 8.514871] BTRFS warning (device sde1): devid 1 uuid cb05aae6-6c03-49d3-b46d-bf51a0eb8cd0 is missing
[ 8.943046] BTRFS info (device sde1): bdev /dev/sdf1 errs: wr 4458026, rd 14571, flush 0, corrupt 0, gen 0
`

// ENOSPC as btrfs prints it: an older kernel's "BTRFS: error (device
// dm-9) in …: errno=-28 No space left" (linux-btrfs, a forced-readonly
// report), a newer one with the state letters (linux-btrfs, sdd1 during
// a balance), and the transaction abort with no device, which names no
// filesystem.
const btrfsENOSPC = `[13439425.328961] BTRFS: error (device dm-9) in __btrfs_free_extent:6805: errno=-28 No space left
[13439425.439057] BTRFS info (device dm-9): forced readonly
[13439425.439067] BTRFS: error (device dm-9) in btrfs_run_delayed_refs:2935: errno=-28 No space left
[13439426.000000] BTRFS: error (device sdd1: state A) in btrfs_run_delayed_refs:2249: errno=-28 No space left
[13439426.100000] BTRFS: Transaction aborted (error -28)
`

func TestBTRFSFilesystemEvents(t *testing.T) {
	ev := (&Log{Lines: Parse([]byte(btrfsDegradedMount + btrfsENOSPC))}).BTRFSFilesystemEvents()
	if len(ev) != 3 {
		t.Fatalf("%d filesystems: %+v", len(ev), ev)
	}
	if e := ev[0]; e.Device != "sde1" || len(e.Missing) != 2 || !slices.Equal(e.MissingIDs, []string{"1"}) || len(e.ENOSPC) != 0 {
		t.Errorf("sde1: %+v", e)
	}
	if e := ev[1]; e.Device != "dm-9" || len(e.ENOSPC) != 2 || len(e.Missing) != 0 {
		t.Errorf("dm-9: %+v", e)
	}
	if e := ev[2]; e.Device != "sdd1" || len(e.ENOSPC) != 1 {
		t.Errorf("sdd1: %+v", e)
	}
}

// linux-btrfs, 2022-02 (a qgroup rescan against a commit, 5.17-rc4): the
// transaction kthread hung waiting in btrfs. The second report (LKML,
// 2009, msgctl11 of LTP waiting on an IPC semaphore) is not btrfs's.
const btrfsHung = `[  363.662691] INFO: task btrfs-transacti:1158 blocked for more than 120 seconds.
[  363.662765]       Not tainted 5.17.0-rc4+ #16
[  363.662809] "echo 0 > /proc/sys/kernel/hung_task_timeout_secs" disables this message.
[  363.662880] task:btrfs-transacti state:D stack:    0 pid: 1158 ppid:     2 flags:0x00004000
[  363.662889] Call Trace:
[  363.662892]  <TASK>
[  363.662896]  __schedule+0x2e5/0xbb0
[  363.662906]  ? _raw_spin_lock_irqsave+0x2a/0x60
[  363.662925]  schedule+0x58/0xd0
[  363.662942]  wait_current_trans+0xd2/0x130 [btrfs]
[  363.663046]  ? wait_woken+0x60/0x60
[  363.663055]  start_transaction+0x33c/0x600 [btrfs]
[  363.663159]  btrfs_attach_transaction+0x1d/0x20 [btrfs]
[  363.663268]  transaction_kthread+0xb5/0x1b0 [btrfs]
[  363.663498]  </TASK>
[  480.921813] INFO: task msgctl11:21576 blocked for more than 120 seconds.
[  480.941100] Call Trace:
[  480.948623]  [<ffffffff8158d535>] __down_write_nested+0x85/0xc0
[  480.955276]  [<ffffffff8126d88d>] ? ipcctl_pre_down+0x3d/0x150
`

func TestBTRFSHungTasks(t *testing.T) {
	tasks, at := (&Log{Lines: Parse([]byte(btrfsHung))}).BTRFSHungTasks()
	if !slices.Equal(tasks, []string{"btrfs-transacti:1158"}) || len(at) != 1 || at[0].Num != 1 {
		t.Errorf("%v %+v", tasks, at)
	}
	if tasks, _ := (*Log)(nil).BTRFSHungTasks(); tasks != nil {
		t.Error("nil log")
	}
}
