package probes

import (
	"context"
	"fmt"
	"path"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/prometheus/procfs"
	"golang.org/x/sys/unix"
)

// This file answers "what is under this path?" for `diskdoctor bench`: the
// path's kind and device number (stat), its free space (statfs), the mount
// holding it, the block devices and whole disks beneath, what else uses a
// device (mounts, swap, holders, pool and RAID membership) and the ZFS ARC
// ceiling. A recorded machine has no live tree to stat, so there a path is
// a directory on the mount whose mount point contains it.

// PathInfo is what stat(2) and statfs(2) say about a machine path.
type PathInfo struct {
	Path  string // the path with every symbolic link resolved (live machine)
	Kind  string // "dir", "block", "file", "other"
	DevNo string // st_dev as "major:minor": the filesystem holding the path
	RDev  string // st_rdev as "major:minor" for a block device
	// Free is statfs f_bavail × f_bsize (what an unprivileged writer may
	// use), Size f_blocks × f_bsize; both 0 when unknown (recorded machine).
	Free, Size uint64
}

// StatPath stats a machine path. On a recorded machine a path under /dev
// naming an inventoried block device is that device; any other path is
// taken as a directory (the recording holds no tree to stat).
func StatPath(ctx context.Context, h *Host, p string) (PathInfo, error) {
	if err := ctx.Err(); err != nil {
		return PathInfo{}, ctxErr(err)
	}
	if !h.IsLive() {
		return recordedStat(ctx, h, p)
	}
	var st unix.Stat_t
	if err := unix.Stat(p, &st); err != nil {
		return PathInfo{}, fileErr(p, err)
	}
	pi := PathInfo{Path: p, DevNo: DevNo(st.Dev)}
	if r, err := filepath.EvalSymlinks(p); err == nil {
		pi.Path = r
	}
	switch st.Mode & unix.S_IFMT {
	case unix.S_IFDIR:
		pi.Kind = "dir"
	case unix.S_IFBLK:
		pi.Kind, pi.RDev = "block", DevNo(st.Rdev)
	case unix.S_IFREG:
		pi.Kind = "file"
	default:
		pi.Kind = "other"
	}
	if pi.Kind == "dir" {
		var sfs unix.Statfs_t
		if err := unix.Statfs(p, &sfs); err == nil {
			pi.Free = sfs.Bavail * uint64(sfs.Bsize)
			pi.Size = sfs.Blocks * uint64(sfs.Bsize)
		}
	}
	return pi, nil
}

func recordedStat(ctx context.Context, h *Host, p string) (PathInfo, error) {
	if strings.HasPrefix(p, "/dev/") {
		devs, err := ReadBlockDevices(ctx, h)
		if err != nil {
			return PathInfo{}, err
		}
		m := NewDeviceMap(devs)
		if no := m.DevNoOf(path.Base(p)); no != "" {
			return PathInfo{Path: p, Kind: "block", RDev: no}, nil
		}
		return PathInfo{}, fmt.Errorf("%s: %w (not a block device of the recorded machine)", p, ErrNotAvailable)
	}
	return PathInfo{Path: p, Kind: "dir"}, nil
}

// DevNo renders a device number as "major:minor", as sysfs and mountinfo
// write it.
func DevNo(dev uint64) string {
	return strconv.FormatUint(uint64(unix.Major(dev)), 10) + ":" + strconv.FormatUint(uint64(unix.Minor(dev)), 10)
}

// AnonymousDevNo says whether a device number has major 0: no block device
// (tmpfs, ZFS, btrfs subvolumes, overlayfs).
func AnonymousDevNo(devNo string) bool { return strings.HasPrefix(devNo, "0:") }

// MountFor returns the mount of the filesystem holding path. With devNo
// (st_dev of the path) it is among the mounts of that device number (bind
// mounts repeat it) the one with the deepest mount point containing path,
// else the first of them; with devNo "" (a recorded machine) the deepest
// mount point containing path.
func MountFor(ctx context.Context, h *Host, p, devNo string) (Mount, bool, error) {
	mounts, err := ReadMounts(ctx, h)
	if err != nil {
		return Mount{}, false, err
	}
	var best Mount
	found := false
	for _, m := range mounts {
		if devNo != "" && m.DevNo != devNo {
			continue
		}
		if pathContains(m.MountPoint, p) {
			if !found || !pathContains(best.MountPoint, p) || len(m.MountPoint) >= len(best.MountPoint) {
				best, found = m, true
			}
		} else if !found && devNo != "" {
			best, found = m, true // the device's mount, seen through another path
		}
	}
	return best, found, nil
}

func pathContains(mp, p string) bool {
	return mp == "/" || p == mp || strings.HasPrefix(p, mp+"/")
}

// DeviceMap relates the block devices of an inventory: device numbers to
// names, partitions to their disks, stacked devices (dm, md) to the devices
// under them.
type DeviceMap struct {
	byDevNo map[string]string
	devNo   map[string]string
	parent  map[string]string   // partition -> disk
	under   map[string][]string // holder -> devices (disks or partitions) it is stacked on
	devs    map[string]*BlockDevice
}

// NewDeviceMap builds the map from an inventory (ReadBlockDevices).
func NewDeviceMap(devs []*BlockDevice) *DeviceMap {
	m := &DeviceMap{byDevNo: map[string]string{}, devNo: map[string]string{}, parent: map[string]string{}, under: map[string][]string{}, devs: map[string]*BlockDevice{}}
	for _, d := range devs {
		m.devs[d.Name] = d
		if d.DevNo != "" {
			m.byDevNo[d.DevNo], m.devNo[d.Name] = d.Name, d.DevNo
		}
		for _, h := range d.Holders {
			m.under[h] = append(m.under[h], d.Name)
		}
		for _, p := range d.Partitions {
			m.parent[p.Name] = d.Name
			if p.DevNo != "" {
				m.byDevNo[p.DevNo], m.devNo[p.Name] = p.Name, p.DevNo
			}
			for _, h := range p.Holders {
				m.under[h] = append(m.under[h], p.Name)
			}
		}
	}
	return m
}

// Name is the device with this "major:minor", "" when none.
func (m *DeviceMap) Name(devNo string) string { return m.byDevNo[devNo] }

// DevNoOf is a device's or partition's "major:minor".
func (m *DeviceMap) DevNoOf(name string) string { return m.devNo[name] }

// SizeBytes is a device's size; for a partition, its disk's (an upper
// bound); 0 unknown.
func (m *DeviceMap) SizeBytes(name string) uint64 {
	if p, ok := m.parent[name]; ok {
		name = p
	}
	if d := m.devs[name]; d != nil {
		return d.SizeBytes
	}
	return 0
}

// Device is the inventoried disk (or stacked device) of that name.
func (m *DeviceMap) Device(name string) *BlockDevice { return m.devs[name] }

// WholeDisks are the disks beneath a device: a partition's disk, the
// members of dm and md devices, recursively.
func (m *DeviceMap) WholeDisks(name string) []string {
	var out []string
	seen := map[string]bool{}
	var walk func(n string, depth int)
	walk = func(n string, depth int) {
		if depth > 16 || n == "" || seen[n] {
			return
		}
		seen[n] = true
		if p, ok := m.parent[n]; ok {
			walk(p, depth+1)
			return
		}
		if below := m.under[n]; len(below) > 0 {
			for _, b := range below {
				walk(b, depth+1)
			}
			return
		}
		out = append(out, n)
	}
	walk(name, 0)
	return out
}

// Stacked lists a device, its partitions and everything stacked on them
// (holders, recursively): the names whose I/O lands on the device.
func (m *DeviceMap) Stacked(name string) []string {
	var out []string
	seen := map[string]bool{}
	var walk func(n string, depth int)
	walk = func(n string, depth int) {
		if depth > 16 || seen[n] {
			return
		}
		seen[n] = true
		out = append(out, n)
		if d := m.devs[n]; d != nil {
			for _, p := range d.Partitions {
				walk(p.Name, depth+1)
				for _, h := range p.Holders {
					walk(h, depth+1)
				}
			}
			for _, h := range d.Holders {
				walk(h, depth+1)
			}
		}
	}
	walk(name, 0)
	return out
}

// Swaps lists the active swap areas (/proc/swaps), by file name.
func Swaps(ctx context.Context, h *Host) ([]string, error) {
	h.Uses("/proc/swaps")
	pfs, err := procfs.NewFS(h.Path("/proc"))
	if err != nil {
		return nil, fmt.Errorf("/proc: %w", ErrNotAvailable)
	}
	sw, err := pfs.Swaps()
	if err != nil {
		return nil, fileErr("/proc/swaps", unwrapPathErr(err))
	}
	var out []string
	for _, s := range sw {
		out = append(out, s.Filename)
	}
	return out, ctx.Err()
}

// ARCMax reads c_max, the ceiling the ZFS ARC may grow to, from
// /proc/spl/kstat/zfs/arcstats (bytes). ErrNotAvailable without ZFS.
func ARCMax(ctx context.Context, h *Host) (uint64, error) {
	const p = "/proc/spl/kstat/zfs/arcstats"
	b, err := h.ReadFile(ctx, p)
	if err != nil {
		return 0, err
	}
	for _, l := range strings.Split(string(b), "\n") {
		f := strings.Fields(l)
		if len(f) == 3 && f[0] == "c_max" {
			n, err := strconv.ParseUint(f[2], 10, 64)
			if err != nil {
				return 0, fmt.Errorf("%s c_max %q: %w", p, f[2], ErrParse)
			}
			return n, nil
		}
	}
	return 0, fmt.Errorf("%s: no c_max: %w", p, ErrParse)
}

// AbsPath makes a path the person gave absolute: against the doctor's
// working directory on the live machine. On a recorded machine there is no
// working directory to resolve against, so a relative path is refused.
func AbsPath(h *Host, p string) (string, error) {
	if filepath.IsAbs(p) {
		return p, nil
	}
	if !h.IsLive() {
		return "", fmt.Errorf("%s: on a recorded machine (--root) give an absolute path", p)
	}
	return filepath.Abs(p)
}
