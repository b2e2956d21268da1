package block

import (
	"os"
	"path/filepath"
	"testing"
)

func TestSectorsToBytes(t *testing.T) {
	for _, c := range []struct {
		in   string
		want uint64
		ok   bool
	}{
		{"2048", 1 << 20, true},
		{"7814037168\n", 7814037168 * 512, true},
		{"0", 0, true},
		{"36028797018963967", 36028797018963967 * 512, true}, // the last that fits
		// Issue 26: these wrapped to 18,446,744,073,709,551,104 bytes.
		{"36028797018963968", 0, false},
		{"18446744073709551615", 0, false},
		{"1000000000000000000000000000", 0, false},
		{"-1", 0, false},
		{"", 0, false},
		{"12 sectors", 0, false},
	} {
		got := SectorsToBytes(c.in)
		if (got != nil) != c.ok || (got != nil && *got != c.want) {
			t.Errorf("SectorsToBytes(%q) = %v, want %d (known %v)", c.in, got, c.want, c.ok)
		}
	}
}

// A recorded disk whose size is 2^64-1 sectors has an unknown size, not
// "18447 PB".
func TestInventorySizeOverflowIsUnknown(t *testing.T) {
	root := t.TempDir()
	for name, size := range map[string]string{"sda": "18446744073709551615", "sdb": "1000000000000000000000000000", "sdc": "2048"} {
		dir := filepath.Join(root, "sys/block", name)
		if err := os.MkdirAll(dir, 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, "size"), []byte(size+"\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	for _, d := range readRoot(t, root) {
		switch d.Name {
		case "sda", "sdb":
			if d.SizeBytes != nil {
				t.Errorf("%s: size %d bytes, want unknown", d.Name, *d.SizeBytes)
			}
		case "sdc":
			if d.SizeBytes == nil || *d.SizeBytes != 1<<20 {
				t.Errorf("sdc: size %v, want 1 MiB", d.SizeBytes)
			}
		}
	}
}

func FuzzSectorsToBytes(f *testing.F) {
	for _, s := range []string{"2048", "18446744073709551615", "-1", " 1\n"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if n := SectorsToBytes(s); n != nil && *n%512 != 0 {
			t.Errorf("%q: %d bytes, not whole sectors", s, *n)
		}
	})
}
