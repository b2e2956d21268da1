package checks

import (
	"context"
	"slices"
	"strconv"

	"github.com/diskdoctor/diskdoctor/probes/block"
	"github.com/diskdoctor/diskdoctor/probes/btrfs"
	"github.com/diskdoctor/diskdoctor/probes/kernlog"
)

func init() {
	Register(Check{Name: "btrfs", Description: "mounted btrfs filesystems, once per UUID at the first mount point (btrfs filesystem show, filesystem usage -b, device stats, scrub status, balance status; /sys/fs/btrfs/<UUID>/): unallocated space, missing devices and degraded mounts, scrub/balance/replace in progress, RAID5/6 profiles, quotas; and each device's persistent error counters (device stats, else the kernel log's last printed ones) on the disk beneath it", Run: btrfsCheck})
}

// btrfsCheck observes each mounted btrfs filesystem, and puts each btrfs
// device's error counters on the judged disk beneath it: as btrfs device
// stats (or sysfs error_stats) reads them now where it answered, else as
// the kernel log last printed them. btrfs prints them at mount only when
// one is not zero (fs/btrfs/volumes.c, btrfs_dev_stat_print_on_load), so
// a disk with neither gets no device observation: its counters are
// unknown, not zero.
func btrfsCheck(ctx context.Context, env *Env) []*Observation {
	log, err := env.KernelLog(ctx)
	if err != nil {
		log = nil
	}
	m := env.DevMap(ctx)
	var fss []*btrfsFS
	if mounts, err := env.Mounts(ctx); err == nil {
		fss = btrfsFilesystems(ctx, env, mounts, m)
	}
	errs := btrfsLogErrs(log.BTRFSDeviceStats())
	for _, f := range fss {
		errs = mergeDevErrs(errs, btrfsCmdErrs(f, env))
	}
	judged := map[string]bool{}
	for _, d := range env.Judged(ctx) {
		judged[d.Name] = true
	}
	out := btrfsMemberFacts(btrfsObservations(errs, m, judged), fss, m, judged)
	return append(out, btrfsFSObservations(fss, m, log)...)
}

// devErrs is one btrfs device's five counters and where they were read.
type devErrs struct {
	dev                         string // kernel name, or as the log names it
	wr, rd, flush, corrupt, gen uint64
	ev                          []Evidence
	current                     bool // read now (device stats, sysfs), not from the log
}

func btrfsLogErrs(stats []*kernlog.BTRFSDevStats) []*devErrs {
	var out []*devErrs
	for _, s := range stats {
		out = append(out, &devErrs{dev: s.Dev, wr: s.Write, rd: s.Read, flush: s.Flush, corrupt: s.Corrupt, gen: s.Generation,
			ev: []Evidence{{"dmesg line " + strconv.Itoa(s.Line.Num), s.Line.Raw}}})
	}
	return out
}

// btrfsCmdErrs are a filesystem's counters read now: btrfs device stats,
// else sysfs devinfo/<id>/error_stats with btrfs filesystem show naming
// each devid's device.
func btrfsCmdErrs(f *btrfsFS, env *Env) []*devErrs {
	dmNames := map[string]string{}
	if devs, _ := env.Devices(env.run); devs != nil {
		for _, d := range devs {
			if d.Udev != nil {
				if n := d.Udev.Prop("DM_NAME"); n != "" {
					dmNames[n] = d.Name
				}
			}
		}
	}
	var out []*devErrs
	if len(f.stats) > 0 {
		cmd := argvString(btrfs.StatsArgv(f.mnt()))
		for _, s := range f.stats {
			n := btrfsKernelName(s.Path, dmNames)
			if n == "" {
				continue // a missing device ("devid:2"): no disk to put it on
			}
			e := &devErrs{dev: n, wr: s.Write, rd: s.Read, flush: s.Flush, corrupt: s.Corrupt, gen: s.Generation, current: true}
			for _, l := range s.Lines {
				e.ev = append(e.ev, Evidence{cmd, l})
			}
			out = append(out, e)
		}
		return out
	}
	if f.sys == nil || f.show == nil {
		return nil
	}
	for _, di := range f.sys.DevInfo {
		if di.Stats == nil {
			continue
		}
		for _, d := range f.show.Devices {
			if d.ID != di.ID || d.Missing {
				continue
			}
			n := btrfsKernelName(d.Path, dmNames)
			if n == "" {
				continue
			}
			s := di.Stats
			p := btrfs.SysfsRoot + "/" + f.uuid + "/devinfo/" + strconv.FormatUint(di.ID, 10) + "/error_stats"
			e := &devErrs{dev: n, wr: s.Write, rd: s.Read, flush: s.Flush, corrupt: s.Corrupt, gen: s.Generation, current: true}
			for _, l := range s.Lines {
				e.ev = append(e.ev, Evidence{p, l})
			}
			out = append(out, e)
		}
	}
	return out
}

// mergeDevErrs puts the counters read now in place of the log's for the
// same device (they are the same counters, the log's possibly older or
// since reset), keeping the log's line as evidence beside them: one
// finding per device, evidence from both.
func mergeDevErrs(logged, now []*devErrs) []*devErrs {
	for _, n := range now {
		i := slices.IndexFunc(logged, func(e *devErrs) bool { return e.dev == n.dev && !e.current })
		if i < 0 {
			logged = append(logged, n)
			continue
		}
		n.ev = append(n.ev, logged[i].ev...)
		logged[i] = n
	}
	return logged
}

func btrfsObservations(errs []*devErrs, m *block.Map, judged map[string]bool) []*Observation {
	type sum struct {
		wr, rd, flush, corrupt, gen uint64
		devs                        []string
		ev                          []Evidence
	}
	by := map[string]*sum{}
	var order []string
	for _, s := range errs {
		for _, disk := range m.WholeDisks(s.dev) {
			if !judged[disk] {
				continue
			}
			t := by[disk]
			if t == nil {
				t = &sum{}
				by[disk] = t
				order = append(order, disk)
			}
			t.wr += s.wr
			t.rd += s.rd
			t.flush += s.flush
			t.corrupt += s.corrupt
			t.gen += s.gen
			if !slices.Contains(t.devs, s.dev) {
				t.devs = append(t.devs, s.dev)
			}
			t.ev = append(t.ev, s.ev...)
		}
	}
	var out []*Observation
	for _, disk := range order {
		t := by[disk]
		o := NewObservation("btrfs", KindDevice, disk)
		o.Set("btrfs_dev_errs", t.wr+t.rd+t.flush+t.corrupt+t.gen, t.ev...)
		o.Set("btrfs_dev_write_errs", t.wr)
		o.Set("btrfs_dev_read_errs", t.rd)
		o.Set("btrfs_dev_flush_errs", t.flush)
		o.Set("btrfs_dev_corruption_errs", t.corrupt)
		o.Set("btrfs_dev_generation_errs", t.gen)
		o.Set("btrfs_dev_names", t.devs)
		out = append(out, o)
	}
	return out
}
