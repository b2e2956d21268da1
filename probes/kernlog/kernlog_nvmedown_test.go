package kernlog

import "testing"

func TestNVMeControllerDown(t *testing.T) {
	// Lines from a Debian 6.1 report to LKML (2024-01-05) and a 6.18-rc3
	// board with a WD Blue SN570 (linux-pci), and a reset with a real status.
	log := &Log{Lines: Parse([]byte(`Jan  5 06:19:22 atom kernel: [295336.554420] nvme nvme0: controller is down; will reset: CSTS=0xffffffff, PCI_STATUS=0xffff
Jan  5 06:19:22 atom kernel: [295336.554469] nvme nvme0: Does your device have a faulty power saving mode enabled?
Jan  5 06:19:22 atom kernel: [295336.554489] nvme nvme0: Try "nvme_core.default_ps_max_latency_us=0 pcie_aspm=off" and report a bug
[   48.108400] nvme nvme1: controller is down; will reset: CSTS=0x3, PCI_STATUS=0x10
[   49.108400] nvme nvme1: controller is down; will reset: CSTS=0xffffffff, PCI_STATUS read failed (134)
[   50.000000] nvme nvme2: I/O 12 QID 3 timeout, reset controller
`))}
	down := log.NVMeControllerDown()
	if d := down["nvme0"]; d == nil || d.Count != 1 || d.AllOnes != 1 || !d.Hint || len(d.Lines) != 2 {
		t.Errorf("nvme0 = %+v", d)
	}
	if d := down["nvme1"]; d == nil || d.Count != 2 || d.AllOnes != 1 || d.Hint || len(d.Lines) != 2 {
		t.Errorf("nvme1 = %+v", d)
	}
	if _, ok := down["nvme2"]; ok {
		t.Error("a timeout reset is not a controller-down report")
	}
	var nilLog *Log
	if len(nilLog.NVMeControllerDown()) != 0 {
		t.Error("nil log")
	}
}
