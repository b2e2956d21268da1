package block

import (
	"reflect"
	"strings"
	"testing"

	"github.com/diskdoctor/diskdoctor/machine"
)

// TestMultipathPaths: the disks a multipath map holds are its paths (the
// map's UUID from its udev record, or from dm/uuid without one), the first
// in name order the drive's; an LVM volume's disk, and one below a dm
// device whose UUID is unknown, are no path.
func TestMultipathPaths(t *testing.T) {
	root, write, _ := scratchRoot(t)
	disk := func(name, devno, holder string) {
		write("sys/block/"+name+"/dev", devno+"\n")
		if holder != "" {
			write("sys/block/"+name+"/holders/"+holder, "")
		}
	}
	// sdb and sdaa: two paths of mpatha (dm-0, udev record); sdc below
	// an LVM volume (dm-1); sdd a path of dm-2, recorded without udev; sde
	// below dm-3, whose UUID is not recorded.
	disk("sdaa", "65:160", "dm-0")
	disk("sdb", "8:16", "dm-0")
	disk("sdc", "8:32", "dm-1")
	disk("sdd", "8:48", "dm-2")
	disk("sde", "8:64", "dm-3")
	for name, devno := range map[string]string{"dm-0": "253:0", "dm-1": "253:1", "dm-2": "253:2", "dm-3": "253:3"} {
		write("sys/block/"+name+"/dev", devno+"\n")
	}
	write("run/udev/data/b253:0", "E:DM_NAME=mpatha\nE:DM_UUID=mpath-35000c500e2c40000\n")
	write("run/udev/data/b253:1", "E:DM_NAME=data-srv\nE:DM_UUID=LVM-Sy02n0000\n")
	write("sys/block/dm-2/dm/uuid", "mpath-35000c500e2c40001\n")
	write("sys/block/dm-2/dm/name", "mpathb\n")
	got := map[string]*Multipath{}
	for _, d := range readRoot(t, root) {
		got[d.Name] = d.Multipath
	}
	a := &Multipath{Map: "dm-0", Name: "mpatha", Paths: []string{"sdb", "sdaa"}, UUID: "mpath-35000c500e2c40000", UUIDSource: "/run/udev/data/b253:0"}
	b := &Multipath{Map: "dm-2", Name: "mpathb", Paths: []string{"sdd"}, UUID: "mpath-35000c500e2c40001", UUIDSource: "/sys/block/dm-2/dm/uuid"}
	for name, want := range map[string]*Multipath{"sdb": a, "sdaa": a, "sdd": b, "sdc": nil, "sde": nil, "dm-0": nil} {
		if !reflect.DeepEqual(got[name], want) {
			t.Errorf("%s: multipath %+v, want %+v", name, got[name], want)
		}
	}
	if p := got["sdaa"].Primary(); p != "sdb" {
		t.Errorf("the drive of mpatha is read through %q, want sdb (the first path in name order)", p)
	}
}

// An NVMe native multipath head sits under its subsystem, with no driver
// above it: its drivers are its controller's path's, as a namespace under
// its controller has (the r630 fixture: nvme on the PCI function, then
// the root port's pcieport).
func TestNVMeMultipathHeadDrivers(t *testing.T) {
	devs := readRoot(t, r630)
	for _, name := range []string{"nvme0n1", "nvme6n1"} {
		d := deviceNamed(t, devs, name)
		if got := strings.Join(d.Drivers, ","); got != "nvme,pcieport" {
			t.Errorf("%s (%s): drivers %q, want nvme,pcieport", d.Name, d.SysPath, got)
		}
	}
}

// r630 is the recording of a machine with NVMe native multipath.
const r630 = "../../fixtures/r630-optane-schedutil"

func deviceNamed(t *testing.T, devs []*Device, name string) *Device {
	t.Helper()
	for _, d := range devs {
		if d.Name == name {
			return d
		}
	}
	t.Fatalf("%s not in the inventory", name)
	return nil
}

// An NVMe per-path disk no one named is read by name, path and
// controller only; one named (--device) is read whole.
func TestReadPathsNamed(t *testing.T) {
	devs := readRoot(t, r630)
	p := deviceNamed(t, devs, "nvme1c1n1")
	if !p.PathOnly || !p.NVMePath || p.Transport != "nvme" || strings.Join(p.Controllers, ",") != "nvme1" || p.DevNo != "" || !strings.HasSuffix(p.SysPath, "/nvme/nvme1/nvme1c1n1") {
		t.Errorf("unnamed path: %+v, want path-only, NVMe path, controller nvme1, resolved under it, no device number read", p)
	}
	if head := deviceNamed(t, devs, "nvme1n1"); head.PathOnly || head.DevNo == "" {
		t.Errorf("head nvme1n1: %+v, want read whole", head)
	}
	h, err := machine.Recorded(r630)
	if err != nil {
		t.Fatal(err)
	}
	devs, err = ReadPathsNamed(t.Context(), h, []string{"/dev/nvme1c1n1"})
	if err != nil {
		t.Fatal(err)
	}
	if p := deviceNamed(t, devs, "nvme1c1n1"); p.PathOnly || !p.NVMePath || p.DevNo == "" || p.SizeBytes == nil {
		t.Errorf("named path: %+v, want read whole", p)
	}
	if p := deviceNamed(t, devs, "nvme0c0n1"); !p.PathOnly {
		t.Errorf("nvme0c0n1, not named: read whole")
	}
}
