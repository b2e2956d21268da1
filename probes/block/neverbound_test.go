package block

import (
	"io/fs"
	"path/filepath"
	"testing"
)

// TestIsNeverBoundIsTheRegexp: the digit prefilter changes no answer, on
// named cases and on every directory name of the fixtures.
func TestIsNeverBoundIsTheRegexp(t *testing.T) {
	names := []string{"", "0", "0000:00:17.0", "0:0:0:0", "0000:3b:00.0", "1-1", "block", "nvme", "nvme0", "nvme-subsystem",
		"ata1", "link1.2", "dev1.0", "host0", "target0:0:0", "port-0:1", "end_device-0:1:2", "expander-0:0",
		"phy-0:4", "rport-0:0-1", "session1", "pci0000:00", "pci0000:00x", "nvme0n1", "sda", "virtio2", "usb1"}
	n := 0
	err := filepath.WalkDir("../../fixtures", func(_ string, d fs.DirEntry, err error) error {
		if err == nil && d.IsDir() {
			names = append(names, d.Name())
			n++
		}
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	if n < 100 {
		t.Fatalf("only %d fixture directories: the fixtures moved?", n)
	}
	for _, name := range names {
		if got, want := isNeverBound(name), neverBound.MatchString(name); got != want {
			t.Errorf("%q: isNeverBound %v, the regexp %v", name, got, want)
		}
	}
	for _, name := range []string{"ata1", "host0", "pci0000:00", "nvme0"} {
		if !isNeverBound(name) {
			t.Errorf("%q is never bound", name)
		}
	}
}
