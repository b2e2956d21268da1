package checks

import (
	"context"
	"fmt"
	"strconv"
	"strings"

	"github.com/diskdoctor/diskdoctor/machine"
	"github.com/diskdoctor/diskdoctor/probes/block"
	"github.com/diskdoctor/diskdoctor/probes/md"
)

func init() {
	Register(Check{Name: "md", Description: "Linux software RAID (/proc/mdstat): degraded arrays, failed members, resync/recovery/check in progress, members mapped to disks", Run: mdCheck})
}

func mdCheck(ctx context.Context, env *Env) []*Observation {
	arrays, err := env.MDStat(ctx)
	if err != nil || len(arrays) == 0 {
		return nil
	}
	devs, _ := env.Devices(ctx)
	sysfs := make(map[string]md.Sysfs, len(arrays))
	for _, a := range arrays {
		s, err := Probe(ctx, env, func(ctx context.Context) (md.Sysfs, error) { return md.ReadSysfs(ctx, env.Host, a.Name) })
		switch {
		case err != nil:
			env.Skip("md sysfs", a.Name, err)
		case s.MismatchCnt == nil && mdChecks(a):
			env.Skip("md sysfs", a.Name, withHint(fmt.Errorf("%s: %w", md.SysfsPath(a.Name, "mismatch_cnt"), machine.ErrNotAvailable),
				"the array's mismatch count after a check is in /sys/block/<md>/md/mismatch_cnt (md.rst); a recording without it leaves the count unknown, not zero"))
		}
		sysfs[a.Name] = s
	}
	return MDObservationsWith(arrays, devs, func(d *block.Device) bool { return env.IsJudged(d) }, sysfs)
}

// mdChecks: md runs check and repair passes (and counts mismatches) on
// the redundant levels (md.rst: sync_action); not on raid0, linear or a
// container.
func mdChecks(a md.Array) bool {
	switch a.Level {
	case "raid1", "raid4", "raid5", "raid6", "raid10":
		return !a.Container
	}
	return false
}

// MDObservations is one observation per array and one per judged disk that
// holds a member. devs may be empty (an mdstat read on its own): members are
// then named, but mapped to no disk. What sysfs says (mismatch_cnt, the
// sync actions) is unknown (nil): MDObservationsWith gives it.
func MDObservations(arrays []md.Array, devs []*block.Device, judged func(*block.Device) bool) []*Observation {
	return MDObservationsWith(arrays, devs, judged, nil)
}

// MDObservationsWith is MDObservations with each array's md/ sysfs
// files, by array name (an array not in sysfs: its facts nil).
func MDObservationsWith(arrays []md.Array, devs []*block.Device, judged func(*block.Device) bool, sysfs map[string]md.Sysfs) []*Observation {
	// Component names in mdstat are kernel names (sdb1, nvme0n1p2, sdc).
	mm := &mdMembership{owner: map[string]*block.Device{}, memberOf: map[string][]string{}, rebuilding: map[string][]string{}, redundant: map[string]bool{}}
	for _, d := range devs {
		mm.owner[d.Name] = d
		for _, p := range d.Partitions {
			mm.owner[p.Name] = d
		}
	}
	const src = "/proc/mdstat"
	inside := mdContainers(arrays)
	var out []*Observation
	for _, a := range arrays {
		if _, ok := inside[a.Name]; ok && !a.Container {
			// Named by an array inside it: a container whatever its
			// own line says (md.rst: external metadata).
			a.Container, a.Degraded = true, false
		}
		if a.Container {
			a.Level = "container"
		}
		o := NewObservation("md", KindPool, a.Name)
		out = append(out, o)
		ev := Evidence{src, strings.Join(a.Lines, " | ")}
		o.Set("md_array", a.Name)
		o.Set("md_level", a.Level)
		setMDMetadata(o, a, inside[a.Name], ev)
		o.Set("md_state", a.State, ev)
		o.Set("md_disks", a.Disks)
		o.Set("md_active", a.Active)
		o.Set("md_degraded", a.Degraded, ev)
		failed, spares, members, disks := mm.add(a)
		o.Set("md_members", nonNil(members))
		o.Set("md_member_devices", nonNil(disks))
		o.Set("md_failed_members", nonNil(failed))
		o.Set("md_spares", nonNil(spares))
		o.Set("md_missing", a.Disks-a.Active)
		o.Set("md_no_redundancy", mdNoRedundancy(a))
		o.Set("md_action", a.Action)
		// Down: md assembled the members but does not run the array
		// (too few to start, or left for an explicit --run); no I/O
		// reaches it. A container is always "inactive" (md runs no
		// personality on it; mdadm(8) CONTAINER): it is not down.
		o.Set("md_inactive", a.State == "inactive" && !a.Container, ev)
		o.Set("md_read_only", a.ReadOnly)
		o.Set("md_sync_waiting", a.SyncWaiting)
		setMDSync(o, a, ev)
		setMDSysfs(o, a.Name, sysfs[a.Name])
		setMDStalled(o, a, sysfs[a.Name])
		setMDStripeCache(o, a, sysfs[a.Name], mm)
	}
	for _, name := range mm.order {
		d := mm.owner[name]
		if d == nil || !judged(d) {
			continue
		}
		o := NewObservation("md", KindDevice, name)
		o.Set("md_member_of", mm.memberOf[name])
		o.Set("md_member_redundant", mm.redundant[name])
		o.Set("md_member_rebuilding", nonNil(mm.rebuilding[name]))
		out = append(out, o)
	}
	return out
}

// mdMembership maps the arrays' members to the disks that hold them.
type mdMembership struct {
	owner    map[string]*block.Device // by disk and partition name
	memberOf map[string][]string      // by disk: "md0 (sdb1 of raid1)"
	order    []string                 // the disks, as first met
	// redundant: a disk holds a member of an array with redundancy;
	// rebuilding: by disk, its arrays that rewrite members now
	// ("md0 recovery 12.6%").
	redundant  map[string]bool
	rebuilding map[string][]string
}

// mdRedundant are the levels that survive a lost member (md(4)); linear
// and raid0 have no redundancy, so there is no rebuild.
var mdRedundant = map[string]bool{"raid1": true, "raid4": true, "raid5": true, "raid6": true, "raid10": true}

// mdRewriting are the sync actions that write to members for hours:
// recovery onto a new or re-added member, a resync after an unclean
// stop, a reshape (md(4), "sync_action"); check and repair mostly read.
var mdRewriting = map[string]bool{"recovery": true, "resync": true, "reshape": true}

// add maps one array's members: the failed ones, the spares, all of them,
// and the disks that hold them.
func (mm *mdMembership) add(a md.Array) (failed, spares, members, disks []string) {
	for _, m := range a.Members {
		switch {
		case m.Faulty:
			failed = append(failed, m.Name)
		case m.Spare:
			spares = append(spares, m.Name)
		}
		members = append(members, m.Name)
		d := mm.owner[m.Name]
		if d == nil {
			continue
		}
		if !contains(disks, d.Name) {
			disks = append(disks, d.Name)
		}
		if _, ok := mm.memberOf[d.Name]; !ok {
			mm.order = append(mm.order, d.Name)
		}
		mm.memberOf[d.Name] = append(mm.memberOf[d.Name], fmt.Sprintf("%s (%s of %s)", a.Name, m.Name, a.Level))
		if mdRedundant[a.Level] {
			mm.redundant[d.Name] = true
			if mdRewriting[a.Action] && a.SyncWaiting == "" {
				mm.rebuilding[d.Name] = appendUniq(mm.rebuilding[d.Name], fmt.Sprintf("%s %s %.1f%%", a.Name, a.Action, a.SyncPercent))
			}
		}
	}
	return failed, spares, members, disks
}

// setMDSync: a resync, recovery, check or reshape in progress, as mdstat's
// progress line gives it (speed in K/sec, finish in minutes).
func setMDSync(o *Observation, a md.Array, ev Evidence) {
	if a.Action != "" && a.SyncWaiting == "" {
		o.Set("md_sync_percent", a.SyncPercent, ev)
		o.Set("md_sync_speed_mbs", round(a.SyncSpeedKBs*1024/1e6, 1))
		o.Set("md_sync_finish_min", round(a.SyncFinish, 1))
		return
	}
	o.Set("md_sync_percent", nil)
	o.Set("md_sync_speed_mbs", nil)
	o.Set("md_sync_finish_min", nil)
}

// mdStallDays is how long a pass may have to go, at mdstat's rate, before
// it is called stalled. mdstat's finish is what remains over the rate of
// the last few seconds (md.c status_resync). Unhindered, a pass runs at
// what the members sustain (tens to hundreds of MB/s: hours to a few days
// for any disk made); md slows it for competing I/O down to
// speed_limit_min, 1,000 K/sec by default (md.rst; md.c md_do_sync waits
// only while the pass is faster than that), where a 4 TB member takes
// 46 days. A month or more to go means the pass runs at that floor or
// below: held back by competing I/O, a reshape waiting on its backup
// file, a member retrying; it will not end in a time that protects the
// array, and waiting for it is not a plan.
const mdStallDays = 30

// setMDStalled: whether the running pass makes headway. Stalled when
// md/sync_action says frozen (md.rst: no sync may start or go on), when
// mdstat shows no speed, or when its estimate is beyond mdStallDays;
// nil when no pass runs (nothing to judge).
func setMDStalled(o *Observation, a md.Array, s md.Sysfs) {
	if a.Action == "" || a.SyncWaiting != "" {
		o.Set("md_sync_stalled", nil)
		o.Set("md_sync_stalled_why", "")
		return
	}
	// A figure mdstat did not print is unknown, not zero.
	lines := strings.Join(a.Lines, " ")
	why := ""
	switch {
	case s.SyncAction != nil && *s.SyncAction == "frozen":
		why = "md/sync_action is frozen: md does not go on with the pass"
	case strings.Contains(lines, "speed=") && a.SyncSpeedKBs <= 0:
		why = "mdstat shows speed 0: no progress in md's last measuring window"
	case strings.Contains(lines, "finish=") && a.SyncFinish > mdStallDays*24*60:
		why = fmt.Sprintf("%.0f days to go at %.0f K/sec (mdstat's finish=%.1fmin)", a.SyncFinish/(24*60), a.SyncSpeedKBs, a.SyncFinish)
	}
	o.Set("md_sync_stalled", why != "")
	o.Set("md_sync_stalled_why", why)
}

// mdContainers maps each container named by an array inside it
// ("super external:/md127/0") to those arrays, in mdstat's order.
func mdContainers(arrays []md.Array) map[string][]string {
	out := map[string][]string{}
	for _, a := range arrays {
		if a.ContainerOf != "" {
			out[a.ContainerOf] = append(out[a.ContainerOf], a.Name)
		}
	}
	return out
}

// setMDMetadata: the metadata format, and whether the array is an
// external-metadata container (IMSM, DDF) or lives in one. A container
// holds the metadata of the arrays inside it, not data: the arrays are
// what is judged.
func setMDMetadata(o *Observation, a md.Array, inside []string, ev Evidence) {
	if a.Metadata != "" {
		o.Set("md_metadata", a.Metadata, ev)
	} else {
		o.Set("md_metadata", nil)
	}
	o.Set("md_container", a.Container, ev)
	o.Set("md_container_arrays", nonNil(inside))
	if a.ContainerOf != "" {
		o.Set("md_container_of", a.ContainerOf, ev)
	} else {
		o.Set("md_container_of", nil)
	}
}

// setMDSysfs: the mismatch count of the last check or repair and the
// sync actions, from /sys/block/<md>/md/ (nil when not read).
func setMDSysfs(o *Observation, array string, s md.Sysfs) {
	if s.MismatchCnt != nil {
		o.Set("md_mismatch_cnt", *s.MismatchCnt, Evidence{md.SysfsPath(array, "mismatch_cnt"), strconv.FormatInt(*s.MismatchCnt, 10)})
	} else {
		o.Set("md_mismatch_cnt", nil)
	}
	for _, f := range []struct {
		fact, file string
		v          *string
	}{{"md_sync_action", "sync_action", s.SyncAction}, {"md_last_sync_action", "last_sync_action", s.LastSyncAction}} {
		if f.v != nil {
			o.Set(f.fact, *f.v, Evidence{md.SysfsPath(array, f.file), *f.v})
		} else {
			o.Set(f.fact, nil)
		}
	}
}

// mdNoRedundancy: a degraded array that one more failure takes down (a
// RAID1 down to one member, RAID4/5 missing one, RAID6 missing two; md(4)
// RAID levels); false while redundancy is left or the array is complete,
// nil for RAID10, whose margin depends on which members are missing.
func mdNoRedundancy(a md.Array) any {
	if !a.Degraded {
		return false
	}
	missing := a.Disks - a.Active
	switch a.Level {
	case "raid1":
		return a.Active <= 1
	case "raid4", "raid5":
		return missing >= 1
	case "raid6":
		return missing >= 2
	}
	return nil
}
