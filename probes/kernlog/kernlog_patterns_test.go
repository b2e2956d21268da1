package kernlog

import (
	"reflect"
	"strings"
	"testing"

	"github.com/diskdoctor/diskdoctor/internal/testutil"
	"github.com/diskdoctor/diskdoctor/machine"
	"github.com/diskdoctor/diskdoctor/probes/block"
	"github.com/diskdoctor/diskdoctor/probes/system"
)

// Each line of klogPatternLines: its category, what it names, and the disks.
// Lines as real kernels print them (from the logs in ../shared/samples/dmesg
// and kernel sources), one per pattern, with the device each names.
// klogPatternLines are lines as real kernels print them (from the logs in
// ../shared/samples/dmesg, the corpus and kernel sources), at least one per
// pattern (TestKlogEveryPatternHasALine), with the device each names.
var klogPatternLines = []struct {
	line, cat, ref string
	devs           []string
}{
	{"[    2.101312] sd 2:0:0:0: [sda] Write cache: disabled, read cache: enabled, doesn't support DPO or FUA", WriteCache, "sda", []string{"sda"}},
	{"[  255.129947] sd 5:0:0:0: [sdd] tag#15 Sense Key : Medium Error [current] ", MediumError, "sdd", []string{"sdd"}},
	{"[  255.129952] sd 5:0:0:0: [sdd] tag#15 Add. Sense: Unrecovered read error - auto reallocate failed", MediumError, "sdd", []string{"sdd"}},
	{"<3>2024-04-17T00:26:33.540832+05:30 host-name kernel: [   29.782109] print_req_error: critical medium error, dev sdd, sector 8724376", MediumError, "sdd", []string{"sdd"}},
	{"[  255.129959] print_req_error: I/O error, dev sdd, sector 2160", IOError, "sdd", []string{"sdd"}},
	{"[  702.214189] I/O error, dev sda, sector 0 op 0x1:(WRITE) flags 0x800 phys_seg 0 prio class 0", IOError, "sda", []string{"sda"}},
	{"Feb 24 20:40:02 thinkpad kernel: blk_update_request: I/O error, dev nvme1n1, sector 2161435200 op 0x1:(WRITE) flags 0x800 phys_seg 2 prio class 0", IOError, "nvme1n1", []string{"nvme1n1"}},
	{"Feb 24 20:40:02 thinkpad kernel: Buffer I/O error on dev dm-1, logical block 0, lost sync page write", IOError, "dm-1", []string{"nvme1n1"}},
	{"[ 4021.5] end_request: I/O error, dev sda2, sector 1234", IOError, "sda2", []string{"sda"}},
	{"[ 1021.555] nvme1n1: I/O Cmd(0x2) @ LBA 1953520, 8 blocks, I/O Error (sct 0x2 / sc 0x81) DNR", MediumError, "nvme1n1", []string{"nvme1n1"}},
	{"[ 1021.555] nvme1n1: I/O Cmd(0x1) @ LBA 1953520, 8 blocks, I/O Error (sct 0x0 / sc 0x4)", IOError, "nvme1n1", []string{"nvme1n1"}},
	{"[  614.269289] ata1.00: exception Emask 0x10 SAct 0x0 SErr 0xf0100 action 0x6 frozen", ATAException, "ata1.00", []string{"sda"}},
	{"[  614.276979] ata1: SError: { UnrecovData PHYRdyChg PHYInt CommWake 10B8B }", LinkError, "ata1", []string{"sda"}},
	{"[  614.284037] ata1.00: failed command: FLUSH CACHE", CommandFailed, "ata1.00", []string{"sda"}},
	{"Dec 10 18:58:49 kernel: ata1.00: cmd 60/00:18:50:4a:4c/20:00:0c:00:00/40 tag 3 ncq dma 4194304 in res 40/00:00:00:00:00/00:00:00:00:00/00 Emask 0x4 (timeout)", Timeout, "ata1.00", []string{"sda"}},
	{"[  629.759549] ata1.00: qc timeout after 5000 msecs (cmd 0xec)", Timeout, "ata1.00", []string{"sda"}},
	{"[  614.307036] ata1: hard resetting link", LinkReset, "ata1", []string{"sda"}},
	{"[  614.263599] ata1: limiting SATA link speed to 3.0 Gbps", LinkLimited, "ata1", []string{"sda"}},
	{"[  624.499503] ata1: SATA link up 3.0 Gbps (SStatus 123 SControl 320)", LinkUp, "ata1", []string{"sda"}},
	{"Dec 10 18:59:30 kernel: ata1.00: NCQ disabled due to excessive errors", NCQDisabled, "ata1.00", []string{"sda"}},
	{"[  691.985935] ata1.00: disable device", DeviceFailed, "ata1.00", []string{"sda"}},
	{"[  255.129924] ata6.00: error: { UNC }", MediumError, "ata6.00", []string{"sdd"}},
	{"Feb 24 20:36:58 thinkpad kernel: nvme nvme1: I/O 852 QID 15 timeout, aborting", Timeout, "nvme1", []string{"nvme1n1"}},
	{"Feb 24 20:37:29 thinkpad kernel: nvme nvme1: I/O 852 QID 15 timeout, reset controller", ControllerReset, "nvme1", []string{"nvme1n1"}},
	{"Feb 24 20:39:00 thinkpad kernel: nvme nvme1: Device not ready; aborting reset", DeviceFailed, "nvme1", []string{"nvme1n1"}},
	{"Feb 24 20:40:02 thinkpad kernel: EXT4-fs error (device dm-1) in ext4_do_update_inode:5055: Journal has aborted", FSError, "dm-1", []string{"nvme1n1"}},
	{"Feb 24 20:40:02 thinkpad kernel: EXT4-fs (dm-1): I/O error while writing superblock", FSError, "dm-1", []string{"nvme1n1"}},
	{"Feb 24 20:40:02 thinkpad kernel: EXT4-fs (dm-1): Remounting filesystem read-only", FSReadOnly, "dm-1", []string{"nvme1n1"}},
	{"[  207.424795] XFS (nvme1n1): Log I/O Error Detected. Shutting down filesystem", FSReadOnly, "nvme1n1", []string{"nvme1n1"}},
	{"[  207.415072] XFS (nvme1n1): metadata I/O error in \"xlog_iodone\" at daddr 0x100050 len 64 error 5", FSError, "nvme1n1", []string{"nvme1n1"}},
	{"Feb 24 20:39:18 thinkpad kernel: INFO: task jbd2/dm-1-8:730 blocked for more than 122 seconds.", HungTask, "", nil},
	{"[ 8211.1] CPU3: Package temperature above threshold, cpu clock throttled (total events = 1)", Thermal, "", nil},
	// XFS allocation retries: the 3.x form (codecentric blog, 2017), the
	// 4.x–6.x form with task and size, and xfs_buf's.
	{"Mar  5 22:42:57 node06 kernel: XFS: possible memory allocation deadlock in kmem_alloc (mode:0x250)", FSAllocStall, "", nil},
	{"[ 9001.2] XFS: runc:[1:CHILD](3580) possible memory allocation deadlock in kmem_zone_alloc (mode:0x82d0)", FSAllocStall, "", nil},
	{"[ 9001.2] XFS: kworker/u8:2(1234) possible memory allocation deadlock size 65552 in kmem_alloc (mode:0x2400240)", FSAllocStall, "", nil},
	{"[ 9001.2] XFS: dd(77) possible memory allocation deadlock in xfs_buf_allocate_memory (mode:0x1250)", FSAllocStall, "", nil},
	{"[3600194.452706] sd 0:0:3:0: [sdd] tag#5 FAILED Result: hostbyte=DID_OK driverbyte=DRIVER_SENSE cmd_age=7s", CommandFailed, "sdd", []string{"sdd"}},
	{"[ 5012.118201] sd 0:0:0:0: [sda] rejecting I/O to offline device", DeviceFailed, "sda", []string{"sda"}},
	// rsyslog writes the "res" continuation into the same line as #012.
	{"Jul 10 11:48:05 mgmt kernel: ata1.00: cmd 60/00:98:28:ac:3e/01:00:03:00:00/40 tag 19 ncq 131072 in#012         res 41/40:00:08:ad:3e/00:00:03:00:00/40 Emask 0x409 (media error) <F>", MediumError, "ata1.00", []string{"sda"}},
	{"Jul 26 18:03:08 i5server kernel: ata6.00: cmd 25/00:00:00:8c:dc/00:04:0f:00:00/e0 tag 1 dma 524288 in#012         res 51/84:ef:00:8c:dc/00:02:0f:00:00/e0 Emask 0x10 (ATA bus error)", LinkError, "ata6.00", []string{"sdd"}},
	{"[ 2881.090711] BTRFS info (device nvme1n1): forced readonly", FSCorrupt, "nvme1n1", []string{"nvme1n1"}},
	{"[ +0.000019] BTRFS info (device sda state EA): forced readonly", FSCorrupt, "sda", []string{"sda"}},
	{"BTRFS critical (device vdc1: state EA): unable to find ref byte nr 402811572224 parent 0 root 265 owner 28703026 offset 81432576 slot 189", FSCorrupt, "vdc1", nil},
	{"[ +0.023579] BTRFS error (device sda): parent transid verify failed on logical 54114557984768 mirror 1 wanted 1250553 found 1250557", FSCorrupt, "sda", []string{"sda"}},
	{"[ 2881.090700] BTRFS error (device nvme1n1): bdev /dev/nvme1n1 errs: wr 2, rd 0, flush 0, corrupt 0, gen 0", FSError, "nvme1n1", []string{"nvme1n1"}},
	{"[Fri Jun  4 09:53:03 2021] BTRFS error (device sdc): bdev /dev/sdb errs: wr 0, rd 0, flush 0, corrupt 324, gen 0", FSError, "sdb", nil},
	{"[   12.660329] BTRFS error (device sda): bad tree block start 0 21037056", FSError, "sda", []string{"sda"}},
	// Linux 6.x nvme_timeout forms (issue #10 item 3) and native multipath path devices.
	{"[ 5112.391022] nvme nvme1: I/O tag 489 (d1e9) opcode 0x1 (I/O Cmd) QID 3 timeout, aborting req_op:WRITE(1) size:4096", Timeout, "nvme1", []string{"nvme1n1"}},
	{"[ 5142.402318] nvme nvme1: I/O tag 489 (d1e9) opcode 0x1 (I/O Cmd) QID 3 timeout, reset controller", ControllerReset, "nvme1", []string{"nvme1n1"}},
	{"[ 5142.402318] nvme nvme1: I/O tag 12 (000c) QID 0 timeout, disable controller", ControllerReset, "nvme1", []string{"nvme1n1"}},
	{"[ 5112.391022] nvme nvme1: I/O 0 (I/O Cmd) QID 1 timeout, aborting", Timeout, "nvme1", []string{"nvme1n1"}},
	{"[  101.417700] nvme nvme1: I/O 897 QID 2 timeout, completion polled", Timeout, "nvme1", []string{"nvme1n1"}},
	{"[ 5172.9] nvme nvme1: controller is down; will reset: CSTS=0xffffffff, PCI_STATUS=0xffff", ControllerReset, "nvme1", []string{"nvme1n1"}},
	{"[ 5173.0] nvme nvme1: Disabling device after reset failure: -19", DeviceFailed, "nvme1", []string{"nvme1n1"}},
	{"[ 5173.1] nvme1c1n1: I/O Cmd(0x2) @ LBA 1953520, 8 blocks, I/O Error (sct 0x2 / sc 0x81)", MediumError, "nvme1c1n1", []string{"nvme1n1"}},
	{"[ 5173.1] I/O error, dev nvme1c1n1, sector 1953520 op 0x0:(READ) flags 0x0 phys_seg 1 prio class 2", IOError, "nvme1c1n1", []string{"nvme1n1"}},
	// md's error handlers name the member they gave up.
	{"[36190.2] md/raid1:md0: Disk failure on sdd1, disabling device.", DeviceFailed, "sdd1", []string{"sdd"}},
	{"[36190.2] md/raid:md5: Disk failure on sdd1, disabling device.", DeviceFailed, "sdd1", []string{"sdd"}},
	// 2.6–3.x forms.
	{"[  301.2] end_request: I/O error, dev sdd, sector 2160", IOError, "sdd", []string{"sdd"}},
	{"[  301.2] sd 5:0:0:0: [sdd]  Sense Key : Medium Error [current] [descriptor]", MediumError, "sdd", []string{"sdd"}},
	{"[  301.2] Buffer I/O error on device sda2, logical block 12", IOError, "sda2", []string{"sda"}},
	{"[  301.2] ata1.00: disabled", DeviceFailed, "ata1.00", []string{"sda"}},
	// issue #24 item 9: the lines libata prints before it gives a device up
	// (../shared/samples/dmesg/ata-link-errors-speed-downgrade-ext4-readonly.txt),
	// and sdev_printk's offline message, which names only the address (the
	// resume log quoted in the linux-ide commit that restored
	// ahci_pci_reset_controller).
	{"[  629.772120] ata1.00: revalidation failed (errno=-5)", CommandFailed, "ata1.00", []string{"sda"}},
	{"sd 2:0:0:0: rejecting I/O to offline device", DeviceFailed, "2:0:0:0", nil},
	{"[    0.249351] pci 0000:01:00.0: 32.000 Gb/s available PCIe bandwidth, limited by 2.5 GT/s PCIe x16 link at 0000:00:01.0", PCIeBandwidth, "0000:01:00.0", nil},
	{"[    0.9] pci 0000:04:00.0: 15.752 Gb/s available PCIe bandwidth, limited by 8.0 GT/s PCIe x2 link at 0000:00:1d.0", PCIeBandwidth, "0000:04:00.0", []string{"nvme1n1"}},
}

func TestKlogPatterns(t *testing.T) {
	topo := &Topology{}
	topo.init()
	topo.Disks["sda"], topo.Disks["sdd"], topo.Disks["nvme1n1"] = true, true, true
	topo.ATA["ata1"], topo.ATA["ata6"] = "sda", "sdd"
	topo.NVMe["nvme1"] = []string{"nvme1n1"}
	topo.PCI["0000:04:00.0"] = []string{"nvme1n1"}
	topo.Parents["dm-1"] = []string{"nvme1n1"}
	topo.Parents["sda2"] = []string{"sda"}
	tests := klogPatternLines
	for _, tt := range tests {
		t.Run(tt.cat+" "+tt.ref, func(t *testing.T) {
			k := &Log{Lines: Parse([]byte(tt.line))}
			ev := Classify(k, topo, -1)
			if len(ev) != 1 {
				t.Fatalf("%q: %d events, want 1", tt.line, len(ev))
			}
			e := ev[0]
			if e.Category != tt.cat || e.Ref != tt.ref || !reflect.DeepEqual(e.Devices, tt.devs) {
				t.Errorf("%q\n got %s %q %v\nwant %s %q %v", tt.line, e.Category, e.Ref, e.Devices, tt.cat, tt.ref, tt.devs)
			}
		})
	}
}

func TestKlogNotFindings(t *testing.T) {
	for _, l := range []string{
		"[    3.731124] EXT4-fs (nvme0n1p2): re-mounted. Opts: errors=remount-ro",
		"[    0.926956] ata9: SATA link down (SStatus 0 SControl 300)",
		"[  834.952025] rtw_8821ce 0000:02:00.0: firmware failed to leave lps state",
		"[    0.377377] pcieport 0000:00:1c.0: DPC: error containment capabilities: Int Msg #0",
		"[  702.223051] Write-error on swap-device (252:4:131072)",
		"[   44.921703] ata3.00: ATA-7: ST3808110AS, 2AAA, max UDMA/133",
		"[   44.988169] ata3.00: configured for UDMA/133",
		"[  286.054229] sd 0:0:0:0: [sda] No Caching mode page found",
		"[  286.054240] sd 0:0:0:0: [sda] Assuming drive cache: write through",
		"",
		"[",
		"\x00\xff garbage",
	} {
		ev := Classify(&Log{Lines: Parse([]byte(l))}, nil, -1)
		if len(ev) != 0 {
			t.Errorf("%q: %+v, want nothing", l, ev)
		}
	}
}

func TestKlogContinuationAndGrouping(t *testing.T) {
	log := `[  255.128702] ata6.00: failed command: READ FPDMA QUEUED
[  255.128713] ata6.00: cmd 60/80:78:00:08:00/00:00:00:00:00/40 tag 15 ncq dma 65536 in
                        res 41/40:00:70:08:00/00:00:00:00:00/00 Emask 0x409 (media error) <F>
`
	var b strings.Builder
	b.WriteString(log)
	for i := 0; i < 5000; i++ {
		b.WriteString("[  300.000000] ata6: hard resetting link\n")
	}
	b.WriteString("[ 4000.5] ata6: hard resetting link\n")
	topo := &Topology{}
	topo.init()
	topo.ATA["ata6"], topo.Disks["sdd"] = "sdd", true
	ev := Classify(&Log{Lines: Parse([]byte(b.String()))}, topo, 4100)
	groups := GroupEvents(ev)
	if len(groups) != 3 {
		t.Fatalf("groups: %+v", groups)
	}
	if g := groups[1]; g.Category != MediumError || g.Device != "sdd" {
		t.Errorf("continuation line: %+v", g)
	}
	g := groups[2]
	if g.Category != LinkReset || g.Count != 5001 || g.First.Num != 4 || g.Last.Num != 5004 || g.Boot || g.Age == nil || *g.Age > 100 {
		t.Errorf("5,001 resets: %+v", g)
	}
}

func TestSATALinksAndTopologyFromLog(t *testing.T) {
	// A DVD writer at 1.5 Gbps and a disk that came up slow and stayed
	// there are not downgraded; a port libata limited, or one that came
	// back slower, is.
	log := `[    0.5] scsi host0: ahci
[    0.5] scsi host1: ahci
[    0.5] scsi host2: ahci
[    0.6] scsi host3: usb-storage 2-3:1.0
[    1.0] ata1: SATA link up 3.0 Gbps (SStatus 123 SControl 300)
[    1.1] ata2: SATA link up 6.0 Gbps (SStatus 133 SControl 300)
[    1.2] ata3: SATA link up 1.5 Gbps (SStatus 113 SControl 300)
[    1.3] ata3.00: ATAPI: hp HLDS  DVDRW  GUD1N, LD04, max UDMA/100
[    1.4] sd 0:0:0:0: [sda] Write cache: enabled, read cache: enabled
[    1.5] sd 1:0:0:0: [sdb] Write cache: disabled, read cache: enabled
[    1.6] sd 3:0:0:0: [sdc] Write cache: disabled, read cache: enabled
[  900.0] ata2: hard resetting link
[  905.0] ata2: SATA link up 3.0 Gbps (SStatus 123 SControl 320)
`
	k := &Log{Lines: Parse([]byte(log))}
	topo := &Topology{}
	topo.LearnFromLog(k)
	if want := map[string]string{"ata1": "sda", "ata2": "sdb"}; !reflect.DeepEqual(topo.ATA, want) {
		t.Errorf("ATA ports = %v, want %v (ata3 is ATAPI)", topo.ATA, want)
	}
	if topo.Transport["sdc"] != "usb" || topo.Transport["sdb"] != "sata" {
		t.Errorf("transports = %v", topo.Transport)
	}
	links := SATALinks(Classify(k, topo, -1))
	if links["ata1"].Downgraded() || links["ata3"].Downgraded() || !links["ata2"].Downgraded() {
		t.Errorf("downgraded: ata1 %v ata2 %v ata3 %v", links["ata1"].Downgraded(), links["ata2"].Downgraded(), links["ata3"].Downgraded())
	}
}

func TestKlogTopologyFromDevices(t *testing.T) {
	devs := []*block.Device{
		{Name: "sda", SysPath: "/sys/devices/pci0000:00/0000:00:17.0/ata3/host2/target2:0:0/2:0:0:0/block/sda", SCSIAddr: "2:0:0:0", Transport: "sata",
			Partitions: []block.Partition{{Name: "sda1", Holders: []string{"dm-0"}}}},
		{Name: "nvme0n1", SysPath: "/sys/devices/pci0000:00/0000:00:1d.0/0000:03:00.0/nvme/nvme0/nvme0n1", Controllers: []string{"nvme0"}, Transport: "nvme"},
		{Name: "dm-0", Virtual: true, Holders: []string{"dm-1"}},
	}
	topo := NewTopology(devs, map[string]string{"nvme0": "0000:03:00.0"})
	for _, c := range []struct {
		kind, ref string
		want      []string
	}{
		{RefATA, "ata3", []string{"sda"}}, {RefATA, "ata4", nil}, {RefNVMe, "nvme0", []string{"nvme0n1"}},
		{RefPCI, "0000:03:00.0", []string{"nvme0n1"}}, {RefPCI, "0000:01:00.0", nil},
		{RefBlock, "dm-1", []string{"sda"}}, {RefBlock, "sda1", []string{"sda"}}, {RefBlock, "sdz", []string{"sdz"}}, {RefBlock, "sdz1", []string{"sdz"}}, {RefNVMe, "nvme9", []string{"nvme9"}}, {RefBlock, "nvme9n1p2", []string{"nvme9n1"}}, {RefBlock, "dm-7", nil}, {RefHost, "", nil},
	} {
		if got := topo.Attribute(c.kind, c.ref); !reflect.DeepEqual(got, c.want) {
			t.Errorf("%s %s -> %v, want %v", c.kind, c.ref, got, c.want)
		}
	}
}

func TestReadUptime(t *testing.T) {
	dir := t.TempDir()
	testutil.WriteFile(t, dir+"/sys/.keep", "")
	testutil.WriteFile(t, dir+"/proc/uptime", "35127.42 130012.88\n")
	h, err := machine.Recorded(dir)
	testutil.Must(t, err)
	if u, err := system.ReadUptime(t.Context(), h); err != nil || u != 35127.42 {
		t.Errorf("uptime %v %v", u, err)
	}
	testutil.WriteFile(t, dir+"/proc/uptime", "x y\n")
	if _, err := system.ReadUptime(t.Context(), h); err == nil {
		t.Error("garbage uptime parsed")
	}
}

// Port multipliers (issue #10 item 4): ata3.01 and ata3.02 are two disks
// behind one port, ata3.15 is the multiplier itself, and "ata3:" is about
// every disk behind it. libata scans multiplier links as SCSI channels.
func TestKlogPortMultiplier(t *testing.T) {
	devs := []*block.Device{
		{Name: "sdb", SysPath: "/sys/devices/pci0000:00/0000:00:1f.2/ata3/host2/target2:0:0/2:0:0:0/block/sdb", SCSIAddr: "2:0:0:0", Transport: "sata"},
		{Name: "sdc", SysPath: "/sys/devices/pci0000:00/0000:00:1f.2/ata3/host2/target2:1:0/2:1:0:0/block/sdc", SCSIAddr: "2:1:0:0", Transport: "sata"},
		{Name: "sdd", SysPath: "/sys/devices/pci0000:00/0000:00:1f.2/ata3/host2/target2:2:0/2:2:0:0/block/sdd", SCSIAddr: "2:2:0:0", Transport: "sata"},
		{Name: "sda", SysPath: "/sys/devices/pci0000:00/0000:00:1f.2/ata1/host0/target0:0:0/0:0:0:0/block/sda", SCSIAddr: "0:0:0:0", Transport: "sata"},
	}
	topo := NewTopology(devs, nil)
	for _, c := range []struct {
		ref  string
		want []string
	}{
		{"ata3.00", []string{"sdb"}}, {"ata3.01", []string{"sdc"}}, {"ata3.02", []string{"sdd"}},
		{"ata3.15", nil}, {"ata3.04", nil}, {"ata3", []string{"sdb", "sdc", "sdd"}},
		{"ata1", []string{"sda"}}, {"ata1.00", []string{"sda"}}, {"ata1.01", nil},
	} {
		if got := topo.Attribute(RefATA, c.ref); !reflect.DeepEqual(got, c.want) {
			t.Errorf("%s -> %v, want %v", c.ref, got, c.want)
		}
	}
	if links := topo.LinksByDisk(); links["sdc"] != "ata3.01" || links["sda"] != "ata1" {
		t.Errorf("links: sdc %q sda %q", links["sdc"], links["sda"])
	}
	// The same machine from its log alone: "ata3.15: Port Multiplier"
	// and the sd lines place the disks.
	log := "[    1.0] scsi host0: ahci\n[    1.0] scsi host1: ahci\n[    1.0] scsi host2: ahci\n" +
		"[    2.1] ata3.15: Port Multiplier 1.2, 0x197b:0x0325 r0, 5 ports, feat 0x5/0xf\n" +
		"[    2.9] sd 2:0:0:0: [sdb] Attached SCSI disk\n[    2.9] sd 2:1:0:0: [sdc] Attached SCSI disk\n" +
		"[ 900.0] ata3.01: exception Emask 0x0 SAct 0x0 SErr 0x0 action 0x6 frozen\n" +
		"[ 900.1] ata3.15: exception Emask 0x4 SAct 0x0 SErr 0x0 action 0x6 frozen\n"
	k := &Log{Lines: Parse([]byte(log))}
	lt := &Topology{}
	lt.LearnFromLog(k)
	ev := Classify(k, lt, -1)
	if len(ev) != 2 || !reflect.DeepEqual(ev[0].Devices, []string{"sdc"}) || ev[1].Devices != nil {
		t.Errorf("events %+v", ev)
	}
}

// Split sense lines of kernels before 4.5 (issue #10 item 5): the prefix
// line and the sense line are one medium error on sdc, counted once.
func TestKlogSplitSenseLines(t *testing.T) {
	log := "[ 1213.104455] sd 2:0:0:0: [sdc] Unhandled sense code\n" +
		"[ 1213.104458] sd 2:0:0:0: [sdc]  \n" +
		"[ 1213.104460] Result: hostbyte=DID_OK driverbyte=DRIVER_SENSE\n" +
		"[ 1213.104462] sd 2:0:0:0: [sdc]  \n" +
		"[ 1213.104464] Sense Key : Medium Error [current] [descriptor]\n" +
		"[ 1213.104467] Descriptor sense data with sense descriptors (in hex):\n" +
		"[ 1213.104470] sd 2:0:0:0: [sdc]  \n" +
		"[ 1213.104472] Add. Sense: Unrecovered read error - auto reallocate failed\n" +
		"[ 1213.104480] end_request: I/O error, dev sdc, sector 1234567\n"
	topo := &Topology{}
	k := &Log{Lines: Parse([]byte(log))}
	topo.LearnFromLog(k)
	var got []string
	for _, e := range Classify(k, topo, -1) {
		got = append(got, e.Pattern+" "+strings.Join(e.Devices, ","))
	}
	want := []string{"scsi-medium-error sdc", "scsi-unrecovered-read sdc", "blk-io-error sdc"}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("events %q, want %q", got, want)
	}
}

// Every pattern of the library has a line of its exact form in
// klogPatternLines (issue #10 item 6).
func TestKlogEveryPatternHasALine(t *testing.T) {
	topo := &Topology{LogOnly: true}
	seen := map[string]bool{}
	for _, tt := range klogPatternLines {
		for _, e := range Classify(&Log{Lines: Parse([]byte(tt.line))}, topo, -1) {
			seen[e.Pattern] = true
		}
	}
	for _, p := range patterns {
		if !seen[p.Name] {
			t.Errorf("pattern %s has no test line", p.Name)
		}
	}
}
