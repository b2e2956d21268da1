package checks

import (
	"context"
	"strconv"

	"github.com/diskdoctor/diskdoctor/probes/ext4"
)

func init() {
	Register(Check{Name: "lazyinit", Description: "whether the ext4lazyinit kernel thread (/proc/<pid>/comm) is still zeroing the inode tables mkfs left for later, and the writable ext4 filesystems it may be writing to", Run: lazyinitCheck})
}

// lazyinitCheck looks for the ext4lazyinit thread only where an ext4
// filesystem is mounted writable: the kernel starts it at such a mount
// when some block group's inode table was never zeroed (mke2fs -E
// lazy_itable_init, the default where the kernel supports it) and it
// exits once every table is (fs/ext4/super.c, ext4_register_li_request,
// ext4_lazyinit_thread). Until then it zeroes one block group's inode
// table after another on the filesystem's disks, waiting between two
// ten times as long as the last one took (ext4(5), init_itable=n).
func lazyinitCheck(ctx context.Context, env *Env) []*Observation {
	mounts, err := env.Mounts(ctx)
	if err != nil {
		return nil
	}
	var candidates, disks []string
	for _, f := range ext4Mounts(mounts, env.DevMap(ctx)) {
		if _, ro := f.Options["ro"]; ro {
			continue
		}
		if _, off := f.Options["noinit_itable"]; off {
			continue
		}
		candidates = append(candidates, f.MountPoint)
		for _, d := range f.disks {
			if !contains(disks, d) {
				disks = append(disks, d)
			}
		}
	}
	if len(candidates) == 0 {
		return nil
	}
	l, err := Probe(ctx, env, func(ctx context.Context) (*ext4.Lazyinit, error) { return ext4.FindLazyinit(ctx, env.Host) })
	o := NewObservation("lazyinit", KindHost, "host")
	o.Set("ext4_lazyinit_filesystems", candidates)
	o.Set("ext4_lazyinit_disks", nonNil(disks))
	switch {
	case err != nil || !l.Known:
		// /proc not readable, or a recording without the comm files:
		// unknown, not idle.
		o.Set("ext4_lazyinit_running", nil)
	case l.PID > 0:
		o.Set("ext4_lazyinit_running", true, Evidence{l.Path, ext4.LazyinitComm + " (pid " + strconv.Itoa(l.PID) + ")"})
	default:
		o.Set("ext4_lazyinit_running", false)
	}
	return []*Observation{o}
}
