package block

import (
	"context"
	"path"
	"path/filepath"
	"reflect"
	"sort"
	"testing"

	"github.com/diskdoctor/diskdoctor/machine"
	"github.com/diskdoctor/diskdoctor/probes/pcie"
)

// The inventory takes two facts from a disk's resolved path instead of
// another lookup: its SCSI address (instead of listing device/scsi_disk)
// and its NVMe controller's PCI function (instead of resolving
// /sys/class/nvme/nvmeN/device, for the kernel log's topology and the
// PCIe link). On every recorded machine the shortcut
// and the lookup agree where the lookup answers, and each shortcut is
// taken somewhere.
func TestInventoryShortcutsAgreeWithTheLookups(t *testing.T) {
	roots, _ := filepath.Glob("../../fixtures/*/sys")
	more, _ := filepath.Glob("../../fixtures/corpus/*/sys")
	roots = append(roots, more...)
	if len(roots) == 0 {
		t.Fatal("no recorded machines under ../fixtures")
	}
	ctx := context.Background()
	var scsiTaken, nvmeTaken int
	for _, sys := range roots {
		root := path.Dir(sys)
		h, err := machine.Recorded(root)
		if err != nil {
			t.Fatalf("%s: %v", root, err)
		}
		devs, err := Read(ctx, h)
		if err != nil {
			t.Fatalf("%s: %v", root, err)
		}
		for _, d := range devs {
			listed := ""
			if ents, err := h.ReadDir(ctx, "/sys/block/"+d.Name+"/device/scsi_disk"); err == nil && len(ents) > 0 {
				listed = ents[0].Name()
			}
			// A recording built from a capture without scsi_disk/ (a
			// guest's lsblk and udev records) has no lookup to agree with.
			if listed != "" && d.SCSIAddr != listed {
				t.Errorf("%s %s: SCSI address %q, device/scsi_disk lists %q", root, d.Name, d.SCSIAddr, listed)
			}
			if _, ok := scsiDiskAddr(d); ok {
				scsiTaken++
			}
		}
		got := NVMePCIAddresses(h, devs)
		resolved := map[string]string{}
		var ctrls []string
		for _, d := range devs {
			ctrls = append(ctrls, d.Controllers...)
		}
		sort.Strings(ctrls)
		for _, c := range ctrls {
			if dir, err := h.Resolve("/sys/class/nvme/" + c + "/device"); err == nil {
				resolved[c] = path.Base(dir)
			}
		}
		for c, fn := range resolved {
			if got[c] != fn {
				t.Errorf("%s %s: PCI function %q, its device link resolves to %q", root, c, got[c], fn)
			}
		}
		for c, fn := range got {
			if resolved[c] == "" {
				// A recording without /sys/class/nvme: the namespace's
				// own path still names the function.
				t.Logf("%s %s: PCI function %s from the namespace's path (no /sys/class/nvme recorded)", root, c, fn)
			}
		}
		for _, d := range devs {
			for _, c := range d.Controllers {
				fn, ok := d.ControllerFunction(c)
				if !ok {
					continue
				}
				nvmeTaken++
				// The PCIe link read from the function the path names is
				// the one read through the controller's link.
				viaPath, err1 := pcie.ReadLink(ctx, h, fn)
				viaLink, err2 := pcie.ReadNVMeLink(ctx, h, c)
				if err2 == nil && (err1 != nil || !reflect.DeepEqual(viaPath, viaLink)) {
					t.Errorf("%s %s: link from the path %+v (%v), through the controller %+v", root, c, viaPath, err1, viaLink)
				}
			}
		}
	}
	if scsiTaken == 0 || nvmeTaken == 0 {
		t.Errorf("shortcuts taken: SCSI address %d times, NVMe PCI function %d times; the fixtures should exercise both", scsiTaken, nvmeTaken)
	}
	t.Logf("SCSI address from the path on %d disks, NVMe PCI function on %d namespaces", scsiTaken, nvmeTaken)
}
