package checks

import (
	"context"
	"fmt"
	"strings"

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
	return MDObservations(arrays, devs, func(d *block.Device) bool { return env.IsJudged(d) })
}

// MDObservations is one observation per array and one per judged disk that
// holds a member. devs may be empty (an mdstat read on its own): members are
// then named, but mapped to no disk.
func MDObservations(arrays []md.Array, devs []*block.Device, judged func(*block.Device) bool) []*Observation {
	// Component names in mdstat are kernel names (sdb1, nvme0n1p2, sdc).
	mm := &mdMembership{owner: map[string]*block.Device{}, memberOf: map[string][]string{}, rebuilding: map[string][]string{}, redundant: map[string]bool{}}
	for _, d := range devs {
		mm.owner[d.Name] = d
		for _, p := range d.Partitions {
			mm.owner[p.Name] = d
		}
	}
	const src = "/proc/mdstat"
	var out []*Observation
	for _, a := range arrays {
		o := NewObservation("md", KindPool, a.Name)
		out = append(out, o)
		ev := Evidence{src, strings.Join(a.Lines, " | ")}
		o.Set("md_array", a.Name)
		o.Set("md_level", a.Level)
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
		o.Set("md_action", a.Action)
		// Down: md assembled the members but does not run the array
		// (too few to start, or left for an explicit --run); no I/O
		// reaches it.
		o.Set("md_inactive", a.State == "inactive", ev)
		o.Set("md_read_only", a.ReadOnly)
		o.Set("md_sync_waiting", a.SyncWaiting)
		setMDSync(o, a, ev)
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
