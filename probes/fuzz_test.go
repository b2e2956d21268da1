package probes

import (
	"testing"
)

// The fuzz targets run briefly in CI on their seed corpus; none may panic.

func FuzzParseHdparmW(f *testing.F) {
	for _, s := range []string{"\n/dev/sda:\n write-caching =  0 (off)\n", " write-caching =  1 (on)\n", " write-caching = not supported\n", ""} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		dc, err := ParseHdparmW(b)
		if err == nil && (dc.Enabled == nil || dc.Supported == nil) {
			t.Fatal("parsed without a state")
		}
	})
}

func FuzzParseUdev(f *testing.F) {
	f.Add([]byte("S:disk/by-id/ata-X\nE:ID_BUS=ata\nE:ID_ATA_WRITE_CACHE_ENABLED=0\n"))
	f.Add([]byte("E:=\nS:\n"))
	f.Fuzz(func(t *testing.T, b []byte) {
		_ = parseUdev(b)
	})
}

func FuzzParseKernelLog(f *testing.F) {
	f.Add([]byte("[    2.101312] sd 2:0:0:0: [sda] Write cache: disabled, read cache: enabled\n"))
	f.Add([]byte("Dec 10 18:56:03 host kernel: pci 0000:01:00.0: 8 Gb/s available PCIe bandwidth, limited by 2.5 GT/s PCIe x4 link\n"))
	f.Add([]byte("[ 1.0"))
	f.Fuzz(func(t *testing.T, b []byte) {
		l := &KernelLog{Lines: ParseKernelLog(b)}
		_ = l.WriteCacheLines()
		_ = l.PCIeBandwidthLines()
	})
}

func FuzzParseManifest(f *testing.F) {
	f.Add([]byte("- argv: [dmesg]\n  stdout: dmesg.txt\n"))
	f.Add([]byte("- argv: [zpool, status]\n  timeout: true\n"))
	f.Fuzz(func(t *testing.T, b []byte) {
		_, _ = parseManifest(b)
	})
}

func FuzzParseScheduler(f *testing.F) {
	f.Add("none [mq-deadline] kyber bfq")
	f.Add("[")
	f.Fuzz(func(t *testing.T, s string) {
		_, _ = ParseScheduler(s)
		_ = ParseLinkSpeed(s)
		_ = ParseOSRelease([]byte(s))
		_ = ParseZpoolGet([]byte(s))
	})
}
