package checks

import (
	"strconv"

	"github.com/diskdoctor/diskdoctor/probes/block"
	"github.com/diskdoctor/diskdoctor/probes/kernlog"
	"github.com/diskdoctor/diskdoctor/probes/mount"
)

// maxXFSAllocEvidence bounds the warning lines kept as evidence.
const maxXFSAllocEvidence = 4

// xfsAllocObservations: XFS's "possible memory allocation deadlock"
// warnings, on each mounted XFS filesystem. XFS prints it every 100
// retries of an allocation it may not fail (fs/xfs/kmem.c, xfs_buf.c):
// the writer is stalled until memory has a free block of that size. No
// filesystem is named (xfs_err with no mount), so with several XFS
// filesystems mounted each is said to be one of them. Nothing is
// observed without a warning in the log: its absence says nothing of a
// filesystem.
func xfsAllocObservations(mounts []mount.Mount, m *block.Map, log *kernlog.Log) []*Observation {
	st := log.XFSAllocStalls()
	if st == nil {
		return nil
	}
	fss := mountsOfType(mounts, m, "xfs")
	var ev []Evidence
	for i, l := range st.Lines {
		if i == maxXFSAllocEvidence-1 && st.Last.Num != l.Num {
			break
		}
		ev = append(ev, Evidence{"dmesg line " + strconv.Itoa(l.Num), l.Raw})
	}
	if n := len(ev); n > 0 && st.Last.Num != st.Lines[n-1].Num {
		ev = append(ev, Evidence{"dmesg line " + strconv.Itoa(st.Last.Num), st.Last.Raw})
	}
	out := make([]*Observation, 0, len(fss))
	for _, f := range fss {
		o := NewObservation("fs-errors", KindFilesystem, f.MountPoint)
		o.Set("xfs_device", f.dev, Evidence{mountinfoSource, f.Source + " " + f.MountPoint + " xfs"})
		o.Set("xfs_alloc_stalls", st.Count, ev...)
		if st.MaxSize > 0 {
			o.Set("xfs_alloc_stall_bytes", st.MaxSize)
		} else {
			o.Set("xfs_alloc_stall_bytes", nil)
		}
		o.Set("xfs_filesystems", len(fss))
		out = append(out, o)
	}
	return out
}
