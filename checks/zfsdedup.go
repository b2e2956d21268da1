package checks

import (
	"context"
	"errors"
	"strconv"

	"github.com/diskdoctor/diskdoctor/probes/system"
	"github.com/diskdoctor/diskdoctor/probes/zfs"
)

// dedupMemory is what a pool's dedup table is measured against: the
// machine's memory and the ARC's ceiling, each with its evidence (zero
// when unknown).
type dedupMemory struct {
	mem, arc     float64
	memEv, arcEv Evidence
}

// readDedupMemory reads MemTotal and the ARC's ceiling: c_max of
// arcstats (what the running module uses), else zfs_arc_max when set;
// zfs_arc_max 0 means a default that depends on the platform and release
// (zfs(4)), so it alone leaves the ceiling unknown.
func readDedupMemory(ctx context.Context, env *Env) dedupMemory {
	var dm dedupMemory
	if mem, err := system.MemTotalBytes(ctx, env.Host); err == nil && mem > 0 {
		dm.mem = float64(mem)
		dm.memEv = Evidence{"/proc/meminfo", "MemTotal: " + strconv.FormatUint(mem/1024, 10) + " kB"}
	}
	if c, err := zfs.ARCMax(ctx, env.Host); err == nil && c > 0 {
		dm.arc = float64(c)
		dm.arcEv = Evidence{"/proc/spl/kstat/zfs/arcstats", "c_max 4 " + strconv.FormatUint(c, 10)}
	} else if v, p, err := zfs.ModuleParam(ctx, env.Host, "zfs_arc_max"); err == nil && v > 0 {
		dm.arc = v
		dm.arcEv = Evidence{p, strconv.FormatFloat(v, 'f', -1, 64)}
	}
	return dm
}

// zfsDedupRun asks `zpool status -D` once zpool status answered, and gives
// each pool its dedup table facts.
type zfsDedupRun struct {
	ddt map[string]*zfs.DDT
	err error
	mem dedupMemory
}

func newZFSDedupRun(ctx context.Context, env *Env, hangs *hangLog) *zfsDedupRun {
	ddt, err := env.ZpoolDedup(ctx)
	hangs.note(zfs.DedupArgv(), err)
	r := &zfsDedupRun{ddt: ddt, err: err}
	if err == nil {
		r.mem = readDedupMemory(ctx, env)
	}
	return r
}

// dedupKeys are the pool facts of the dedup table; all nil when unknown.
var dedupKeys = []string{"zfs_ddt_entries", "zfs_ddt_in_core_bytes", "zfs_ddt_on_disk_bytes", "zfs_ddt_ram_percent", "zfs_ddt_arc_percent", "zfs_mem_total_bytes", "zfs_arc_max_bytes"}

// poolFacts records a pool's dedup table: its entries and in-core size,
// and that size as a share of memory and of the ARC's ceiling. The whole
// table is consulted on every write to a dataset with dedup on (and every
// free of a deduplicated block): where it does not fit in the ARC, each
// such write waits for table blocks read from disk (OpenZFS
// documentation, Performance and Tuning, Deduplication; zpoolconcepts(7)
// dedup). A pool missing from the output is unknown: a skipped entry.
func (r *zfsDedupRun) poolFacts(env *Env, o *Observation, pool string) {
	d := r.ddt[pool]
	if r.err != nil || d == nil {
		for _, k := range dedupKeys {
			o.Set(k, nil)
		}
		if r.err == nil {
			env.Skip("zpool-status-dedup", pool, errors.New("zpool status -D printed no dedup line for the pool"))
		}
		return
	}
	ev := Evidence{argvString(zfs.DedupArgv()), d.Line}
	o.Set("zfs_ddt_entries", d.Entries, ev)
	o.Set("zfs_ddt_in_core_bytes", d.InCore, ev)
	o.Set("zfs_ddt_on_disk_bytes", d.OnDisk, ev)
	setShare(o, "zfs_mem_total_bytes", "zfs_ddt_ram_percent", d.InCore, r.mem.mem, ev, r.mem.memEv)
	setShare(o, "zfs_arc_max_bytes", "zfs_ddt_arc_percent", d.InCore, r.mem.arc, ev, r.mem.arcEv)
}

// setShare records a total (zero: unknown, nil) and part as a percentage
// of it, each with its evidence.
func setShare(o *Observation, totalKey, shareKey string, part, total float64, partEv, totalEv Evidence) {
	if total <= 0 {
		o.Set(totalKey, nil)
		o.Set(shareKey, nil)
		return
	}
	o.Set(totalKey, total, totalEv)
	o.Set(shareKey, round(100*part/total, 1), partEv, totalEv)
}
