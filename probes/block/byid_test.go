package block

import (
	"context"
	"os"
	"path/filepath"
	"reflect"
	"testing"

	"github.com/diskdoctor/diskdoctor/internal/testutil"
	"github.com/diskdoctor/diskdoctor/machine"
)

// TestByIDLinks: a device's by-id links are its udev record's; without a
// record, those of /dev/disk/by-id that name it; a link two records
// claim stays with the device it names.
func TestByIDLinks(t *testing.T) {
	root, write, link := scratchRoot(t)
	for name, devno := range map[string]string{"sda": "8:0", "sdb": "8:16", "sdc": "8:32", "dm-0": "253:0", "loop0": "7:0"} {
		write("sys/block/"+name+"/dev", devno+"\n")
	}
	// sda and sdb: two paths of one drive; dm-0, their multipath map,
	// wins the shared links (link priority 50).
	write("run/udev/data/b8:0", "S:disk/by-id/scsi-35000c500e2c40000\nS:disk/by-id/wwn-0x5000c500e2c40000\nS:disk/by-path/pci-0000:01:00.0-sas-phy0-lun-0\nE:DM_MULTIPATH_DEVICE_PATH=1\n")
	write("run/udev/data/b8:16", "S:disk/by-id/scsi-35000c500e2c40000\nS:disk/by-id/wwn-0x5000c500e2c40000\nE:DM_MULTIPATH_DEVICE_PATH=1\n")
	write("run/udev/data/b253:0", "S:disk/by-id/dm-name-mpatha\nS:disk/by-id/scsi-35000c500e2c40000\nS:disk/by-id/wwn-0x5000c500e2c40000\nL:50\n")
	// loop0: a record that lists no link, though one names it.
	write("run/udev/data/b7:0", "E:ID_FS_TYPE=squashfs\n")
	link("dev/disk/by-id/scsi-35000c500e2c40000", "../../dm-0")
	link("dev/disk/by-id/wwn-0x5000c500e2c40000", "../../dm-0")
	link("dev/disk/by-id/dm-name-mpatha", "../../dm-0")
	link("dev/disk/by-id/ata-Planted_X", "../../loop0")
	// sdc: no record at all.
	link("dev/disk/by-id/ata-WDC_WD40EFRX_WD-1", "../../sdc")
	devs := readRoot(t, root)
	got := map[string][]string{}
	for _, d := range devs {
		got[d.Name] = d.ByID
	}
	want := map[string][]string{
		"dm-0":  {"/dev/disk/by-id/dm-name-mpatha", "/dev/disk/by-id/scsi-35000c500e2c40000", "/dev/disk/by-id/wwn-0x5000c500e2c40000"},
		"sda":   nil,
		"sdb":   nil,
		"sdc":   {"/dev/disk/by-id/ata-WDC_WD40EFRX_WD-1"},
		"loop0": nil,
	}
	for name, w := range want {
		if !reflect.DeepEqual(got[name], w) && (len(got[name]) != 0 || len(w) != 0) {
			t.Errorf("%s: by-id %q, want %q", name, got[name], w)
		}
	}
}

// scratchRoot is an empty recorded root, and writers of its files and
// links (paths relative to it).
func scratchRoot(t *testing.T) (root string, write, link func(p, s string)) {
	root = t.TempDir()
	write = func(p, s string) {
		testutil.Must(t, os.MkdirAll(filepath.Dir(filepath.Join(root, p)), 0o755))
		testutil.Must(t, os.WriteFile(filepath.Join(root, p), []byte(s), 0o644))
	}
	link = func(p, target string) {
		testutil.Must(t, os.MkdirAll(filepath.Dir(filepath.Join(root, p)), 0o755))
		testutil.Must(t, os.Symlink(target, filepath.Join(root, p)))
	}
	return root, write, link
}

// readRoot is the inventory of the recorded root.
func readRoot(t *testing.T, root string) []*Device {
	t.Helper()
	h, err := machine.Recorded(root)
	if err != nil {
		t.Fatal(err)
	}
	devs, err := Read(context.Background(), h)
	if err != nil {
		t.Fatal(err)
	}
	return devs
}
