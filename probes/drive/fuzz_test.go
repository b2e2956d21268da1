package drive

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

func FuzzParseHdparmC(f *testing.F) {
	for _, s := range []string{"\n/dev/sdb:\n drive state is:  standby\n", " drive state is:  active/idle\n", ""} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		if p, err := ParseHdparmC(b); err == nil && p.State == "" {
			t.Fatal("parsed without a state")
		}
	})
}
