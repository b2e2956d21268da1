package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/diskdoctor/diskdoctor/bench"
)

// loopDevice attaches a loop device to a new file of size MiB under a test
// directory and detaches it at the end; it skips when that is impossible.
func loopDevice(t *testing.T, mib int) string {
	t.Helper()
	if os.Geteuid() != 0 {
		t.Skip("needs root for a loop device (losetup)")
	}
	if _, err := exec.LookPath("losetup"); err != nil {
		t.Skip("losetup is not installed")
	}
	img := filepath.Join(t.TempDir(), "disk.img")
	if err := os.WriteFile(img, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.Truncate(img, int64(mib)<<20); err != nil {
		t.Fatal(err)
	}
	out, err := exec.Command("losetup", "--find", "--show", img).CombinedOutput()
	if err != nil {
		t.Skipf("no loop device support here: %v: %s", err, out)
	}
	dev := strings.TrimSpace(string(out))
	t.Cleanup(func() { _ = exec.Command("losetup", "-d", dev).Run() })
	return dev
}

func must(t *testing.T, name string, args ...string) {
	t.Helper()
	if out, err := exec.Command(name, args...).CombinedOutput(); err != nil {
		t.Fatalf("%s %v: %v: %s", name, args, err, out)
	}
}

// remount mounts dev read-only at mnt again just after it was unmounted:
// a probe the unmount's uevent starts (udev's blkid) can hold the device
// for a moment, and mount(8) then fails with "already mounted or mount
// point busy" (exit 32); it is tried again for up to two seconds.
func remount(t *testing.T, dev, mnt string) {
	t.Helper()
	var out []byte
	var err error
	for range 20 {
		if out, err = exec.Command("mount", "-o", "ro", dev, mnt).CombinedOutput(); err == nil {
			return
		}
		time.Sleep(100 * time.Millisecond)
	}
	t.Fatalf("mount -o ro %s %s: %v: %s", dev, mnt, err, out)
}

// Issue #16, item 1: --device-write-i-know on a device holding a mounted
// ext4 is refused, names the mount, writes nothing; the exclusive open
// refuses too; the filesystem is intact afterwards.
func TestBenchDeviceMountedRefused(t *testing.T) {
	if _, err := exec.LookPath("mkfs.ext4"); err != nil {
		t.Skip("mkfs.ext4 is not installed")
	}
	dev := loopDevice(t, 64)
	must(t, "mkfs.ext4", "-q", "-F", dev)
	mnt := t.TempDir()
	must(t, "mount", dev, mnt)
	mounted := true
	t.Cleanup(func() {
		if mounted {
			_ = exec.Command("umount", mnt).Run()
		}
	})
	canary := []byte("diskdoctor canary\n")
	if err := os.WriteFile(filepath.Join(mnt, "canary"), canary, 0o644); err != nil {
		t.Fatal(err)
	}
	must(t, "sync")

	for _, args := range [][]string{
		{"bench", "--device-write-i-know", "--force", "--size", "16m", "--runtime", "1", dev},
		{"bench", "--device-write-i-know", "--force", "--dd", "--size", "16m", "--runtime", "1", dev},
		{"bench", "--size", "16m", dev},
	} {
		var stdout, stderr bytes.Buffer
		code := run(t.Context(), args, &stdout, &stderr)
		if code != 3 {
			t.Errorf("%v: exit %d, want 3: %s", args, code, stderr.String())
		}
		if want := filepath.Base(dev) + " mounted on " + mnt + " (ext4)"; !strings.Contains(stderr.String(), want) {
			t.Errorf("%v: the refusal does not name %q: %s", args, want, stderr.String())
		}
	}
	// Below the refusal: the exclusive open alone keeps the bench off a
	// mounted device.
	var ex bench.Exec
	err := ex.Fill(t.Context(), dev, 1<<20, true, nil)
	if !errors.Is(err, syscall.EBUSY) {
		t.Errorf("O_EXCL open of a mounted device: %v, want EBUSY", err)
	}
	_ = ex.Close()

	must(t, "umount", mnt)
	mounted = false
	if out, err := exec.Command("e2fsck", "-fn", dev).CombinedOutput(); err != nil {
		t.Fatalf("the filesystem is damaged: %v\n%s", err, out)
	}
	remount(t, dev, mnt)
	mounted = true
	if got, err := os.ReadFile(filepath.Join(mnt, "canary")); err != nil || !bytes.Equal(got, canary) {
		t.Errorf("canary %q (%v)", got, err)
	}
}

// A device that is active swap is refused too, naming it.
func TestBenchDeviceSwapRefused(t *testing.T) {
	if _, err := exec.LookPath("mkswap"); err != nil {
		t.Skip("mkswap is not installed")
	}
	dev := loopDevice(t, 32)
	must(t, "mkswap", dev)
	if out, err := exec.Command("swapon", dev).CombinedOutput(); err != nil {
		t.Skipf("swapon is not possible here: %v: %s", err, out)
	}
	t.Cleanup(func() { _ = exec.Command("swapoff", dev).Run() })
	var stderr bytes.Buffer
	code := run(t.Context(), []string{"bench", "--device-write-i-know", "--force", "--size", "16m", "--runtime", "1", dev}, &bytes.Buffer{}, &stderr)
	if code != 3 || !strings.Contains(stderr.String(), filepath.Base(dev)+" is active swap") {
		t.Errorf("exit %d: %s", code, stderr.String())
	}
}

// An unused device is written, measured and released.
func TestBenchDeviceUnused(t *testing.T) {
	benchNeedFio(t)
	dev := loopDevice(t, 48)
	var stdout, stderr bytes.Buffer
	code := run(t.Context(), []string{"bench", "--device-write-i-know", "--force", "--format", "json", "--profile", "sync", "--size", "16m", "--runtime", "1", "--preflight-window", "0", dev}, &stdout, &stderr)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr.String())
	}
	var out bench.Result
	if err := json.Unmarshal(stdout.Bytes(), &out); err != nil || len(out.Rows) != 4 {
		t.Fatalf("%v: %s", err, stdout.String())
	}
	for _, r := range out.Rows {
		if r.IOPS <= 0 {
			t.Errorf("%s: %v IOPS", r.Test, r.IOPS)
		}
	}
	// Released: an exclusive open works again.
	f, err := os.OpenFile(dev, os.O_RDONLY|syscall.O_EXCL, 0)
	if err != nil {
		t.Errorf("the device is still held: %v", err)
	} else {
		f.Close()
	}
}

// On recorded machines: a device in an md array, a ZFS pool member, a disk
// with swap and mounted partitions; each refusal names what is on it.
func TestBenchDeviceInUseOnFixtures(t *testing.T) {
	for _, tc := range []struct {
		fixture, dev string
		want         []string
	}{
		{"md-raid1-degraded", "/dev/sdb", []string{"md0 is stacked on it (md RAID)", "md0 mounted on /srv/backup (ext4)", "linux_raid_member"}},
		{"zfs-resilvering", "/dev/sdb", []string{"partition sdb1 holds a ZFS pool member (zfs_member)"}},
		{"md-raid1-degraded", "/dev/nvme0n1", []string{"nvme0n1p2 mounted on / (ext4)", "partition nvme0n1p3 holds a swap signature"}},
	} {
		var stderr bytes.Buffer
		code := run(t.Context(), []string{"bench", "--root", filepath.Join(fixturesDir, tc.fixture), "--device-write-i-know", "--force", tc.dev}, &bytes.Buffer{}, &stderr)
		if code != 3 || !strings.Contains(stderr.String(), "refused even with --device-write-i-know") {
			t.Errorf("%s %s: exit %d: %s", tc.fixture, tc.dev, code, stderr.String())
		}
		for _, w := range tc.want {
			if !strings.Contains(stderr.String(), w) {
				t.Errorf("%s %s: refusal lacks %q: %s", tc.fixture, tc.dev, w, stderr.String())
			}
		}
	}
}
