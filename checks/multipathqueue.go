package checks

import (
	"context"
	"strings"

	"github.com/diskdoctor/diskdoctor/probes/multipath"
)

// multipathQueueing asks multipathd what each map does once its last path
// is gone, only when a map of the listing carries queue_if_no_path (the
// only maps that can queue). nil when none does or multipathd did not
// answer (skipped: unknown, never "it fails over").
func multipathQueueing(ctx context.Context, env *Env, maps []*multipath.Map) map[string]multipath.Queueing {
	queues := false
	for _, m := range maps {
		queues = queues || multipathQueueIfNoPath(m)
	}
	if !queues {
		return nil
	}
	qs, err := Probe(ctx, env, func(ctx context.Context) ([]multipath.Queueing, error) { return multipath.ReadQueueing(ctx, env.Host) })
	if err != nil {
		env.Skip("multipath queueing", "", withHint(err, "whether a map with queue_if_no_path queues for ever or for no_path_retry checks is multipathd's (multipathd show maps format \"%n %Q\"); multipath -ll shows the feature either way"))
		return nil
	}
	out := make(map[string]multipath.Queueing, len(qs))
	for _, q := range qs {
		out[q.Name] = q
	}
	return out
}

// multipathQueueIfNoPath: the map's features (multipath -ll) hold
// queue_if_no_path (dm-mpath's feature: I/O with no usable path waits
// instead of failing; Documentation/admin-guide/device-mapper).
func multipathQueueIfNoPath(m *multipath.Map) bool {
	return m != nil && strings.Contains(m.Features, "queue_if_no_path")
}

// setMultipathQueueing: the map's features as -ll prints them and
// multipathd's queueing value (nil when not read).
func setMultipathQueueing(o *Observation, m *multipath.Map, qs map[string]multipath.Queueing) {
	cmd := argvString(multipath.Argv())
	if m.Features != "" {
		ev := []Evidence{{cmd, m.Lines[0]}}
		for _, l := range m.Lines[1:] {
			if strings.Contains(l, "features") {
				ev = append(ev, Evidence{cmd, l})
				break
			}
		}
		o.Set("multipath_queue_if_no_path", multipathQueueIfNoPath(m), ev...)
	} else {
		o.Set("multipath_queue_if_no_path", nil)
	}
	if q, ok := qs[m.Name]; ok {
		o.Set("multipath_queueing", q.Queueing, Evidence{argvString(multipath.QueueingArgv()), q.Line})
	} else {
		o.Set("multipath_queueing", nil)
	}
}
