package ahci

import (
	"testing"

	"github.com/diskdoctor/diskdoctor/probes/kernlog"
)

// The remap lines of pentoo/pentoo-installer#65 (a Dell Latitude 7410 in
// RST mode), a RAID-mode line built in the test in libahci's format, and
// the healthy-workstation fixture's SATA-mode line at another address.
func TestScan(t *testing.T) {
	k := &kernlog.Log{Lines: kernlog.Parse([]byte(`[    0.746196] ahci 0000:00:17.0: Found 1 remapped NVMe devices.
[    0.746740] ahci 0000:00:17.0: Switch your BIOS from RAID to AHCI mode to use them.
[    0.750000] ahci 0000:00:17.0: AHCI 0001.0301 32 slots 1 ports 6 Gbps 0x1 impl RAID mode
[    1.023271] ahci 0000:00:1f.2: AHCI 0001.0301 32 slots 4 ports 6 Gbps 0xf impl SATA mode
`))}
	cs := Scan(k)
	if len(cs) != 2 {
		t.Fatalf("controllers %+v", cs)
	}
	if c := cs[0]; c.Address != "0000:00:17.0" || c.Remapped != 1 || c.Mode != "RAID" || len(c.Lines) != 2 {
		t.Errorf("RST controller %+v", c)
	}
	if c := cs[1]; c.Address != "0000:00:1f.2" || c.Remapped != -1 || c.Mode != "SATA" || len(c.Lines) != 0 {
		t.Errorf("SATA controller %+v", c)
	}
	if Scan(nil) != nil {
		t.Error("nil log")
	}
}
