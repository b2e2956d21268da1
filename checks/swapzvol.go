package checks

import (
	"context"
	"io/fs"
	"path"
	"slices"
	"strings"

	"github.com/diskdoctor/diskdoctor/probes/block"
)

// Bounds of the walk of /dev/zvol: pools hold datasets in directories,
// each volume a link (udev's 60-zvol.rules, zvol_id).
const (
	maxZvolDepth   = 8
	maxZvolEntries = 4096
)

// zvolSwapDisks: the whole disks a swap area on a ZFS volume writes to,
// those of the volume's pool: the leaf vdevs of zpool status, resolved as
// the zfs check resolves them, else the disks whose udev record labels a
// partition (or the disk) zfs_member of that pool. nil when the pool or
// its disks are not known.
func zvolSwapDisks(ctx context.Context, env *Env, devs []*block.Device, filename string) []string {
	pool := zvolPool(ctx, env, filename)
	if pool == "" {
		return nil
	}
	seen := map[string]bool{}
	var out []string
	add := func(name string) {
		if !seen[name] {
			seen[name] = true
			out = append(out, name)
		}
	}
	if st, err := env.ZpoolStatus(ctx); err == nil {
		ix := newMemberIndex(devs)
		for _, p := range st.Pools {
			if p.Name != pool {
				continue
			}
			for _, v := range p.Leaves() {
				if v.Class == "spares" {
					continue
				}
				if d, _ := ix.resolve(env, v.Name); d != nil {
					add(d.Name)
				}
			}
		}
	}
	for _, d := range devs {
		if slices.Contains(zfsPools(d), pool) {
			add(d.Name)
		}
	}
	return out
}

// zvolPool is the pool of a zvol swap area: the first component under
// /dev/zvol/ when /proc/swaps names the link, else the pool directory of
// /dev/zvol whose link points to the zd device it names (the kernel
// prints /dev/zd<N>; udev links /dev/zvol/<pool>/<dataset…>/<volume> to
// it). "" when none does.
func zvolPool(ctx context.Context, env *Env, filename string) string {
	if rest, ok := strings.CutPrefix(filename, "/dev/zvol/"); ok {
		pool, _, _ := strings.Cut(rest, "/")
		return pool
	}
	want := path.Base(filename)
	pools, err := env.Host.ReadDir(ctx, "/dev/zvol")
	if err != nil {
		return ""
	}
	entries := 0
	var walk func(dir string, depth int) bool
	walk = func(dir string, depth int) bool {
		ents, err := env.Host.ReadDir(ctx, dir)
		if err != nil || depth > maxZvolDepth {
			return false
		}
		for _, e := range ents {
			if entries++; entries > maxZvolEntries {
				return false
			}
			p := dir + "/" + e.Name()
			switch {
			case e.Type()&fs.ModeSymlink != 0:
				if t, err := env.Host.Readlink(p); err == nil && path.Base(t) == want {
					return true
				}
			case e.IsDir():
				if walk(p, depth+1) {
					return true
				}
			}
		}
		return false
	}
	for _, p := range pools {
		if p.IsDir() && walk("/dev/zvol/"+p.Name(), 1) {
			return p.Name()
		}
	}
	return ""
}
