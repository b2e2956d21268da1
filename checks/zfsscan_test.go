package checks

import (
	"testing"

	"github.com/diskdoctor/diskdoctor/probes/zfs"
)

// zpool's estimate in its three forms; beyond 30 days the scan is
// stalled, without one it is unknown.
func TestZFSScanStalled(t *testing.T) {
	for _, tt := range []struct {
		toGo    string
		min     any
		stalled any
	}{
		{"02:21:05", 141.08333333333334, false},
		{"123h32m", 7412.0, false},
		{"400 days 01:00:00", 576060.0, true},
		{"no estimated completion time", nil, nil},
	} {
		o := NewObservation("zfs", KindPool, "Data")
		setScanStalled(o, zfs.Scan{InProgress: true, ToGo: tt.toGo})
		if o.Get("zfs_scan_to_go_min") != tt.min || o.Get("zfs_scan_stalled") != tt.stalled {
			t.Errorf("%q: %v min, stalled %v; want %v, %v", tt.toGo, o.Get("zfs_scan_to_go_min"), o.Get("zfs_scan_stalled"), tt.min, tt.stalled)
		}
	}
}
