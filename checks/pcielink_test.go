package checks

import (
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/diskdoctor/diskdoctor/machine"
)

// The pcie-link facts of the recorded machines with a degraded link: an
// NVMe drive behind a chipset port and an AHCI controller on a SATA disk.
func TestPCIeLinkFixtures(t *testing.T) {
	tests := []struct {
		root, dev string
		want      map[string]any
	}{
		{"../fixtures/pcie-ahci-x1-marvell9230", "sda", map[string]any{
			"pcie_address": "0000:05:00.0", "pcie_driver": "ahci", "pcie_cur_width": 1, "pcie_max_width": 2,
			"pcie_port": "0000:00:02.0", "pcie_port_gts": 8.0, "pcie_port_width": 8,
			"pcie_max_gbs": 1.0, "pcie_fraction": 0.5, "pcie_degraded": true}},
		{"../fixtures/nvme-link-degraded", "nvme0n1", map[string]any{
			"pcie_address": "0000:04:00.0", "pcie_port": "0000:03:06.0", "pcie_port_gts": 16.0, "pcie_port_width": 4,
			"pcie_fraction": 0.25, "pcie_degraded": true}},
	}
	for _, tt := range tests {
		t.Run(filepath.Base(tt.root), func(t *testing.T) {
			o, _ := recordedObservation(t, tt.root, tt.dev, pcieLink)
			for name, want := range tt.want {
				if got := o.Get(name); got != want {
					t.Errorf("%s = %#v, want %#v", name, got, want)
				}
			}
		})
	}
}

// pcieTree lays out a disk behind a PCI function behind a root port, the
// way the PCI core names them (drivers/pci/pci-sysfs.c: current_link_*,
// max_link_*), with each end's speeds and widths.
func pcieTree(t *testing.T, fnDriver, fnCur, fnMax, portMax string, fnCurW, fnMaxW, portMaxW string) string {
	t.Helper()
	root := t.TempDir()
	port := "sys/devices/pci0000:00/0000:00:1c.0"
	fn := port + "/0000:02:00.0"
	blk := fn + "/host0/target0:0:0/0:0:0:0/block/sda"
	write := func(p, s string) {
		t.Helper()
		if err := os.MkdirAll(filepath.Dir(filepath.Join(root, p)), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(root, p), []byte(s+"\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write(blk+"/dev", "8:0")
	write(blk+"/size", "1953525168")
	write(fn+"/current_link_speed", fnCur)
	write(fn+"/max_link_speed", fnMax)
	write(fn+"/current_link_width", fnCurW)
	write(fn+"/max_link_width", fnMaxW)
	write(port+"/current_link_speed", fnCur)
	write(port+"/current_link_width", fnCurW)
	if portMax != "" {
		write(port+"/max_link_speed", portMax)
		write(port+"/max_link_width", portMaxW)
	}
	write("sys/bus/pci/drivers/"+fnDriver+"/.keep", "")
	if err := os.Symlink("../../../../bus/pci/drivers/"+fnDriver, filepath.Join(root, fn, "driver")); err != nil {
		t.Fatal(err)
	}
	write("sys/block/.keep", "")
	if err := os.Symlink("../devices/pci0000:00/0000:00:1c.0/0000:02:00.0/host0/target0:0:0/0:0:0:0/block/sda", filepath.Join(root, "sys/block/sda")); err != nil {
		t.Fatal(err)
	}
	write("commands/dmesg.txt", "")
	write("commands/manifest.yaml", "- argv: [dmesg]\n  stdout: dmesg.txt")
	return root
}

// A card whose maximum is above its slot's trains to the slot's and is
// not degraded: an LSI SAS2008 HBA (PCIe 2.0 x8) in a slot wired x4, and
// a JMB585 SATA controller (8 GT/s x2, cyrozap/jmb58x-re) behind a
// Raspberry Pi 5's 5 GT/s x1 port. The same HBA at x4 in an x8 slot is
// degraded. No public capture holds both ends' sysfs files; the trees
// are built here.
func TestPCIeLinkSlotLimited(t *testing.T) {
	tests := []struct {
		name                                      string
		drv, cur, max, portMax, curW, maxW, portW string
		degraded                                  bool
		fraction                                  float64
	}{
		{"x8 HBA in a x4 slot", "mpt3sas", "5.0 GT/s PCIe", "5.0 GT/s PCIe", "8.0 GT/s PCIe", "4", "8", "4", false, 1},
		{"x8 HBA at x4 in a x8 slot", "mpt3sas", "5.0 GT/s PCIe", "5.0 GT/s PCIe", "8.0 GT/s PCIe", "4", "8", "8", true, 0.5},
		{"gen3 x2 controller on a gen2 x1 port", "ahci", "5.0 GT/s PCIe", "8.0 GT/s PCIe", "5.0 GT/s PCIe", "1", "2", "1", false, 1},
		{"gen3 x2 controller at gen2 on a gen3 x2 port", "ahci", "5.0 GT/s PCIe", "8.0 GT/s PCIe", "8.0 GT/s PCIe", "2", "2", "2", true, 0.508},
		{"no port capability: the function's own maximum", "xhci_hcd", "2.5 GT/s PCIe", "5.0 GT/s PCIe", "", "1", "1", "", true, 0.5},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			root := pcieTree(t, tt.drv, tt.cur, tt.max, tt.portMax, tt.curW, tt.maxW, tt.portW)
			o, _ := recordedObservation(t, root, "sda", pcieLink)
			if got := o.Get("pcie_degraded"); got != tt.degraded {
				t.Errorf("pcie_degraded = %#v, want %v (%v)", got, tt.degraded, o.Get("pcie_link"))
			}
			if got := o.Get("pcie_fraction"); got != tt.fraction {
				t.Errorf("pcie_fraction = %#v, want %v", got, tt.fraction)
			}
			if got := o.Get("pcie_driver"); got != tt.drv {
				t.Errorf("pcie_driver = %#v, want %q", got, tt.drv)
			}
		})
	}
}

// A controller whose link files read "Unknown" (an integrated function)
// gives no observation: nothing to judge.
func TestPCIeLinkUnknownNotJudged(t *testing.T) {
	root := pcieTree(t, "ahci", "Unknown", "Unknown", "", "0", "0", "")
	h, err := machine.Recorded(root)
	if err != nil {
		t.Fatal(err)
	}
	env := newEnv(h, Options{ProbeTimeout: 5 * time.Second})
	if obs := pcieLink(t.Context(), env); len(obs) != 0 {
		t.Errorf("got %d observations, want none", len(obs))
	}
}
