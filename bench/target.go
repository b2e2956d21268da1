package bench

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/diskdoctor/diskdoctor/machine"
	"github.com/diskdoctor/diskdoctor/probes/block"
	"github.com/diskdoctor/diskdoctor/probes/mount"
)

// Target is what PATH names: a directory (the test file goes in it) or,
// with --device-write-i-know, a raw block device.
type Target struct {
	Path     string // as given, absolute, links resolved on a live machine
	IsDevice bool
	File     string // the test file (the device itself for a raw device)
	DevNo    string // "major:minor": st_dev of the directory, st_rdev of a device
	Free     uint64 // statfs, 0 unknown
	FSSize   uint64
}

// TestFilePrefix and TestFileSuffix frame the test file's name,
// .diskdoctor-bench-PID.tmp; a later run removes those of dead PIDs.
const (
	TestFilePrefix = ".diskdoctor-bench-"
	TestFileSuffix = ".tmp"
)

// TestFileName is the test file of the run with this PID.
func TestFileName(pid int) string { return fmt.Sprintf("%s%d%s", TestFilePrefix, pid, TestFileSuffix) }

// ResolveTarget stats PATH through the host. A block device is accepted
// only with deviceWrite, and even then only when nothing uses it.
func ResolveTarget(ctx context.Context, h *machine.Host, path string, deviceWrite bool, pid int) (Target, error) {
	abs, err := mount.AbsPath(h, path)
	if err != nil {
		return Target{}, fmt.Errorf("bench %w", err)
	}
	pi, err := mount.StatPath(ctx, h, abs)
	switch {
	case errors.Is(err, machine.ErrNotAvailable):
		return Target{}, fmt.Errorf("bench %s: no such directory. PATH is an existing directory (or mount point) on the filesystem to test: the bench creates its test file there and removes it afterwards", path)
	case err != nil:
		return Target{}, fmt.Errorf("bench %w", err) // err names the path
	}
	if pid == 0 {
		pid = os.Getpid()
	}
	switch pi.Kind {
	case "dir":
		return Target{Path: pi.Path, File: filepath.Join(pi.Path, TestFileName(pid)), DevNo: pi.DevNo, Free: pi.Free, FSSize: pi.Size}, nil
	case "block":
		users, uerr := DeviceUsers(ctx, h, pi.RDev)
		on := "nothing the doctor can see is on it"
		if len(users) > 0 {
			on = "on it: " + strings.Join(users, "; ")
		} else if uerr != nil {
			on = "what is on it could not be read (" + uerr.Error() + ")"
		}
		if !deviceWrite {
			return Target{}, fmt.Errorf("bench %s: a raw block device (%s); the bench writes to it and DESTROYS ITS DATA. "+
				"Give a directory on a mounted filesystem instead, or pass --device-write-i-know if the device holds nothing you need", path, on)
		}
		if len(users) > 0 {
			return Target{}, fmt.Errorf("bench %s: refused even with --device-write-i-know, the device is in use (%s): writing it would destroy that", path, on)
		}
		if uerr != nil {
			return Target{}, fmt.Errorf("bench %s: refused, %s", path, on)
		}
		return Target{Path: pi.Path, IsDevice: true, File: pi.Path, DevNo: pi.RDev}, nil
	}
	return Target{}, fmt.Errorf("bench %s: not a directory (give the directory or mount point to test; the bench creates and removes its own file there)", path)
}

// DeviceUsers names what uses a block device (devNo "major:minor"), its
// partitions and everything stacked on them: mounts, swap, holders (md,
// LVM, dm-crypt), filesystems and RAID/LVM/ZFS membership signatures.
// An error means the inventory could not be read: not "unused".
func DeviceUsers(ctx context.Context, h *machine.Host, devNo string) ([]string, error) {
	devs, err := block.Read(ctx, h)
	if err != nil {
		return nil, err
	}
	m := block.NewMap(devs)
	name := m.Name(devNo)
	if name == "" {
		return nil, fmt.Errorf("device %s is not in /sys/block", devNo)
	}
	stack := m.Stacked(name)
	var users []string
	add := func(s string) {
		if !slices.Contains(users, s) {
			users = append(users, s)
		}
	}
	mounts, merr := mount.Read(ctx, h)
	for _, mt := range mounts {
		if n := m.Name(mt.DevNo); n != "" && slices.Contains(stack, n) {
			add(fmt.Sprintf("%s mounted on %s (%s)", n, mt.MountPoint, mt.FSType))
		}
	}
	swaps, serr := mount.Swaps(ctx, h)
	for _, s := range swaps {
		if slices.Contains(stack, filepath.Base(s)) {
			add(filepath.Base(s) + " is active swap")
		}
	}
	for _, n := range stack[1:] {
		if d := m.Device(n); d != nil {
			add(n + " is stacked on it (" + holderKind(n) + ")")
		}
	}
	if d := m.Device(name); d != nil {
		for _, p := range d.Partitions {
			if p.FSType != "" {
				add(fmt.Sprintf("partition %s holds %s", p.Name, signature(p.FSType)))
			} else {
				add("partition " + p.Name)
			}
		}
		if fs := d.Udev.Prop("ID_FS_TYPE"); fs != "" {
			add(name + " holds " + signature(fs))
		}
	}
	return users, errors.Join(merr, serr)
}

func holderKind(n string) string {
	switch {
	case strings.HasPrefix(n, "md"):
		return "md RAID"
	case strings.HasPrefix(n, "dm-"):
		return "device mapper: LVM, dm-crypt or multipath"
	}
	return "holder"
}

func signature(fs string) string {
	switch fs {
	case "zfs_member":
		return "a ZFS pool member (zfs_member)"
	case "linux_raid_member":
		return "an md RAID member (linux_raid_member)"
	case "LVM2_member":
		return "an LVM physical volume (LVM2_member)"
	case "swap":
		return "a swap signature"
	}
	return "a filesystem (" + fs + ")"
}
