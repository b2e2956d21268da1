package checks

import (
	"testing"

	"github.com/diskdoctor/diskdoctor/probes/mount"
)

// A swap file lives on the filesystem of the longest mount point that
// prefixes its path; a sibling directory sharing a prefix is not it.
func TestMountHoldingSwapFile(t *testing.T) {
	mounts := []mount.Mount{{MountPoint: "/", DevNo: "8:2"}, {MountPoint: "/srv", DevNo: "8:17"}, {MountPoint: "/srv/data", DevNo: "8:33"}}
	for path, want := range map[string]string{"/swapfile": "8:2", "/srv/swap": "8:17", "/srv/data/swap": "8:33", "/srv/database/swap": "8:17"} {
		if mt, ok := mountHolding(path, mounts); !ok || mt.DevNo != want {
			t.Errorf("%s: %+v %v, want %s", path, mt, ok, want)
		}
	}
	if _, ok := mountHolding("/swapfile", nil); ok {
		t.Error("no mounts: found one")
	}
}
