package kernlog

import "testing"

// FuzzClassifyKernelLog: no log, however broken, may panic the pattern
// library, the log-derived topology, grouping or link summaries.
func FuzzClassifyKernelLog(f *testing.F) {
	for _, s := range []string{
		"[  614.263599] ata1: limiting SATA link speed to 3.0 Gbps\n[  614.307036] ata1: hard resetting link\n[  624.499503] ata1: SATA link up 3.0 Gbps (SStatus 123 SControl 320)\n",
		"[  255.128713] ata6.00: cmd 60/80:78:00:08:00/00:00:00:00:00/40 tag 15 ncq dma 65536 in\n                        res 41/40:00:70:08:00/00:00:00:00:00/00 Emask 0x409 (media error) <F>\n",
		"Feb 24 20:36:58 thinkpad kernel: nvme nvme1: I/O 852 QID 15 timeout, aborting\nFeb 24 20:40:02 thinkpad kernel: EXT4-fs (dm-1): Remounting filesystem read-only\n",
		"<3>2024-04-17T00:26:33.540832+05:30 host-name kernel: [   29.782109] print_req_error: critical medium error, dev sdb, sector 8724376\n",
		"[    0.5] scsi host3: usb-storage 2-3:1.0\n[    1.6] sd 3:0:0:0: [sdc] Write cache: disabled, read cache: enabled\n[    1.2] ata3.00: ATAPI: DVD\n  nvme0n1: p1 p2\n",
		"[ 1.0\n\t\n ata1: \nsd 99999999999999999999:0:0:0: [x] Write cache: enabled\n",
	} {
		f.Add([]byte(s), 100.0)
	}
	f.Fuzz(func(t *testing.T, b []byte, uptime float64) {
		k := &Log{Lines: Parse(b)}
		topo := &Topology{}
		topo.LearnFromLog(k)
		ev := Classify(k, topo, uptime)
		groups := GroupEvents(ev)
		n := 0
		for _, g := range groups {
			if g.Count < 1 || g.Last.Num < g.First.Num {
				t.Fatalf("bad group %+v", g)
			}
			n += g.Count
		}
		if n < len(ev) {
			t.Fatalf("%d events, %d in groups", len(ev), n)
		}
		for _, s := range SATALinks(ev) {
			_ = s.Downgraded()
		}
	})
}
