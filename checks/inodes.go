package checks

import (
	"context"
	"math"

	"github.com/diskdoctor/diskdoctor/probes/mount"
)

func init() {
	Register(Check{Name: "inodes", Description: "each writable disk filesystem's inodes (df -P -T -i -l): a filesystem can refuse new files with blocks to spare", Run: inodesCheck})
}

// inodesCheck observes the inode use of each writable disk filesystem
// (the filesystems check's judgedMounts: one line per device), one
// filesystem subject named by its mount point. ext2/3/4 fix their inode
// count at mkfs (mke2fs(8) -i, -N): once every inode is taken, creating a
// file fails with ENOSPC however many blocks are free. A filesystem that
// reports no inode count (btrfs, vfat: statfs f_files 0, df's "-") has no
// such limit and gets no observation.
func inodesCheck(ctx context.Context, env *Env) []*Observation {
	mounts, err := env.Mounts(ctx)
	if err != nil {
		return nil // the mount table's own skipped entry says why
	}
	fss := judgedMounts(mounts, env.DevMap(ctx))
	if len(fss) == 0 {
		return nil
	}
	rows, err := Probe(ctx, env, func(ctx context.Context) ([]mount.Inodes, error) { return mount.ReadDFInodes(ctx, env.Host) })
	if err != nil {
		// The same entry as the block df's when both are missing or
		// unrecorded: one program, one reason.
		env.Skip("df", "", err)
		return nil
	}
	return inodeObservations(fss, rows)
}

// inodeObservations: one observation for each judged filesystem that df
// lists with an inode count.
func inodeObservations(fss []fsMount, rows []mount.Inodes) []*Observation {
	byMount := make(map[string]mount.Inodes, len(rows))
	for _, r := range rows {
		if _, dup := byMount[r.MountPoint]; !dup {
			byMount[r.MountPoint] = r
		}
	}
	cmd := argvString(mount.DFInodesArgv())
	var out []*Observation
	for _, f := range fss {
		r, ok := byMount[f.MountPoint]
		if !ok {
			continue
		}
		pct, ok := r.UsePercent()
		if !ok {
			continue
		}
		o := NewObservation("inodes", KindFilesystem, f.MountPoint)
		ev := Evidence{cmd, r.Line}
		o.Set("inode_fstype", f.FSType)
		o.Set("inode_device", f.dev)
		o.Set("inode_total", r.Total, ev)
		o.Set("inode_used", r.Used)
		o.Set("inode_free", r.Free)
		o.Set("inode_use_percent", math.Round(pct*10)/10, ev)
		o.Set("inode_disks", nonNil(f.disks))
		out = append(out, o)
	}
	return out
}
