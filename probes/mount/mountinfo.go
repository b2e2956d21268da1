package mount

import (
	"context"
	"fmt"

	"github.com/diskdoctor/diskdoctor/machine"
	"github.com/prometheus/procfs"
)

// Mount is one line of /proc/self/mountinfo.
type Mount struct {
	DevNo, MountPoint, FSType, Source string
	Options                           map[string]string
}

// Read reads /proc/self/mountinfo through procfs.
func Read(ctx context.Context, h *machine.Host) ([]Mount, error) {
	if err := h.Uses("/proc/self", "/proc/self/mountinfo", "/proc/mounts"); err != nil {
		return nil, err
	}
	pfs, err := procfs.NewFS(h.Path("/proc"))
	if err != nil {
		return nil, fmt.Errorf("/proc: %w", machine.ErrNotAvailable)
	}
	// In a host root /proc/self is the doctor's container, and the host's
	// mount table is its init's (Host.ProcSelf).
	var infos []*procfs.MountInfo
	if pid := h.ProcSelf(); pid == 0 {
		infos, err = pfs.GetMounts()
	} else {
		var p procfs.Proc
		if p, err = pfs.Proc(pid); err == nil {
			infos, err = p.MountInfo()
		}
	}
	if err != nil {
		return nil, machine.FileErr("/proc/self/mountinfo", machine.UnwrapPathErr(err))
	}
	out := make([]Mount, 0, len(infos))
	for _, m := range infos {
		opts := map[string]string{}
		for k, v := range m.Options {
			opts[k] = v
		}
		for k, v := range m.SuperOptions {
			opts[k] = v
		}
		out = append(out, Mount{DevNo: m.MajorMinorVer, MountPoint: m.MountPoint, FSType: m.FSType, Source: m.Source, Options: opts})
	}
	return out, ctx.Err()
}
