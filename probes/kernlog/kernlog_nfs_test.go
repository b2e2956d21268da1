package kernlog

import (
	"slices"
	"testing"
)

// raspberrypi/linux issue 2482 (2018, an RPi3 B+ on Arch, 4.14.31): the
// server "ease" stops answering and recovers within a second; a task
// writing to the mount is reported hung 214 s later, its stack in
// nfs_file_fsync.
const rpi2482 = `[ 3192.880466] [<8029d7cc>] (SyS_close) from [<80107ce0>] (ret_fast_syscall+0x0/0x4c)
[ 3223.539141] nfs: server ease not responding, still trying
[ 3224.579687] nfs: server ease not responding, still trying
[ 3224.612015] nfs: server ease OK
[ 3224.626000] nfs: server ease OK
[ 3438.580109] INFO: task objcopy:24916 blocked for more than 120 seconds.
[ 3438.583905]       Tainted: G         C      4.14.31-1-ARCH #1
[ 3438.587697] "echo 0 > /proc/sys/kernel/hung_task_timeout_secs" disables this message.
[ 3438.595231] objcopy         D    0 24916  24912 0x00000000
[ 3438.599109] [<80a87848>] (__schedule) from [<80a88018>] (schedule+0x3c/0xa0)
[ 3438.603019] [<80a88018>] (schedule) from [<8015c138>] (io_schedule+0x14/0x3c)
[ 3438.606896] [<8015c138>] (io_schedule) from [<80230be4>] (wait_on_page_bit+0x110/0x15c)
[ 3438.614435] [<80230be4>] (wait_on_page_bit) from [<80230d0c>] (__filemap_fdatawait_range+0xdc/0x128)
[ 3438.622018] [<80230d0c>] (__filemap_fdatawait_range) from [<80233190>] (filemap_write_and_wait_range+0x54/0x88)
[ 3438.629666] [<80233190>] (filemap_write_and_wait_range) from [<803db1c4>] (nfs_file_fsync+0x30/0x280)
`

func TestNFSServersRecoveredWithHungTask(t *testing.T) {
	got := (&Log{Lines: Parse([]byte(rpi2482))}).NFSServers()
	if len(got) != 1 {
		t.Fatalf("%d servers", len(got))
	}
	s := got[0]
	if s.Name != "ease" || s.StillTrying != 2 || s.TimedOut != 0 || !s.Recovered {
		t.Errorf("%+v", s)
	}
	if len(s.Lines) != 3 || s.Lines[0].Num != 2 || s.Lines[1].Num != 3 || s.Lines[2].Num != 4 {
		t.Errorf("lines %+v", s.Lines)
	}
	if !slices.Equal(s.HungTasks, []string{"objcopy:24916"}) || s.HungLines[0].Num != 6 {
		t.Errorf("hung %v", s.HungTasks)
	}
}

// linux-surface/linux-surface issue 1494: a soft mount's requests time
// out, then a hard one's retry, then the server answers. nfs-ganesha
// issue 1295 (2024): the log ends with the server not answering, and a
// hung task while it is down belongs to it whatever its stack.
func TestNFSServersDownAndTimedOut(t *testing.T) {
	surface := `[32512.456102] nfs: server thinkcentre not responding, timed out
[32516.679571] nfs: server thinkcentre not responding, timed out
[32956.142249] nfs: server thinkcentre not responding, still trying
[32958.266147] nfs: server thinkcentre OK
`
	got := (&Log{Lines: Parse([]byte(surface))}).NFSServers()
	if len(got) != 1 || got[0].TimedOut != 2 || got[0].StillTrying != 1 || !got[0].Recovered {
		t.Fatalf("%+v", got)
	}
	ganesha := `[871222.760669] nfs: server 100.73.159.36 OK
[1576939.453001] nfs: server 100.73.159.36 not responding, still trying
[1576939.453004] nfs: server 100.73.159.36 not responding, still trying
[1577061.100000] INFO: task kworker/u8:2:1234 blocked for more than 120 seconds.
`
	got = (&Log{Lines: Parse([]byte(ganesha))}).NFSServers()
	if len(got) != 1 || got[0].Name != "100.73.159.36" || got[0].Recovered || got[0].StillTrying != 2 {
		t.Fatalf("%+v", got)
	}
	if !slices.Equal(got[0].HungTasks, []string{"kworker/u8:2:1234"}) {
		t.Errorf("hung %v", got[0].HungTasks)
	}
	// An OK before any failure, a server-side nfsd hang with no client
	// outage (openzfs/zfs issue 3997), a hung task whose stack is not
	// NFS's after recovery: none of them is an NFS server's.
	quiet := `[  100.000000] nfs: server fs1 OK
[  479.971084] INFO: task nfsd:3780 blocked for more than 120 seconds.
[  479.971445]  [<ffffffff8135077c>] ? __mutex_lock_common.isra.5+0xff/0x164
`
	if got := (&Log{Lines: Parse([]byte(quiet))}).NFSServers(); len(got) != 0 {
		t.Errorf("servers %+v", got)
	}
	ext4 := rpi2482[:len(rpi2482)-len("[ 3438.629666] [<80233190>] (filemap_write_and_wait_range) from [<803db1c4>] (nfs_file_fsync+0x30/0x280)\n")]
	if got := (&Log{Lines: Parse([]byte(ext4))}).NFSServers(); len(got) != 1 || len(got[0].HungTasks) != 0 {
		t.Errorf("a stack without NFS attributed: %+v", got[0].HungTasks)
	}
}

// dmesg -T's wall-clock lines (openzfs/zfs issue 15734) parse alike.
func TestNFSServersWallClock(t *testing.T) {
	b := `[Wed Apr 10 17:58:24 2024] nfs: server 192.168.0.1 not responding, still trying
[Wed Apr 10 17:58:39 2024] nfs: server 192.168.0.1 OK
`
	got := (&Log{Lines: Parse([]byte(b))}).NFSServers()
	if len(got) != 1 || got[0].Name != "192.168.0.1" || !got[0].Recovered {
		t.Fatalf("%+v", got)
	}
}

// FuzzNFSServers: no log may panic the walk, and every server it returns
// failed at least once, with its lines and hung tasks bounded.
func FuzzNFSServers(f *testing.F) {
	f.Add([]byte(rpi2482))
	f.Add([]byte("nfs: server a OK\nnfs: server a not responding, timed out\nINFO: task x:1 blocked for more than 1 seconds\n"))
	f.Fuzz(func(t *testing.T, b []byte) {
		for _, s := range (&Log{Lines: Parse(b)}).NFSServers() {
			if s.StillTrying+s.TimedOut < 1 || len(s.Lines) < 1 || len(s.Lines) > 3 || len(s.HungTasks) > maxNFSHung {
				t.Fatalf("%+v", s)
			}
		}
	})
}
