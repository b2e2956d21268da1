package kernlog

import "testing"

// The forms libata's configure line takes (drivers/ata/libata-core.c
// ata_dev_config_ncq), with later messages about the same device.
func TestNCQLines(t *testing.T) {
	log := &Log{Lines: Parse([]byte(`[    4.024357] ata1.00: 156301488 sectors, multi 16: LBA48 NCQ (depth 0/32)
[    1.338743] ata2.00: 1953525168 sectors, multi 1: LBA48 NCQ (depth 32), AA
[    1.1] ata3.00: 976773168 sectors, multi 16: LBA48 NCQ (depth 31/32), AA
[    1.2] ata4.00: FORCE: horkage modified (noncq)
[    1.3] ata4.00: 61865984 sectors, multi 1: LBA48 NCQ (not used)
[    1.4] ata5.00: 234441648 sectors, multi 16: LBA48
[  900.1] ata3.00: NCQ disabled due to excessive errors
[    1.5] ata6: SATA max UDMA/133 cmd 0x1f0 ctl 0x3f6 bmdma 0xf000 irq 14
[    1.6] ata7: PATA max UDMA/100 cmd 0x170 ctl 0x376 bmdma 0xf008 irq 15
`))}
	n := log.NCQLines()
	tests := []struct {
		dev                  string
		host, drive          int
		notUsed, forced, dis bool
		off                  bool
	}{
		{"ata1.00", 0, 32, false, false, false, true},
		{"ata2.00", 32, 32, false, false, false, false},
		{"ata3.00", 31, 32, false, false, true, true},
		{"ata4.00", 0, 0, true, true, false, true},
	}
	for _, tt := range tests {
		got, ok := n[tt.dev]
		if !ok || !got.Described {
			t.Fatalf("%s: %+v", tt.dev, got)
		}
		if got.HostDepth != tt.host || got.DriveDepth != tt.drive || got.NotUsed != tt.notUsed ||
			(got.Forced != nil) != tt.forced || (got.Disabled != nil) != tt.dis || got.Off() != tt.off {
			t.Errorf("%s: %+v off=%v", tt.dev, got, got.Off())
		}
	}
	if _, ok := n["ata5.00"]; ok {
		t.Errorf("a drive without NCQ is listed: %+v", n["ata5.00"])
	}
	k := log.PortKinds()
	if !k["ata6"].SATA || k["ata7"].SATA || k["ata7"].Line.Num != 9 {
		t.Errorf("port kinds %+v", k)
	}
}

func FuzzNCQLines(f *testing.F) {
	f.Add([]byte("[ 1.0] ata1.00: 1 sectors, multi 16: LBA48 NCQ (depth 99999/32)\nata1: SATA max \nata2.00: NCQ disabled due to excessive errors\n"))
	f.Fuzz(func(t *testing.T, b []byte) {
		k := &Log{Lines: Parse(b)}
		for _, n := range k.NCQLines() {
			_ = n.Off()
		}
		_ = k.PortKinds()
	})
}
