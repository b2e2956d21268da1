package kernlog

import (
	"testing"
)

// The fuzz targets run briefly in CI on their seed corpus; none may panic.

func FuzzParseKernelLog(f *testing.F) {
	f.Add([]byte("[    2.101312] sd 2:0:0:0: [sda] Write cache: disabled, read cache: enabled\n"))
	f.Add([]byte("Dec 10 18:56:03 host kernel: pci 0000:01:00.0: 8 Gb/s available PCIe bandwidth, limited by 2.5 GT/s PCIe x4 link\n"))
	f.Add([]byte("[ 1.0"))
	f.Add([]byte("[ 8.514871] BTRFS warning (device sde1): devid 1 uuid cb05aae6-6c03-49d3-b46d-bf51a0eb8cd0 is missing\n[259822.643398] EXT4-fs (sda1): error count since last fsck: 8\n"))
	f.Fuzz(func(t *testing.T, b []byte) {
		l := &Log{Lines: Parse(b)}
		_ = l.WriteCacheLines()
		_ = l.PCIeBandwidthLines()
		_ = l.NVMeControllerDown()
		_ = l.BTRFSFilesystemEvents()
		_, _ = l.BTRFSHungTasks()
		_ = l.EXT4ErrorInfo()
	})
}
