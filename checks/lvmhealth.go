package checks

import (
	"strings"

	"github.com/diskdoctor/diskdoctor/probes/lvm"
)

// lvHealthObservations gives every LV the lvs report lists (thin pools
// too: their subject is the same vg/lv) its health: lv_attr's ninth
// character (lvs(8), "Volume Health": (p)artial, (r)efresh needed,
// (m)ismatches exist, (w)ritemostly; a thin pool's (F)ailed, out of
// (D)ata space, (M)etadata read only; a writecache's (E)rror; X unknown)
// and lvm's own words for it, lv_health_status, with the segment type
// and a cache's mode and dirty blocks. A report without the newer fields
// (a recording of the older argv) leaves them nil: unknown, never
// healthy; the attribute is still read.
func lvHealthObservations(lvs []*lvm.LV, cmd string) []*Observation {
	var out []*Observation
	for _, lv := range lvs {
		if strings.HasPrefix(lv.Name, "[") {
			continue // a hidden sub-LV: its LV carries its health
		}
		o := NewObservation("lvm", KindPool, lv.FullName())
		ev := Evidence{cmd, lv.Raw}
		o.Set("lvm_vg", lv.VG)
		o.Set("lvm_lv", lv.Name)
		o.Set("lvm_lv_health", lv.Health(), ev)
		o.Set("lvm_lv_thin_pool", lv.ThinPool())
		setWord(o, "lvm_health_status", lv.HealthStatus, lv.HasHealth, ev)
		setWord(o, "lvm_segtype", lv.SegType, lv.HasSegType)
		setWord(o, "lvm_cache_mode", lv.CacheMode, lv.HasCache)
		if lv.HasDirty {
			o.Set("lvm_cache_dirty_blocks", lv.CacheDirtyBlocks)
		} else {
			o.Set("lvm_cache_dirty_blocks", nil)
		}
		out = append(out, o)
	}
	return out
}

// setWord sets a word of the report, nil when the report lacks the field.
func setWord(o *Observation, fact, v string, ok bool, ev ...Evidence) {
	if !ok {
		o.Set(fact, nil)
		return
	}
	o.Set(fact, v, ev...)
}
