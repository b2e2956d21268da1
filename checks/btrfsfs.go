package checks

import (
	"context"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/diskdoctor/diskdoctor/probes/block"
	"github.com/diskdoctor/diskdoctor/probes/btrfs"
	"github.com/diskdoctor/diskdoctor/probes/kernlog"
	"github.com/diskdoctor/diskdoctor/probes/mount"
)

// btrfsFS is one mounted btrfs filesystem: its mounts, the devices it has
// open, and what the commands and sysfs say of it.
type btrfsFS struct {
	uuid    string // "" when neither sysfs nor btrfs filesystem show names it
	mounts  []mount.Mount
	devs    []string // kernel names of its devices (sdb1, dm-3)
	show    *btrfs.Filesystem
	sys     *btrfs.Sysfs
	usage   *btrfs.Usage
	stats   []*btrfs.DevStats
	scrub   *btrfs.Scrub
	balance *btrfs.Balance
}

func (f *btrfsFS) mnt() string { return f.mounts[0].MountPoint }

// chunkBytes is the size btrfs gives a new metadata chunk: 1 GiB on a
// filesystem over 50 GiB, 256 MiB below (fs/btrfs/volumes.c,
// init_alloc_chunk_ctl_policy_regular); data chunks are 1 GiB. A device
// with less unallocated space than that cannot take the next chunk.
func (f *btrfsFS) chunkBytes() uint64 {
	if f.usage != nil && f.usage.DeviceSize > 0 && f.usage.DeviceSize <= 50<<30 {
		return 256 << 20
	}
	return 1 << 30
}

// btrfsFilesystems groups the btrfs mounts by filesystem (sysfs's devices/
// links, else btrfs filesystem show's device paths, else the mount's
// source) and asks the commands once per filesystem, at its first mount
// point. Nothing runs on a machine without a btrfs mount.
func btrfsFilesystems(ctx context.Context, env *Env, mounts []mount.Mount, m *block.Map) []*btrfsFS {
	var bt []mount.Mount
	for _, mt := range mounts {
		// The kernel prints absolute mount points; anything else (a
		// hostile recording's "-x") is never put on a command line.
		if mt.FSType == "btrfs" && strings.HasPrefix(mt.MountPoint, "/") {
			bt = append(bt, mt)
		}
	}
	if len(bt) == 0 {
		return nil
	}
	devs, _ := env.Devices(ctx)
	dmNames := map[string]string{}
	for _, d := range devs {
		if d.Udev != nil {
			if n := d.Udev.Prop("DM_NAME"); n != "" {
				dmNames[n] = d.Name
			}
		}
	}
	kname := func(p string) string { return btrfsKernelName(p, dmNames) }

	uuidOf := map[string]string{} // kernel name -> UUID
	sysOf := map[string]*btrfs.Sysfs{}
	if uuids, err := btrfs.UUIDs(ctx, env.Host); err == nil {
		for _, u := range uuids {
			s, err := btrfs.ReadSysfs(ctx, env.Host, u)
			if err != nil {
				continue
			}
			sysOf[u] = s
			for _, d := range s.Devices {
				uuidOf[d] = u
			}
		}
	}
	showOf := map[string]*btrfs.Filesystem{}
	shown, err := Probe(ctx, env, func(ctx context.Context) ([]*btrfs.Filesystem, error) {
		b, _, err := btrfs.Run(ctx, env.Host, btrfs.ShowArgv())
		if err != nil {
			return nil, err
		}
		return btrfs.ParseShow(b)
	})
	if err != nil {
		env.Skip("btrfs", "", err)
	}
	for _, f := range shown {
		showOf[f.UUID] = f
		for _, d := range f.Devices {
			if n := kname(d.Path); n != "" && !d.Missing && uuidOf[n] == "" {
				uuidOf[n] = f.UUID
			}
		}
	}

	var out []*btrfsFS
	byKey := map[string]*btrfsFS{}
	for _, mt := range bt {
		dev := mountDevice(mt, m)
		if dev == "" {
			dev = kname(mt.Source)
		}
		key := uuidOf[dev]
		if key == "" {
			key = "source:" + mt.Source
		}
		f := byKey[key]
		if f == nil {
			f = &btrfsFS{}
			if !strings.HasPrefix(key, "source:") {
				f.uuid = key
			}
			byKey[key] = f
			out = append(out, f)
		}
		f.mounts = append(f.mounts, mt)
		if dev != "" && !slices.Contains(f.devs, dev) {
			f.devs = append(f.devs, dev)
		}
	}
	for _, f := range out {
		f.sys, f.show = sysOf[f.uuid], showOf[f.uuid]
		for n, u := range uuidOf {
			if u == f.uuid && f.uuid != "" && !slices.Contains(f.devs, n) {
				f.devs = append(f.devs, n)
			}
		}
		sortNatural(f.devs)
	}
	btrfsAsk(ctx, env, out)
	return out
}

// btrfsAsk runs the four per-filesystem commands, all filesystems and
// commands at once: a stuck filesystem holds each until the timeout, and
// asked together they wait it out once.
func btrfsAsk(ctx context.Context, env *Env, fss []*btrfsFS) {
	var fs []func()
	errs := make([][4]error, len(fss))
	for i, f := range fss {
		mnt := f.mnt()
		fs = append(fs,
			func() {
				f.usage, errs[i][0] = btrfsRun(ctx, env, btrfs.UsageArgv(mnt), btrfs.ParseUsage)
			},
			func() {
				f.stats, errs[i][1] = btrfsRun(ctx, env, btrfs.StatsArgv(mnt), btrfs.ParseStats)
			},
			func() {
				f.scrub, errs[i][2] = btrfsRun(ctx, env, btrfs.ScrubArgv(mnt), btrfs.ParseScrub)
			},
			func() {
				f.balance, errs[i][3] = btrfsRun(ctx, env, btrfs.BalanceArgv(mnt), btrfs.ParseBalance)
			})
	}
	together(fs...)
	for i, f := range fss {
		for _, err := range errs[i] {
			if err != nil {
				env.Skip("btrfs", f.mnt(), err)
			}
		}
	}
}

func btrfsRun[T any](ctx context.Context, env *Env, argv []string, parse func([]byte) (T, error)) (T, error) {
	return RunCommand(ctx, env, func(ctx context.Context) (T, error) {
		b, _, err := btrfs.Run(ctx, env.Host, argv)
		if err != nil {
			var zero T
			return zero, err
		}
		return parse(b)
	})
}

// btrfsKernelName is the kernel's name of a device path btrfs prints:
// /dev/sda1 → sda1, /dev/mapper/<name> → its dm-N; "" for anything else
// (a missing device's "<missing disk #2>").
func btrfsKernelName(p string, dmNames map[string]string) string {
	if n, ok := strings.CutPrefix(p, "/dev/mapper/"); ok {
		return dmNames[n]
	}
	n, ok := strings.CutPrefix(p, "/dev/")
	if !ok || n == "" || strings.Contains(n, "/") {
		return ""
	}
	return n
}

// btrfsFSObservations: one filesystem observation per btrfs filesystem,
// named by its first mount point.
func btrfsFSObservations(fss []*btrfsFS, m *block.Map, log *kernlog.Log) []*Observation {
	events := map[string]*kernlog.BTRFSEvents{}
	for _, e := range log.BTRFSFilesystemEvents() {
		events[e.Device] = e
	}
	hung, hungAt := log.BTRFSHungTasks()
	var out []*Observation
	for _, f := range fss {
		o := NewObservation("btrfs", KindFilesystem, f.mnt())
		out = append(out, o)
		o.Set("btrfs_uuid", f.uuid)
		var mps, disks []string
		for _, mt := range f.mounts {
			mps = append(mps, mt.MountPoint)
		}
		for _, d := range f.devs {
			for _, w := range m.WholeDisks(d) {
				if !slices.Contains(disks, w) {
					disks = append(disks, w)
				}
			}
		}
		o.Set("btrfs_mountpoints", mps)
		o.Set("btrfs_devices", nonNil(f.devs))
		o.Set("btrfs_disks", nonNil(disks))
		var fsEvents []*kernlog.BTRFSEvents
		for _, d := range f.devs {
			if e := events[d]; e != nil {
				fsEvents = append(fsEvents, e)
			}
		}
		btrfsSpaceFacts(o, f, fsEvents, log != nil)
		btrfsMissingFacts(o, f, fsEvents)
		btrfsBackgroundFacts(o, f)
		btrfsProfileFacts(o, f)
		btrfsQuotaFacts(o, f, hung, hungAt, log != nil)
	}
	return out
}

func btrfsSpaceFacts(o *Observation, f *btrfsFS, events []*kernlog.BTRFSEvents, logRead bool) {
	usageCmd := argvString(btrfs.UsageArgv(f.mnt()))
	o.Set("btrfs_chunk_bytes", f.chunkBytes())
	if f.usage != nil {
		if n, line, ok := f.usage.MaxUnallocated(); ok {
			o.Set("btrfs_unallocated_max_bytes", n, Evidence{usageCmd, line})
		} else {
			o.Set("btrfs_unallocated_max_bytes", nil)
		}
	} else {
		o.Set("btrfs_unallocated_max_bytes", nil)
	}
	if pct, ev, ok := btrfsMetadataUsed(f, usageCmd); ok {
		o.Set("btrfs_metadata_used_percent", math.Round(pct*100)/100, ev...)
	} else {
		o.Set("btrfs_metadata_used_percent", nil)
	}
	if !logRead {
		o.Set("btrfs_enospc_lines", nil)
		return
	}
	var ev []Evidence
	for _, e := range events {
		for _, l := range e.ENOSPC {
			ev = append(ev, Evidence{"dmesg line " + strconv.Itoa(l.Num), l.Raw})
		}
	}
	o.Set("btrfs_enospc_lines", len(ev), ev...)
}

// btrfsMetadataUsed: the metadata block groups' use from btrfs filesystem
// usage, else from sysfs allocation/metadata/.
func btrfsMetadataUsed(f *btrfsFS, usageCmd string) (float64, []Evidence, bool) {
	if f.usage != nil {
		if pct, lines, ok := f.usage.MetadataUsed(); ok {
			var ev []Evidence
			for _, l := range lines {
				ev = append(ev, Evidence{usageCmd, l})
			}
			return pct, ev, true
		}
	}
	if s := f.sys; s != nil && s.HasMeta && s.MetaTotal > 0 {
		p := btrfs.SysfsRoot + "/" + f.uuid + "/allocation/metadata/"
		return float64(s.MetaUsed) / float64(s.MetaTotal) * 100, []Evidence{
			{p + "bytes_used", strconv.FormatUint(s.MetaUsed, 10)},
			{p + "total_bytes", strconv.FormatUint(s.MetaTotal, 10)},
		}, true
	}
	return 0, nil, false
}

func btrfsMissingFacts(o *Observation, f *btrfsFS, events []*kernlog.BTRFSEvents) {
	var missing []string
	var ev []Evidence
	add := func(what string, e Evidence) {
		if !slices.Contains(missing, what) {
			missing = append(missing, what)
		}
		ev = append(ev, e)
	}
	if f.show != nil {
		cmd := argvString(btrfs.ShowArgv())
		for _, d := range f.show.Devices {
			if d.Missing {
				add("devid "+strconv.FormatUint(d.ID, 10), Evidence{cmd, d.Line})
			}
		}
		for _, id := range f.show.MissingIDs() {
			add("devid "+strconv.FormatUint(id, 10), Evidence{cmd, "warning, device " + strconv.FormatUint(id, 10) + " is missing"})
		}
		if f.show.Missing() && len(missing) == 0 {
			line := "*** Some devices missing"
			if !f.show.SomeMissing {
				line = fmt.Sprintf("Total devices %d, %d listed", f.show.TotalDevices, len(f.show.Devices))
			}
			add("a device", Evidence{cmd, line})
		}
	}
	if f.sys != nil {
		for _, di := range f.sys.DevInfo {
			if di.HasMissing && di.Missing {
				id := strconv.FormatUint(di.ID, 10)
				add("devid "+id, Evidence{btrfs.SysfsRoot + "/" + f.uuid + "/devinfo/" + id + "/missing", "1"})
			}
		}
	}
	for _, e := range events {
		for _, id := range e.MissingIDs {
			what := "devid " + id
			for _, l := range e.Missing {
				if strings.Contains(l.Text, "devid "+id+" ") {
					add(what, Evidence{"dmesg line " + strconv.Itoa(l.Num), l.Raw})
					break
				}
			}
		}
	}
	// "a device" says only that one is missing; a devid named elsewhere
	// says which.
	if len(missing) > 1 {
		missing = slices.DeleteFunc(missing, func(s string) bool { return s == "a device" })
	}
	if len(missing) == 0 && f.show == nil && f.sys == nil {
		// Neither progs nor sysfs could say; a log without a missing
		// line may only have rotated past the mount.
		o.Set("btrfs_missing_devices", nil)
	} else {
		o.Set("btrfs_missing_devices", nonNil(missing), ev...)
	}
	var degraded bool
	var dev []Evidence
	for _, mt := range f.mounts {
		if _, ok := mt.Options["degraded"]; ok {
			degraded = true
			dev = append(dev, Evidence{mountinfoSource, mt.MountPoint + " btrfs " + mt.Source + " degraded"})
		}
	}
	o.Set("btrfs_degraded", degraded, dev...)
}

func btrfsBackgroundFacts(o *Observation, f *btrfsFS) {
	if f.scrub == nil && f.balance == nil && (f.sys == nil || !f.sys.HasExclusiveOp) {
		o.Set("btrfs_background", nil) // nothing could say: unknown, not idle
		return
	}
	var work []string
	var ev []Evidence
	if s := f.scrub; s != nil && s.Running {
		w := "scrub"
		if s.Percent >= 0 {
			w = fmt.Sprintf("scrub (%.1f %% done)", s.Percent)
		}
		work = append(work, w)
		ev = append(ev, Evidence{argvString(btrfs.ScrubArgv(f.mnt())), s.Line})
	}
	balance := false
	if b := f.balance; b != nil && (b.Running || b.Paused) {
		balance = true
		w := "balance"
		if b.Paused {
			w = "balance (paused)"
		}
		work = append(work, w)
		line := b.Line
		if b.Progress != "" {
			line += "; " + b.Progress
		}
		ev = append(ev, Evidence{argvString(btrfs.BalanceArgv(f.mnt())), line})
	}
	if s := f.sys; s != nil && s.HasExclusiveOp {
		op := s.ExclusiveOp
		switch {
		case op == "none", op == "swap activate":
		case strings.HasPrefix(op, "balance") && balance:
		default:
			work = append(work, op)
			ev = append(ev, Evidence{btrfs.SysfsRoot + "/" + f.uuid + "/exclusive_operation", op})
		}
	}
	o.Set("btrfs_background", nonNil(work), ev...)
}

func btrfsProfileFacts(o *Observation, f *btrfsFS) {
	var raid56 []string
	var ev []Evidence
	switch {
	case f.usage != nil && len(f.usage.Groups) > 0:
		cmd := argvString(btrfs.UsageArgv(f.mnt()))
		for _, g := range f.usage.Groups {
			p := strings.ToLower(g.Profile)
			if p == "raid5" || p == "raid6" {
				raid56 = append(raid56, strings.ToLower(g.Type)+" "+p)
				ev = append(ev, Evidence{cmd, g.Line})
			}
		}
	case f.sys != nil && len(f.sys.Profiles) > 0:
		for _, typ := range []string{"data", "metadata", "system", "mixed"} {
			for _, p := range f.sys.Profiles[typ] {
				if p == "raid5" || p == "raid6" {
					raid56 = append(raid56, typ+" "+p)
					ev = append(ev, Evidence{btrfs.SysfsRoot + "/" + f.uuid + "/allocation/" + typ + "/" + p, "present"})
				}
			}
		}
	default:
		o.Set("btrfs_raid56", nil)
		return
	}
	o.Set("btrfs_raid56", nonNil(raid56), ev...)
}

func btrfsQuotaFacts(o *Observation, f *btrfsFS, hung []string, hungAt []kernlog.Line, logRead bool) {
	if f.sys == nil || !f.sys.HasQuota {
		o.Set("btrfs_quota", nil)
		o.Set("btrfs_subvolumes", nil)
	} else {
		p := btrfs.SysfsRoot + "/" + f.uuid + "/qgroups"
		if f.sys.Quota {
			o.Set("btrfs_quota", true, Evidence{p, "present (quotas enabled)"})
			o.Set("btrfs_subvolumes", f.sys.Subvolumes, Evidence{p, strconv.Itoa(f.sys.Subvolumes) + " level-0 qgroups (0_<subvolume id>)"})
		} else {
			o.Set("btrfs_quota", false)
			o.Set("btrfs_subvolumes", nil)
		}
	}
	if !logRead {
		o.Set("btrfs_hung_tasks", nil)
		return
	}
	var ev []Evidence
	for _, l := range hungAt {
		ev = append(ev, Evidence{"dmesg line " + strconv.Itoa(l.Num), l.Raw})
	}
	o.Set("btrfs_hung_tasks", nonNil(hung), ev...)
}
