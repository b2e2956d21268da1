package checks

import (
	"strings"
	"testing"

	"github.com/diskdoctor/diskdoctor/probes/block"
	"github.com/diskdoctor/diskdoctor/probes/kernlog"
)

// issue #24 item 9: a device libata disabled that never got a disk name
// is a host fact naming the port and its model. Lines from the Ubuntu
// Forums thread "Boot Problem, dmesg Analysis Enclosed" (2008-04-27).
func TestKernelLogPortDisabledWithoutDisk(t *testing.T) {
	log := &kernlog.Log{Lines: kernlog.Parse([]byte(`[   44.921703] ata3.00: ATA-7: ST3808110AS, 2AAA, max UDMA/133
[   45.590759] ata4.00: ATA-6: Config  Disk, RGL10364, max UDMA/133
[   75.941619] ata4.00: failed to IDENTIFY (INIT_DEV_PARAMS failed, err_mask=0x80)
[   75.941623] ata4.00: revalidation failed (errno=-5)
[  146.158366] ata4.00: disabled
`))}
	devs := []*block.Device{{Name: "sda", Transport: "sata", SysPath: "/sys/devices/pci0000:00/0000:00:1f.2/ata3/host2/target2:0:0/2:0:0:0/block/sda", SCSIAddr: "2:0:0:0"}}
	topo := kernlog.NewTopology(devs, nil)
	topo.Listed = true
	topo.LearnFromLog(log)
	obs := KernelLogObservations(log, topo, 200, []string{"sda"})
	host := obs[len(obs)-1]
	got, _ := host.Get("klog_ports_disabled").([]string)
	if len(got) != 1 || !strings.HasPrefix(got[0], "ata4.00 (Config  Disk) disabled 146 s after boot") || !strings.Contains(got[0], "after 1 failed command") {
		t.Errorf("klog_ports_disabled %q", got)
	}
	if r, _ := host.Get("klog_ports_recovered").([]string); len(r) != 0 {
		t.Errorf("recovered %q", r)
	}
	if n := obs[0].Get("klog_events"); n != 0 {
		t.Errorf("sda has the port's events: %v", n)
	}
}

// An empty /sys/block that was read is every disk gone: the disk the log
// names with errors is reported gone, not dropped. Lines from the Ubuntu
// Forums thread "Identical disk problems in 2 servers" (2018-06-19).
func TestKernelLogEmptySysBlock(t *testing.T) {
	log := &kernlog.Log{Lines: kernlog.Parse([]byte(`[Tue Jun 19 02:39:19 2018] ata3.00: disabled
[Tue Jun 19 02:39:19 2018] sd 2:0:0:0: [sdb] tag#19 FAILED Result: hostbyte=DID_BAD_TARGET driverbyte=DRIVER_OK
[Tue Jun 19 02:39:19 2018] blk_update_request: I/O error, dev sdb, sector 5859720768
`))}
	for _, listed := range []bool{true, false} {
		topo := kernlog.NewTopology(nil, nil)
		topo.Listed = listed
		topo.LearnFromLog(log)
		obs := KernelLogObservations(log, topo, -1, nil)
		var gone *Observation
		for _, o := range obs {
			if o.Subject == "sdb" && o.Check == "kernel-log" {
				gone = o
			}
		}
		if !listed {
			// A log read on its own: nothing says the disk left.
			if gone != nil {
				t.Errorf("log alone: sdb reported gone: %v", factMap(gone))
			}
			continue
		}
		if gone == nil || gone.Get("klog_gone") != true || gone.Get("klog_device_failed") != true {
			t.Fatalf("empty /sys/block: no gone sdb with the disabled port: %v", obs)
		}
		if p, _ := obs[len(obs)-1].Get("klog_ports_disabled").([]string); len(p) != 0 {
			t.Errorf("ata3 is sdb's (SCSI host 2), not a port of its own: %q", p)
		}
	}
}
