package proc

import (
	"context"
	"fmt"

	"github.com/diskdoctor/diskdoctor/machine"
	"github.com/diskdoctor/diskdoctor/probes/mount"
)

// FilesOn says whether a process has an open file (or its working
// directory) on one of these devices ("major:minor", as st_dev of the
// file). Live machine only: a recording holds no open files, so there the
// answer is an ErrNotAvailable error.
func FilesOn(ctx context.Context, h *machine.Host, pid int, devNos map[string]bool) (bool, error) {
	if !h.IsLive() {
		return false, fmt.Errorf("/proc/%d/fd: %w (recorded machine)", pid, machine.ErrNotAvailable)
	}
	dir := fmt.Sprintf("/proc/%d/fd", pid)
	ents, err := h.ReadDir(ctx, dir)
	if err != nil {
		return false, err
	}
	paths := []string{fmt.Sprintf("/proc/%d/cwd", pid)}
	for _, e := range ents {
		paths = append(paths, dir+"/"+e.Name())
	}
	for _, p := range paths {
		if ctx.Err() != nil {
			return false, machine.CtxErr(ctx.Err())
		}
		if st, err := h.LiveStat(p); err == nil && devNos[mount.DevNo(st.Dev)] {
			return true, nil
		}
	}
	return false, nil
}
