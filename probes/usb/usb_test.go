package usb

import (
	"testing"

	"github.com/diskdoctor/diskdoctor/probes/kernlog"
)

func TestDeviceOf(t *testing.T) {
	tests := []struct{ path, dir, iface string }{
		{"/sys/devices/pci0000:00/0000:00:14.0/usb2/2-1/2-1:1.0/host4/target4:0:0/4:0:0:0/block/sdc",
			"/sys/devices/pci0000:00/0000:00:14.0/usb2/2-1", "2-1:1.0"},
		// Behind a hub: the interface nearest the disk is the bridge's.
		{"/sys/devices/platform/12400000.usb/xhci-hcd.3.auto/usb4/4-1/4-1.1/4-1.1:1.0/host0/target0:0:0/0:0:0:0/block/sda",
			"/sys/devices/platform/12400000.usb/xhci-hcd.3.auto/usb4/4-1/4-1.1", "4-1.1:1.0"},
		{"/sys/devices/pci0000:00/0000:00:17.0/ata1/host0/target0:0:0/0:0:0:0/block/sda", "", ""},
		{"/sys/devices/pci0000:00/0000:00:1d.0/0000:03:00.0/nvme/nvme0/nvme0n1", "", ""},
		// An interface whose parent is not its device is not trusted.
		{"/sys/devices/x/3-1/2-1:1.0/host0/block/sda", "", ""},
	}
	for _, tt := range tests {
		dir, iface := DeviceOf(tt.path)
		if dir != tt.dir || iface != tt.iface {
			t.Errorf("DeviceOf(%s) = %q, %q; want %q, %q", tt.path, dir, iface, tt.dir, tt.iface)
		}
	}
}

// bos builds a BOS as USB 3.2 §9.6.2 lays it out: the 5-byte header and
// the capability descriptors after it.
func bos(caps ...[]byte) []byte {
	total := 5
	for _, c := range caps {
		total += len(c)
	}
	b := []byte{5, 0x0F, byte(total), byte(total >> 8), byte(len(caps))}
	for _, c := range caps {
		b = append(b, c...)
	}
	return b
}

var (
	usb2Ext  = []byte{7, 0x10, 0x02, 0x1e, 0xf4, 0x00, 0x00}
	ssCap    = []byte{10, 0x10, 0x03, 0x00, 0x0e, 0x00, 0x01, 0x0a, 0xff, 0x07}
	ssPlusCp = []byte{20, 0x10, 0x0a, 0x00, 0x01, 0x00, 0x00, 0x00, 0x00, 0x11, 0x00, 0x00, 0x30, 0x40, 0x0a, 0x00, 0xb0, 0x40, 0x0a, 0x00}
)

func TestParseBOS(t *testing.T) {
	tests := []struct {
		name         string
		b            []byte
		valid, ss, p bool
	}{
		{"USB 2.0 LPM device", bos(usb2Ext), true, false, false},
		{"SuperSpeed", bos(usb2Ext, ssCap), true, true, false},
		{"SuperSpeedPlus", bos(usb2Ext, ssCap, ssPlusCp), true, true, true},
		{"empty", nil, false, false, false},
		{"not a BOS", []byte{9, 2, 0x20, 0, 1}, false, false, false},
		{"truncated in the capability", bos(usb2Ext, ssCap)[:15], true, false, false},
		{"zero-length capability", append(bos(), 0, 0x10, 0x03), true, false, false},
		{"wTotalLength beyond the file", func() []byte { b := bos(ssCap); b[2] = 0xff; return b }(), true, true, false},
	}
	for _, tt := range tests {
		got := ParseBOS(tt.b)
		if got.Valid != tt.valid || got.SuperSpeed != tt.ss || got.SuperSpeedPlus != tt.p {
			t.Errorf("%s: %+v", tt.name, got)
		}
	}
	if got := ParseBOS(bos(ssCap)).Hex; got != "0a 10 03 00 0e 00 01 0a ff 07" {
		t.Errorf("hex %q", got)
	}
}

func FuzzParseBOS(f *testing.F) {
	f.Add(bos(usb2Ext, ssCap, ssPlusCp))
	f.Add([]byte{5, 0x0F, 0xff, 0xff, 9, 3, 0x10, 3})
	f.Fuzz(func(t *testing.T, b []byte) {
		got := ParseBOS(b)
		if got.SuperSpeed && len(got.Hex) == 0 {
			t.Fatal("SuperSpeed without its descriptor")
		}
	})
}

// Real kernel lines: raspberrypi/linux#3070 (UAS off for a JMS579),
// bb-qq/uas#3 (resets of a SuperSpeed device behind a hub),
// raspberrypi/linux#3404 (an xHCI controller dying under a UAS disk).
func TestScanLog(t *testing.T) {
	k := &kernlog.Log{Lines: kernlog.Parse([]byte(`[   67.911864] usb 2-1: new SuperSpeed Gen 1 USB device number 3 using xhci_hcd
[   67.945341] usb 2-1: UAS is blacklisted for this device, using usb-storage instead
[   67.946656] usb-storage 2-1:1.0: Quirks match for vid 152d pid 0578: 1800000
[526407.117006] usb 1-2: new high-speed USB device number 16 using xhci_hcd
[526312.900649] usb 2-1.2: reset SuperSpeed USB device number 25 using xhci_hcd
[526317.173829] usb 2-1.2: reset SuperSpeed USB device number 25 using xhci_hcd
[  809.987218] xhci_hcd 0000:01:00.0: WARNING: Host System Error
[  815.101521] xhci_hcd 0000:01:00.0: xHCI host controller not responding, assume dead
[  815.101661] xhci_hcd 0000:01:00.0: HC died; cleaning up
[  815.102216] sd 0:0:0:0: [sda] tag#0 uas_eh_abort_handler 0 uas-tag 1 inflight: CMD
[ 1220.952449] scsi 6:0:0:0: tag#0 uas_eh_abort_handler 0 uas-tag 1 inflight: CMD IN 
[ 1222.118326] scsi host6: uas_eh_device_reset_handler FAILED to get lock err -16
[  135.920389] xhci-hcd xhci-hcd.9.auto: HC died; cleaning up
`))}
	l := ScanLog(k)
	if e := l.Enumerated["2-1"]; len(e) != 1 || !e[0].SuperSpeed() || e[0].HCD != "xhci_hcd" {
		t.Errorf("2-1 enumerations %+v", e)
	}
	if e := l.Enumerated["1-2"]; len(e) != 1 || e[0].SuperSpeed() || e[0].Speed != "high-speed" {
		t.Errorf("1-2 enumerations %+v", e)
	}
	if _, ok := l.UASIgnored["2-1"]; !ok {
		t.Error("UAS ignored not seen")
	}
	if q := l.Quirks["2-1"]; !q.IgnoreUAS || q.Flags != 0x1800000 {
		t.Errorf("quirk %+v", q)
	}
	if n := len(l.Resets["2-1.2"]); n != 2 {
		t.Errorf("resets %d", n)
	}
	if n := len(l.HostDied["0000:01:00.0"]); n != 3 {
		t.Errorf("host died %d", n)
	}
	if n := len(l.HostDied["xhci-hcd.9.auto"]); n != 1 {
		t.Errorf("platform host died %d", n)
	}
	if len(l.Aborts["sda"]) != 1 || len(l.Aborts["6:0:0:0"]) != 1 || len(l.DeviceResets["host6"]) != 1 {
		t.Errorf("aborts %v, device resets %v", l.Aborts, l.DeviceResets)
	}
	if ScanLog(nil) == nil {
		t.Error("nil log")
	}
}
