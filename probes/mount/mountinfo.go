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

// InitHasRoot reports whether init's mount table (/proc/1/mountinfo) has a
// mount at /. The kernel shows a process's mounts relative to that
// process's own root (mounts_open_common and show_mountinfo in
// fs/proc_namespace.c, which skip a mount the root does not reach): where
// the doctor's root is a chroot's directory its own table has no /, and
// init's still names the machine's root filesystem.
func InitHasRoot(ctx context.Context, h *machine.Host) (bool, error) {
	if err := h.Uses("/proc/1/mountinfo"); err != nil {
		return false, err
	}
	pfs, err := procfs.NewFS(h.Path("/proc"))
	if err != nil {
		return false, fmt.Errorf("/proc: %w", machine.ErrNotAvailable)
	}
	p, err := pfs.Proc(1)
	if err != nil {
		return false, machine.FileErr("/proc/1/mountinfo", machine.UnwrapPathErr(err))
	}
	infos, err := p.MountInfo()
	if err != nil {
		return false, machine.FileErr("/proc/1/mountinfo", machine.UnwrapPathErr(err))
	}
	for _, m := range infos {
		if m.MountPoint == "/" {
			return true, ctx.Err()
		}
	}
	return false, ctx.Err()
}
