package zfs

import (
	"context"
	"fmt"
	"strconv"
	"strings"

	"github.com/diskdoctor/diskdoctor/machine"
)

// This file answers "what is under this path?" for `diskdoctor bench`: the
// path's kind and device number (stat), its free space (statfs), the mount
// holding it, the block devices and whole disks beneath, what else uses a
// device (mounts, swap, holders, pool and RAID membership) and the ZFS ARC
// ceiling. A recorded machine has no live tree to stat, so there a path is
// a directory on the mount whose mount point contains it.

// ARCMax reads c_max, the ceiling the ZFS ARC may grow to, from
// /proc/spl/kstat/zfs/arcstats (bytes). ErrNotAvailable without ZFS.
func ARCMax(ctx context.Context, h *machine.Host) (uint64, error) {
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
				return 0, fmt.Errorf("%s c_max %q: %w", p, f[2], machine.ErrParse)
			}
			return n, nil
		}
	}
	return 0, fmt.Errorf("%s: no c_max: %w", p, machine.ErrParse)
}
