package mount

import (
	"context"
	"fmt"
	"path"
	"strconv"
	"strings"

	"github.com/diskdoctor/diskdoctor/machine"
	"github.com/diskdoctor/diskdoctor/probes/block"
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
func StatPath(ctx context.Context, h *machine.Host, p string) (PathInfo, error) {
	if err := ctx.Err(); err != nil {
		return PathInfo{}, machine.CtxErr(err)
	}
	if !h.IsLive() {
		return recordedStat(ctx, h, p)
	}
	st, err := h.LiveStat(p)
	if err != nil {
		return PathInfo{}, err
	}
	pi := PathInfo{Path: p, DevNo: DevNo(st.Dev)}
	if r, err := h.LiveRealPath(p); err == nil {
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
		if free, size, err := h.LiveStatFS(p); err == nil {
			pi.Free, pi.Size = free, size
		}
	}
	return pi, nil
}

func recordedStat(ctx context.Context, h *machine.Host, p string) (PathInfo, error) {
	if strings.HasPrefix(p, "/dev/") {
		devs, err := block.Read(ctx, h)
		if err != nil {
			return PathInfo{}, err
		}
		m := block.NewMap(devs)
		if no := m.DevNoOf(path.Base(p)); no != "" {
			return PathInfo{Path: p, Kind: "block", RDev: no}, nil
		}
		return PathInfo{}, fmt.Errorf("%s: %w (not a block device of the recorded machine)", p, machine.ErrNotAvailable)
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
func MountFor(ctx context.Context, h *machine.Host, p, devNo string) (Mount, bool, error) {
	mounts, err := Read(ctx, h)
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

// Swaps lists the active swap areas (/proc/swaps), by file name.
func Swaps(ctx context.Context, h *machine.Host) ([]string, error) {
	sw, err := SwapAreas(ctx, h)
	var out []string
	for _, s := range sw {
		out = append(out, s.Filename)
	}
	return out, err
}

// SwapArea is one line of /proc/swaps: the file or device (the kernel
// prints the resolved device, /dev/zd0 for /dev/zvol/pool/swap), its type
// ("partition" or "file"), size and use in KiB, and priority.
type SwapArea struct {
	Filename, Type             string
	SizeKiB, UsedKiB, Priority int
}

// Line is the area as /proc/swaps prints it, for evidence.
func (s SwapArea) Line() string {
	return fmt.Sprintf("%s %s %d %d %d", s.Filename, s.Type, s.SizeKiB, s.UsedKiB, s.Priority)
}

// SwapAreas reads /proc/swaps.
func SwapAreas(ctx context.Context, h *machine.Host) ([]SwapArea, error) {
	h.Uses("/proc/swaps")
	pfs, err := procfs.NewFS(h.Path("/proc"))
	if err != nil {
		return nil, fmt.Errorf("/proc: %w", machine.ErrNotAvailable)
	}
	sw, err := pfs.Swaps()
	if err != nil {
		return nil, machine.FileErr("/proc/swaps", machine.UnwrapPathErr(err))
	}
	out := make([]SwapArea, 0, len(sw))
	for _, s := range sw {
		out = append(out, SwapArea{Filename: s.Filename, Type: s.Type, SizeKiB: s.Size, UsedKiB: s.Used, Priority: s.Priority})
	}
	return out, ctx.Err()
}

// AbsPath makes a path the person gave absolute: against the doctor's
// working directory on the live machine. On a recorded machine there is no
// working directory to resolve against, so a relative path is refused.
func AbsPath(h *machine.Host, p string) (string, error) {
	return h.AbsPath(p)
}
