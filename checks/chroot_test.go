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

// A machine whose own mount table has no / while init's has (a chroot, or
// a container whose root is a directory: the kernel lists no mount the
// reader's root does not reach) does not call a disk without a visible use
// unused: in_use is unknown, and a skipped entry says why. Recorded as the
// snapshot records it (/proc/self a link to the doctor's pid), so that a
// replay says what the live run said. Where both tables lack / (a partial
// recording) or the doctor's has it, the disk is unused as before.
func TestRootNotAMountPointLeavesUseUnknown(t *testing.T) {
	const (
		rootMount = "20 1 8:1 / / rw,relatime - ext4 /dev/sda1 rw\n"
		procSys   = "22 1 0:21 / /proc rw,relatime - proc proc rw\n21 1 0:20 / /sys rw,relatime - sysfs sysfs rw\n"
	)
	for _, tt := range []struct {
		name, self, init string
		want             any
	}{
		{"chroot", procSys, rootMount + procSys, nil},
		{"partial recording", procSys, procSys, false},
		{"root mounted", rootMount + procSys, rootMount + procSys, false},
	} {
		t.Run(tt.name, func(t *testing.T) {
			root := t.TempDir()
			disk := "sys/devices/pci0000:00/0000:00:05.0/virtio2/block/vda"
			testutil.WriteFile(t, filepath.Join(root, disk, "dev"), "254:0\n")
			testutil.WriteFile(t, filepath.Join(root, disk, "size"), "2097152\n")
			testutil.WriteFile(t, filepath.Join(root, disk, "queue/rotational"), "0\n")
			testutil.Must(t, os.MkdirAll(filepath.Join(root, "sys/block"), 0o755))
			testutil.Must(t, os.Symlink("../devices/pci0000:00/0000:00:05.0/virtio2/block/vda", filepath.Join(root, "sys/block/vda")))
			testutil.WriteFile(t, filepath.Join(root, "proc/4410/mountinfo"), tt.self)
			testutil.WriteFile(t, filepath.Join(root, "proc/1/mountinfo"), tt.init)
			testutil.Must(t, os.Symlink("4410", filepath.Join(root, "proc/self")))
			h, err := machine.Recorded(root)
			testutil.Must(t, err)
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
				if s.Check == "inventory" && strings.Contains(s.Reason, "not in the doctor's (/proc/self/mountinfo)") && strings.Join(s.Subjects, ",") == "vda" {
					said = true
				}
			}
			if said != (tt.want == nil) {
				t.Errorf("skipped entry for the unseen root: %v, want %v (%+v)", said, tt.want == nil, res.Skipped)
			}
		})
	}
}
