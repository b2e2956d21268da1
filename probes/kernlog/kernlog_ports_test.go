package kernlog

import (
	"testing"
)

// A device libata disabled that no disk is attributed to is found with its
// model and the port's messages before it; the lines are from the Ubuntu
// Forums thread "Boot Problem, dmesg Analysis Enclosed" (2008-04-27,
// Linux 2.6.24), shortened to the ata4 lines.
func TestDisabledDevicesUnattributed(t *testing.T) {
	log := `[   45.590759] ata4.00: ATA-6: Config  Disk, RGL10364, max UDMA/133
[   45.591133] ata4.00: configured for PIO4
[   75.602857] ata4.00: exception Emask 0x0 SAct 0x0 SErr 0x0 action 0x2 frozen
[   75.602867] ata4.00: cmd c4/00:08:00:00:00/00:00:00:00:00/e0 tag 0 pio 4096 in
[   75.602868]          res 40/00:00:00:00:00/00:00:00:00:00/00 Emask 0x4 (timeout)
[   75.602880] ata4: soft resetting link
[   75.941619] ata4.00: failed to IDENTIFY (INIT_DEV_PARAMS failed, err_mask=0x80)
[   75.941623] ata4.00: revalidation failed (errno=-5)
[   81.270744] ata4.00: failed to IDENTIFY (INIT_DEV_PARAMS failed, err_mask=0x80)
[   81.270750] ata4.00: revalidation failed (errno=-5)
[  146.158363] ata4: reset failed, giving up
[  146.158366] ata4.00: disabled
`
	k := &Log{Lines: Parse([]byte(log))}
	topo := &Topology{}
	topo.init()
	topo.Listed = true
	topo.ATA["ata3"] = "sda"
	got := DisabledDevices(k, Classify(k, topo, -1), topo)
	if len(got) != 1 {
		t.Fatalf("got %+v, want one device", got)
	}
	d := got[0]
	if d.Device != "ata4.00" || d.Port != "ata4" || d.Model != "Config  Disk" || d.Line.Num != 12 || d.Recovered != nil {
		t.Errorf("got %+v", d)
	}
	// The configured line before the disabled one is no recovery; two
	// failed IDENTIFY and two revalidations are two failed commands.
	if d.Before[CommandFailed] != 2 || d.Before[Timeout] != 1 || d.Before[LinkReset] != 1 || d.Before[ATAException] != 1 {
		t.Errorf("before %v", d.Before)
	}
	// The same port with a disk attributed is the disk's, not a port's.
	topo.ATA["ata4"] = "sdb"
	topo.Disks["sdb"] = true
	if got := DisabledDevices(k, Classify(k, topo, -1), topo); len(got) != 0 {
		t.Errorf("attributed port reported: %+v", got)
	}
}

// A device configured again after it was disabled came back; an optical
// drive (ATAPI) is not a disk. Lines from the linux-block post about a
// ThinkPad W530's DVD drive (Kubuntu 21.10, Linux 5.13): the drive was
// disabled after resume and configured again when re-inserted.
func TestDisabledDevicesRecoveredAndATAPI(t *testing.T) {
	lines := "[  843.022783] ata2.00: disabled\n" +
		"[  843.023874] ata2.00: detaching (SCSI 1:0:0:0)\n" +
		"[   99.834493] ata2: SATA link up 1.5 Gbps (SStatus 113 SControl 300)\n"
	atapi := "[   99.837949] ata2.00: ATAPI: PLDS DVD-RW DS8A8SH, KU54, max UDMA/100\n"
	configured := "[   99.841831] ata2.00: configured for UDMA/100\n"
	for _, tt := range []struct {
		name, log string
		want      int
		recovered bool
	}{
		{"disabled", lines, 1, false},
		{"configured again", lines + configured, 1, true},
		{"optical drive", lines + atapi + configured, 0, false},
	} {
		t.Run(tt.name, func(t *testing.T) {
			k := &Log{Lines: Parse([]byte(tt.log))}
			topo := &Topology{Listed: true}
			topo.LearnFromLog(k)
			got := DisabledDevices(k, Classify(k, topo, -1), topo)
			if len(got) != tt.want {
				t.Fatalf("got %+v, want %d", got, tt.want)
			}
			if tt.want == 1 && (got[0].Recovered != nil) != tt.recovered {
				t.Errorf("recovered %v, want %v", got[0].Recovered, tt.recovered)
			}
		})
	}
}

// "No Caching mode page found" (and 2.6's "present") marks the disk; a
// later "Write cache:" line for it takes the mark back. Lines from
// raspberrypi/linux issues #2714 (4.14) and #273 (3.x), and the
// hpe-microserver-writethrough fixture's sde.
func TestNoCachePageLines(t *testing.T) {
	log := `[  286.054229] sd 0:0:0:0: [sda] No Caching mode page found
[  286.054240] sd 0:0:0:0: [sda] Assuming drive cache: write through
[ 1215.903952] sd 2:0:0:0: [sdb] No Caching mode page present
[ 1215.951056] sd 2:0:0:0: [sdb] Assuming drive cache: write through
[    3.644946] sd 6:0:0:0: [sde] Write cache: enabled, read cache: enabled, doesn't support DPO or FUA
`
	got := (&Log{Lines: Parse([]byte(log))}).NoCachePageLines()
	if len(got) != 2 || got["sda"].Num != 1 || got["sdb"].Num != 3 {
		t.Errorf("got %v", got)
	}
	// sdb's line of the 2008 Ubuntu Forums boot log above: a disk that
	// answered with the page.
	later := log + "[   45.683863] sd 3:0:0:0: [sdb] Write cache: disabled, read cache: enabled, doesn't support DPO or FUA\n"
	if got := (&Log{Lines: Parse([]byte(later))}).NoCachePageLines(); len(got) != 1 {
		t.Errorf("a later Write cache line did not take sdb back: %v", got)
	}
	var nilLog *Log
	if got := nilLog.NoCachePageLines(); len(got) != 0 {
		t.Errorf("nil log: %v", got)
	}
}
