package udev

import (
	"testing"
)

// The fuzz targets run briefly in CI on their seed corpus; none may panic.

func FuzzParseUdev(f *testing.F) {
	f.Add([]byte("S:disk/by-id/ata-X\nE:ID_BUS=ata\nE:ID_ATA_WRITE_CACHE_ENABLED=0\n"))
	f.Add([]byte("E:=\nS:\n"))
	f.Fuzz(func(t *testing.T, b []byte) {
		_ = Parse(b)
	})
}
