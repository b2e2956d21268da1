package machine_test

import (
	"bytes"
	"context"
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/diskdoctor/diskdoctor/internal/testutil"
	"github.com/diskdoctor/diskdoctor/machine"
)

// TestRecordedAttributesReadWhole: a recorded file is read whole at every
// size up to its limit (a sysfs attribute, a udev record, a configuration
// file), an empty file is empty, and one past the limit is refused,
// through each resolver.
func TestRecordedAttributesReadWhole(t *testing.T) {
	root := t.TempDir()
	dir := filepath.Join(root, "sys/block/sda/queue")
	testutil.Must(t, os.MkdirAll(dir, 0o755))
	sizes := []int{0, 1, 4095, 4096, 4097, 8193, 64 << 10}
	for _, n := range sizes {
		testutil.Must(t, os.WriteFile(filepath.Join(dir, "a"+itoa(n)), bytes.Repeat([]byte{'x'}, n), 0o644))
	}
	testutil.Must(t, os.WriteFile(filepath.Join(dir, "over"), bytes.Repeat([]byte{'x'}, 64<<10+1), 0o644))
	larger := map[string]int{"/run/udev/data/b8:0": 100000, "/etc/big.conf": 300000}
	for p, n := range larger {
		testutil.Must(t, os.MkdirAll(filepath.Dir(filepath.Join(root, p)), 0o755))
		testutil.Must(t, os.WriteFile(filepath.Join(root, p), bytes.Repeat([]byte{'y'}, n), 0o644))
	}
	h, err := machine.Recorded(root)
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	for name, h := range machine.WalkVariants(h) {
		for _, n := range sizes {
			p := "/sys/block/sda/queue/a" + itoa(n)
			b, err := h.ReadFile(ctx, p)
			if err != nil || len(b) != n {
				t.Errorf("%s: %s: %d bytes, %v; want %d", name, p, len(b), err, n)
			}
		}
		for p, n := range larger {
			if b, err := h.ReadFile(ctx, p); err != nil || len(b) != n {
				t.Errorf("%s: %s: %d bytes, %v; want %d", name, p, len(b), err, n)
			}
		}
		if _, err := h.ReadFile(ctx, "/sys/block/sda/queue/over"); !errors.Is(err, machine.ErrRefused) {
			t.Errorf("%s: an attribute past the limit: %v, want a refusal", name, err)
		}
	}
}

func itoa(n int) string {
	if n == 0 {
		return "0"
	}
	var b []byte
	for ; n > 0; n /= 10 {
		b = append([]byte{byte('0' + n%10)}, b...)
	}
	return string(b)
}

// TestRecordedAbsentDeviceDirectory: a recorded device without device/
// (a dm or loop device) answers "not available" (the file does not exist)
// for every attribute beneath it, each time, and its own attributes still
// read.
func TestRecordedAbsentDeviceDirectory(t *testing.T) {
	root := t.TempDir()
	testutil.Must(t, os.MkdirAll(filepath.Join(root, "sys/devices/virtual/block/dm-0"), 0o755))
	testutil.Must(t, os.WriteFile(filepath.Join(root, "sys/devices/virtual/block/dm-0/size"), []byte("2048\n"), 0o644))
	testutil.Must(t, os.MkdirAll(filepath.Join(root, "sys/block"), 0o755))
	testutil.Must(t, os.Symlink("../devices/virtual/block/dm-0", filepath.Join(root, "sys/block/dm-0")))
	h, err := machine.Recorded(root)
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	for name, h := range machine.WalkVariants(h) {
		for range 2 {
			for _, p := range []string{"/sys/block/dm-0/device/model", "/sys/block/dm-0/device/device/model", "/sys/block/dm-0/device"} {
				if _, err := h.ReadFile(ctx, p); !errors.Is(err, machine.ErrNotAvailable) {
					t.Errorf("%s: %s: %v, want not available", name, p, err)
				}
			}
			if _, err := h.ReadDir(ctx, "/sys/block/dm-0/device/scsi_disk"); !errors.Is(err, machine.ErrNotAvailable) {
				t.Errorf("%s: listing beneath the absent device/: %v, want not available", name, err)
			}
			if s, err := h.ReadString(ctx, "/sys/block/dm-0/size"); err != nil || s != "2048" {
				t.Errorf("%s: size %q, %v", name, s, err)
			}
		}
	}
}

// A recorded directory that was empty holds git's placeholder, which is
// not the machine's: its listing is empty, and a file of another name is
// listed as always.
func TestRecordedPlaceholderIsNotListed(t *testing.T) {
	root := t.TempDir()
	testutil.Must(t, os.MkdirAll(filepath.Join(root, "sys/block"), 0o755))
	testutil.Must(t, os.WriteFile(filepath.Join(root, "sys/block/.keep"), nil, 0o644))
	testutil.Must(t, os.MkdirAll(filepath.Join(root, "sys/class/x"), 0o755))
	testutil.Must(t, os.WriteFile(filepath.Join(root, "sys/class/x/.other"), nil, 0o644))
	h, err := machine.Recorded(root)
	if err != nil {
		t.Fatal(err)
	}
	if ents, err := h.ReadDir(context.Background(), "/sys/block"); err != nil || len(ents) != 0 {
		t.Errorf("/sys/block: %v, %v; want an empty listing", ents, err)
	}
	if ents, err := h.ReadDir(context.Background(), "/sys/class/x"); err != nil || len(ents) != 1 {
		t.Errorf("/sys/class/x: %v, %v; want .other", ents, err)
	}
}
