package checks

import (
	"os"
	"path/filepath"
	"testing"
)

// The usb-link facts of the recorded USB machines.
func TestUSBLinkFixtures(t *testing.T) {
	tests := []struct {
		root, dev string
		want      map[string]any
	}{
		{"../fixtures/usb3-uas-bridge-on-usb2-link", "sda", map[string]any{
			"usb_device": "1-1", "usb_speed_mbps": 480.0, "usb_driver": "uas", "usb_superspeed_capable": true,
			"usb_superspeed_why": "driven by uas", "usb_enumerated": nil, "usb_resets": nil, "usb_port_superspeed": nil}},
		{"../fixtures/usb-storage-uas-ignored-jms579", "sda", map[string]any{
			"usb_device": "2-1", "usb_id": "152d:0578", "usb_speed_mbps": 5000.0, "usb_driver": "usb-storage",
			"usb_enumerated": "SuperSpeed Gen 1", "usb_uas_disabled": true, "usb_resets": 0, "usb_aborts": 0, "usb_host_died": false}},
		{"../fixtures/usb-uas-aborts-asm1053e", "sda", map[string]any{
			"usb_device": "2-1", "usb_speed_mbps": nil, "usb_driver": "uas", "usb_aborts": 8, "usb_resets": 0,
			"usb_uas_disabled": false, "usb_reset_summary": "8 UAS command aborts or device resets"}},
		{"../fixtures/usb-uas-superspeed-jm567", "sda", map[string]any{
			"usb_device": "4-1.1", "usb_id": "152d:3562", "usb_speed_mbps": 5000.0, "usb_driver": "uas",
			"usb_enumerated": "SuperSpeed", "usb_aborts": 0, "usb_resets": 0, "usb_host_died": false}},
	}
	for _, tt := range tests {
		t.Run(filepath.Base(tt.root), func(t *testing.T) {
			o, _ := recordedObservation(t, tt.root, tt.dev, usbLink)
			for name, want := range tt.want {
				if got := o.Get(name); got != want {
					t.Errorf("%s = %#v, want %#v", name, got, want)
				}
			}
		})
	}
}

// A USB 3 bridge at 480 Mbit/s on the high-speed half of a USB 3 port:
// the BOS descriptor says SuperSpeed, the port's peer is on the
// SuperSpeed root hub, the log shows the high-speed enumeration. No
// public capture holds these sysfs files together; the tree is built
// here the way usbcore lays it out (drivers/usb/core/port.c, peer links).
func TestUSBLinkPeerAndBOS(t *testing.T) {
	root := t.TempDir()
	ctl := "sys/devices/pci0000:00/0000:00:14.0"
	dev := ctl + "/usb1/1-2"
	blk := dev + "/1-2:1.0/host6/target6:0:0/6:0:0:0/block/sdb"
	write := func(p, s string) {
		t.Helper()
		if err := os.MkdirAll(filepath.Dir(filepath.Join(root, p)), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(root, p), []byte(s), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	link := func(p, target string) {
		t.Helper()
		if err := os.MkdirAll(filepath.Dir(filepath.Join(root, p)), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.Symlink(target, filepath.Join(root, p)); err != nil {
			t.Fatal(err)
		}
	}
	write(blk+"/dev", "8:16\n")
	write(blk+"/size", "1953525168\n")
	write(dev+"/speed", "480\n")
	write(dev+"/version", " 2.10\n")
	write(dev+"/idVendor", "174c\n")
	write(dev+"/idProduct", "55aa\n")
	// USB 2.0 Extension and SuperSpeed USB Device Capability, USB 3.2 §9.6.2.
	write(dev+"/bos_descriptors", string([]byte{5, 0x0F, 22, 0, 2, 7, 0x10, 0x02, 0x1e, 0xf4, 0, 0, 10, 0x10, 0x03, 0, 0x0e, 0, 1, 0x0a, 0xff, 0x07}))
	write(ctl+"/usb1/1-0:1.0/usb1-port2/.keep", "")
	write(ctl+"/usb2/2-0:1.0/usb2-port2/.keep", "")
	write(ctl+"/usb2/speed", "5000\n")
	link(dev+"/port", "../1-0:1.0/usb1-port2")
	link(ctl+"/usb1/1-0:1.0/usb1-port2/peer", "../../../usb2/2-0:1.0/usb2-port2")
	link(dev+"/1-2:1.0/driver", "../../../../../../bus/usb/drivers/usb-storage")
	write("sys/bus/usb/drivers/usb-storage/.keep", "")
	link("sys/block/sdb", "../devices/pci0000:00/0000:00:14.0/usb1/1-2/1-2:1.0/host6/target6:0:0/6:0:0:0/block/sdb")
	write("commands/dmesg.txt", "[    3.100000] usb 1-2: new high-speed USB device number 4 using xhci_hcd\n")
	write("commands/manifest.yaml", "- argv: [dmesg]\n  stdout: dmesg.txt\n")

	o, _ := recordedObservation(t, root, "sdb", usbLink)
	for name, want := range map[string]any{
		"usb_speed_mbps": 480.0, "usb_version": "2.10", "usb_bos_superspeed": true, "usb_bos_superspeed_plus": false,
		"usb_superspeed_capable": true, "usb_superspeed_why": "SuperSpeed USB Device Capability in its BOS descriptor",
		"usb_port": "usb1-port2", "usb_port_peer": "usb2-port2", "usb_port_superspeed": true,
		"usb_enumerated": "high-speed", "usb_driver": "usb-storage", "usb_uas_disabled": false,
	} {
		if got := o.Get(name); got != want {
			t.Errorf("%s = %#v, want %#v", name, got, want)
		}
	}
}

func TestQuirkParam(t *testing.T) {
	cmd := "console=tty1 usb-storage.quirks=0bc2:2322:,152d:0578:u root=/dev/sda2"
	if got := quirkParam(cmd, "152d", "0578"); got != "usb-storage.quirks=152d:0578:u" {
		t.Errorf("got %q", got)
	}
	if got := quirkParam(cmd, "0bc2", "2322"); got != "" {
		t.Errorf("an entry without u: %q", got)
	}
}
