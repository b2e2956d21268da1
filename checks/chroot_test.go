package checks_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/diskdoctor/diskdoctor/checks"
	"github.com/diskdoctor/diskdoctor/internal/testutil"
	"github.com/diskdoctor/diskdoctor/machine"
)

// A live machine whose mount table has no / (a chroot, a container whose
// root is a directory: the kernel lists no mount the root does not reach)
// does not call a disk without a visible use unused: in_use is unknown,
// and a skipped entry says why. With / in the table the disk is unused as
// before.
func TestRootNotAMountPointLeavesUseUnknown(t *testing.T) {
	for _, tt := range []struct {
		name, mountinfo string
		want            any
	}{
		{"chroot", "22 1 0:21 / /proc rw,relatime - proc proc rw\n21 1 0:20 / /sys rw,relatime - sysfs sysfs rw\n", nil},
		{"root mounted elsewhere", "20 1 8:1 / / rw,relatime - ext4 /dev/sda1 rw\n22 20 0:21 / /proc rw,relatime - proc proc rw\n", false},
	} {
		t.Run(tt.name, func(t *testing.T) {
			root := t.TempDir()
			disk := "sys/devices/pci0000:00/0000:00:05.0/virtio2/block/vda"
			testutil.WriteFile(t, filepath.Join(root, disk, "dev"), "254:0\n")
			testutil.WriteFile(t, filepath.Join(root, disk, "size"), "2097152\n")
			testutil.WriteFile(t, filepath.Join(root, disk, "queue/rotational"), "0\n")
			testutil.Must(t, os.MkdirAll(filepath.Join(root, "sys/block"), 0o755))
			testutil.Must(t, os.Symlink("../devices/pci0000:00/0000:00:05.0/virtio2/block/vda", filepath.Join(root, "sys/block/vda")))
			testutil.WriteFile(t, filepath.Join(root, "proc/1/mountinfo"), tt.mountinfo)
			h, err := machine.HostRoot(root)
			testutil.Must(t, err)
			if !h.IsLive() {
				t.Fatal("a host root is live")
			}
			res, err := checks.Run(t.Context(), h, checks.Options{ProbeTimeout: time.Second})
			testutil.Must(t, err)
			found := false
			for _, o := range res.Observations {
				if o.Check == "inventory" && o.Subject == "vda" {
					found = true
					if got := o.Get("in_use"); got != tt.want {
						t.Errorf("in_use %v, want %v", got, tt.want)
					}
				}
			}
			if !found {
				t.Fatal("no inventory of vda")
			}
			said := false
			for _, s := range res.Skipped {
				if s.Check == "inventory" && strings.Contains(s.Reason, "/ is not in the mount table") && strings.Join(s.Subjects, ",") == "vda" {
					said = true
				}
			}
			if said != (tt.want == nil) {
				t.Errorf("skipped entry for the unseen root: %v, want %v (%+v)", said, tt.want == nil, res.Skipped)
			}
		})
	}
}
