package kernlog

import "testing"

// linux-btrfs, 2025-09-05 ("Btrfs RAID 1 … keeps mounting itself into
// R/O"): at mount, btrfs prints the counters of both members of the
// raid1 under the name of one, sdb1; dmesg -H's relative stamps.
const btrfsRaid1Mount = `[ +0.001385] BTRFS info (device sdb1): first mount of filesystem 8641eeeb-ddf0-47af-8ed0-254327dcc050
[ +0.000017] BTRFS info (device sdb1): using crc32c (crc32c-x86) checksum algorithm
[ +0.000005] BTRFS info (device sdb1): using free-space-tree
[ +0.431024] BTRFS info (device sdb1): bdev /dev/sdb1 errs: wr 0, rd 0, flush 0, corrupt 122994, gen 0
[ +0.000008] BTRFS info (device sdb1): bdev /dev/sda1 errs: wr 0, rd 0, flush 0, corrupt 135630, gen 0
`

func TestBTRFSDeviceStats(t *testing.T) {
	got := (&Log{Lines: Parse([]byte(btrfsRaid1Mount))}).BTRFSDeviceStats()
	if len(got) != 2 {
		t.Fatalf("%d devices: %+v", len(got), got)
	}
	if got[0].Dev != "sdb1" || got[0].Corrupt != 122994 || got[1].Dev != "sda1" || got[1].Corrupt != 135630 || got[1].Write != 0 || got[1].Line.Num != 5 {
		t.Errorf("%+v %+v", got[0], got[1])
	}
	// A later runtime line (linux-btrfs 2021-06-04: "BTRFS error (device
	// sdc): bdev /dev/sdb errs: …") updates the counters of the bdev it
	// names.
	more := btrfsRaid1Mount + "[Fri Jun  4 09:53:03 2021] BTRFS error (device sdb1 state A): bdev /dev/sda1 errs: wr 1, rd 0, flush 0, corrupt 135631, gen 0\n"
	got = (&Log{Lines: Parse([]byte(more))}).BTRFSDeviceStats()
	if len(got) != 2 || got[1].Write != 1 || got[1].Corrupt != 135631 || got[1].Line.Num != 6 {
		t.Errorf("%+v", got[1])
	}
}

// The runtime counter line is the bdev's, not the device in parentheses
// (linux-btrfs, 2021-06-04: a raid1 named by sdc, errors on sdb and sda).
func TestClassifyBTRFSBdevErrors(t *testing.T) {
	k := &Log{Lines: Parse([]byte(`[Fri Jun  4 09:53:03 2021] BTRFS error (device sdc): bdev /dev/sdb errs: wr 0, rd 0, flush 0, corrupt 324, gen 0
[Fri Jun  4 09:53:03 2021] BTRFS error (device sdc): bdev /dev/sda errs: wr 0, rd 0, flush 0, corrupt 409, gen 0
[  184.107729] BTRFS error (device nvme0n1p5): incorrect extent count for 122436976640; counted 1577, expected 1575
`))}
	ev := Classify(k, nil, -1)
	if len(ev) != 3 || ev[0].Ref != "sdb" || ev[1].Ref != "sda" || ev[2].Ref != "nvme0n1p5" {
		for _, e := range ev {
			t.Logf("%s %s %s", e.Pattern, e.Category, e.Ref)
		}
		t.Fatalf("%d events", len(ev))
	}
	// The mount-time copy repeats old counters: not a new error.
	if ev := Classify(&Log{Lines: Parse([]byte(btrfsRaid1Mount))}, nil, -1); len(ev) != 0 {
		t.Errorf("mount-time counters classified: %+v", ev)
	}
}

// Newer kernels print the state after a colon, as in linux-btrfs 2024's
// "BTRFS critical (device vdc1: state EA): unable to find ref …"; a
// counters line in that form (built here) is read alike.
func TestBTRFSDeviceStatsStateColon(t *testing.T) {
	got := (&Log{Lines: Parse([]byte("BTRFS error (device vdc1: state EA): bdev /dev/vdc1 errs: wr 3, rd 0, flush 0, corrupt 0, gen 0\n"))}).BTRFSDeviceStats()
	if len(got) != 1 || got[0].Dev != "vdc1" || got[0].Write != 3 {
		t.Errorf("%+v", got)
	}
}
