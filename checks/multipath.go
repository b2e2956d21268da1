package checks

import (
	"context"

	"github.com/diskdoctor/diskdoctor/probes/block"
	"github.com/diskdoctor/diskdoctor/probes/multipath"
)

func init() {
	Register(Check{Name: "multipath", Description: "device-mapper multipath maps: how many of each map's paths carry I/O and which are down (multipath -ll), asked only where the inventory found a map", Run: multipathCheck})
}

// multipathCheck records each map the inventory found (a dm device whose
// UUID is mpath-…) as one pool observation named by the map's alias: how
// many of its paths multipath -ll shows up and which are down. A map
// whose paths fail one by one keeps serving I/O through the last one, so
// nothing but this listing says its redundancy is gone (multipathd(8):
// the daemon "is in charge of checking for failed paths").
func multipathCheck(ctx context.Context, env *Env) []*Observation {
	devs, _ := env.Devices(ctx)
	var order []*block.Multipath
	seen := map[string]bool{}
	for _, d := range devs {
		if m := d.Multipath; m != nil && !seen[m.Map] {
			seen[m.Map] = true
			order = append(order, m)
		}
	}
	if len(order) == 0 {
		return nil
	}
	maps, err := Probe(ctx, env, func(ctx context.Context) ([]*multipath.Map, error) {
		v, _, err := multipath.Read(ctx, env.Host)
		return v, err
	})
	if err != nil {
		// The paths' states are unknown, never "all up".
		env.Skip("multipath", "", err)
		return nil
	}
	byDM, byName := map[string]*multipath.Map{}, map[string]*multipath.Map{}
	for _, m := range maps {
		if m.DM != "" {
			byDM[m.DM] = m
		}
		byName[m.Name] = m
	}
	queueing := multipathQueueing(ctx, env, maps)
	cmd := argvString(multipath.Argv())
	out := make([]*Observation, 0, len(order))
	for _, im := range order {
		name := im.Name
		if name == "" {
			name = im.Map
		}
		o := NewObservation("multipath", KindPool, name)
		out = append(out, o)
		o.Set("multipath_dm", im.Map)
		m := byDM[im.Map]
		if m == nil {
			m = byName[name]
		}
		if m == nil {
			// Not in the listing (removed between the two reads, or
			// blacklisted since): its paths are unknown.
			o.Set("multipath_wwid", nil)
			o.Set("multipath_paths_total", nil)
			o.Set("multipath_paths_active", nil)
			o.Set("multipath_failed_paths", nil)
			o.Set("multipath_reinstatable_paths", nil)
			o.Set("multipath_queue_if_no_path", nil)
			o.Set("multipath_queueing", nil)
			continue
		}
		active := 0
		var failed, reinstatable []string
		// Evidence is one line of the listing each (a line a report can
		// quote): the map's header, then its path lines.
		head := Evidence{cmd, m.Lines[0]}
		whole, failedEv := []Evidence{head}, []Evidence{head}
		for i := range m.Paths {
			p := &m.Paths[i]
			whole = append(whole, Evidence{cmd, p.Line})
			switch {
			case p.Active():
				active++
			case p.Down():
				failed = append(failed, p.Name())
				failedEv = append(failedEv, Evidence{cmd, p.Line})
				// The kernel still fails a path the checker finds up
				// again: multipathd reinstates it on its next check,
				// and "reinstate path" does it now (multipathd(8)).
				if p.DM == "failed" && (p.Checker == "ready" || p.Checker == "ghost") && p.Online == "running" {
					reinstatable = append(reinstatable, p.Dev)
				}
			}
		}
		o.Set("multipath_wwid", m.WWID)
		o.Set("multipath_paths_total", len(m.Paths), whole...)
		o.Set("multipath_paths_active", active, whole...)
		if len(failed) > 0 {
			o.Set("multipath_failed_paths", failed, failedEv...)
		} else {
			o.Set("multipath_failed_paths", []string{})
		}
		o.Set("multipath_reinstatable_paths", nonNil(reinstatable))
		setMultipathQueueing(o, m, queueing)
		setISCSIRecovery(ctx, env, o, m, env.DevMap(ctx))
	}
	return out
}
