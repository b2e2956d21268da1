package nvmehmb

import (
	"testing"

	"github.com/diskdoctor/diskdoctor/probes/kernlog"
)

// QubesOS issue 9719's boot lines (a NovaCustom NV54: nvme1, a DRAM-less
// Goodram PX770, fails to get its buffer, nvme0 logs none), a resume
// that got it, and the limit line in the driver's format.
func TestScan(t *testing.T) {
	got := Scan(&kernlog.Log{Lines: kernlog.Parse([]byte(`[    4.618617] nvme nvme0: pci function 0000:01:00.0
[    4.621010] nvme nvme1: pci function 0000:02:00.0
[    4.641186] nvme nvme1: failed to allocate host memory buffer.
[    4.716788] nvme nvme1: 16/0/0 default/read/poll queues
[    5.100000] nvme nvme2: allocated 64 MiB host memory buffer.
[    5.200000] nvme nvme3: allocated 32 MiB host memory buffer.
[   90.000000] nvme nvme3: min host memory (64 MiB) above limit (32 MiB).
`))})
	if e := got["nvme1"]; e.State != Failed || e.Line.Num != 3 {
		t.Errorf("nvme1 %+v", e)
	}
	if _, ok := got["nvme0"]; ok {
		t.Error("nvme0 logged nothing")
	}
	if e := got["nvme2"]; e.State != Allocated || e.MiB != 64 {
		t.Errorf("nvme2 %+v", e)
	}
	if e := got["nvme3"]; e.State != OverLimit || e.MiB != 64 || e.LimitMiB != 32 {
		t.Errorf("nvme3 %+v", e)
	}
	if len(Scan(nil)) != 0 {
		t.Error("nil log")
	}
}
