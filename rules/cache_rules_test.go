package rules

import (
	"strings"
	"testing"

	"github.com/diskdoctor/diskdoctor/checks"
)

// cache-layer-failed and cache-layer-writeback-dirty on facts built in the
// test: bcache's four states, the kernel log's set failure, the dirty
// share against writeback_percent, a redundant cache device, lvmcache's
// dirty blocks, and the unknowns. No public capture shows a bcache in
// "inconsistent" or above its writeback_percent: these states are proven
// here.
func TestCacheLayerRules(t *testing.T) {
	bc := func(facts map[string]any) *checks.Observation {
		o := checks.NewObservation("test", checks.KindPool, "bcache0")
		for k, v := range merged(map[string]any{"bcache_state": "clean", "bcache_cache_mode": "writethrough", "bcache_dirty_bytes": uint64(0),
			"bcache_writeback_percent": 10, "bcache_cache_set": "c1126837-e029-4d08-bad3-38ff8bc08054", "bcache_dirty_percent": 3,
			"bcache_cache_devices": []string{"sdc"}, "bcache_cache_virtual": false, "bcache_cache_failed_logged": false}, facts) {
			o.Set(k, v, checks.Evidence{Source: "/sys/block/bcache0/bcache/" + k, Value: "x"})
		}
		return o
	}
	lv := func(facts map[string]any) *checks.Observation {
		o := checks.NewObservation("test", checks.KindPool, "pwx0/pool")
		for k, v := range merged(map[string]any{"lvm_vg": "pwx0", "lvm_lv": "pool", "lvm_lv_health": "-", "lvm_lv_thin_pool": false,
			"lvm_health_status": "", "lvm_segtype": "cache", "lvm_cache_mode": "writeback", "lvm_cache_dirty_blocks": uint64(0)}, facts) {
			o.Set(k, v, checks.Evidence{Source: "lvs", Value: "x"})
		}
		return o
	}
	detached := map[string]any{"bcache_state": "no cache", "bcache_cache_set": nil, "bcache_dirty_percent": nil, "bcache_cache_devices": []string{}, "bcache_cache_virtual": nil}
	tests := []struct {
		name, rule string
		o          *checks.Observation
		want       string
	}{
		{"clean writethrough", "cache-layer-failed", bc(nil), ""},
		{"inconsistent", "cache-layer-failed", bc(map[string]any{"bcache_state": "inconsistent"}), Critical},
		{"set failed, detached", "cache-layer-failed", bc(merged(detached, map[string]any{"bcache_cache_failed_logged": true})), Critical},
		{"set failed, state unread", "cache-layer-failed", bc(map[string]any{"bcache_state": nil, "bcache_cache_failed_logged": true}), Critical},
		{"set failed earlier, attached again", "cache-layer-failed", bc(map[string]any{"bcache_cache_failed_logged": true}), ""},
		{"never had a cache", "cache-layer-failed", bc(detached), ""},
		{"detached, no log", "cache-layer-failed", bc(merged(detached, map[string]any{"bcache_cache_failed_logged": nil})), ""},
		{"unknown", "cache-layer-failed", bc(map[string]any{"bcache_state": nil, "bcache_cache_failed_logged": nil}), ""},

		{"writethrough", "cache-layer-writeback-dirty", bc(nil), ""},
		{"writeback within writeback_percent", "cache-layer-writeback-dirty", bc(map[string]any{"bcache_state": "dirty", "bcache_cache_mode": "writeback", "bcache_dirty_bytes": uint64(1288490188), "bcache_dirty_percent": 10}), ""},
		{"writeback above writeback_percent", "cache-layer-writeback-dirty", bc(map[string]any{"bcache_state": "dirty", "bcache_cache_mode": "writeback", "bcache_dirty_bytes": uint64(1288490188), "bcache_dirty_percent": 38}), Warning},
		{"above a raised writeback_percent", "cache-layer-writeback-dirty", bc(map[string]any{"bcache_state": "dirty", "bcache_cache_mode": "writeback", "bcache_dirty_bytes": uint64(1288490188), "bcache_dirty_percent": 38, "bcache_writeback_percent": 40}), ""},
		{"writeback_percent unread", "cache-layer-writeback-dirty", bc(map[string]any{"bcache_state": "dirty", "bcache_cache_mode": "writeback", "bcache_dirty_bytes": uint64(1288490188), "bcache_dirty_percent": 38, "bcache_writeback_percent": nil}), Warning},
		{"on an md mirror", "cache-layer-writeback-dirty", bc(map[string]any{"bcache_state": "dirty", "bcache_cache_mode": "writeback", "bcache_dirty_bytes": uint64(1288490188), "bcache_dirty_percent": 38, "bcache_cache_virtual": true}), Info},
		{"no dirty data", "cache-layer-writeback-dirty", bc(map[string]any{"bcache_cache_mode": "writeback", "bcache_dirty_percent": 38}), ""},
		{"share unknown", "cache-layer-writeback-dirty", bc(map[string]any{"bcache_state": "dirty", "bcache_cache_mode": "writeback", "bcache_dirty_bytes": uint64(1288490188), "bcache_dirty_percent": nil}), ""},

		{"lvmcache dirty", "cache-layer-writeback-dirty", lv(map[string]any{"lvm_cache_dirty_blocks": uint64(367)}), Warning},
		{"lvmcache clean", "cache-layer-writeback-dirty", lv(nil), ""},
		{"lvmcache writethrough", "cache-layer-writeback-dirty", lv(map[string]any{"lvm_cache_mode": "writethrough", "lvm_cache_dirty_blocks": uint64(367)}), ""},
		{"older lvs argv", "cache-layer-writeback-dirty", lv(map[string]any{"lvm_cache_mode": nil, "lvm_cache_dirty_blocks": nil}), ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var got string
			for _, f := range judge(t, tt.o) {
				if f.Rule == tt.rule {
					got = f.Severity
				}
			}
			if got != tt.want {
				t.Errorf("%s: %q, want %q", tt.rule, got, tt.want)
			}
		})
	}
}

// A failed cache set's words follow the cache mode: dirty data is lost
// only in writeback mode; writethrough held nothing the backing device
// lacked. On an lvmcache LV the expectation says nothing of bcache's
// writeback_percent.
func TestCacheLayerWordsFollowTheMode(t *testing.T) {
	for mode, lost := range map[string]bool{"writeback": true, "writethrough": false} {
		o := checks.NewObservation("test", checks.KindPool, "bcache0")
		for k, v := range map[string]any{"bcache_state": "no cache", "bcache_cache_mode": mode, "bcache_cache_failed_logged": true} {
			o.Set(k, v, checks.Evidence{Source: "x", Value: "x"})
		}
		fs := findingsOf(judge(t, o), "cache-layer-failed")
		if len(fs) != 1 {
			t.Fatalf("%s: %+v", mode, fs)
		}
		imp := fs[0].PerSubject[0].Impact
		if strings.Contains(imp, "dirty data the cache held is lost") != lost || strings.Contains(fs[0].FirstStep, "writes the cache held") != lost {
			t.Errorf("%s: impact %q, first step %q", mode, imp, fs[0].FirstStep)
		}
	}
	o := checks.NewObservation("test", checks.KindPool, "pwx0/pool")
	for k, v := range map[string]any{"lvm_vg": "pwx0", "lvm_cache_mode": "writeback", "lvm_cache_dirty_blocks": uint64(367)} {
		o.Set(k, v, checks.Evidence{Source: "lvs", Value: "x"})
	}
	fs := findingsOf(judge(t, o), "cache-layer-writeback-dirty")
	if len(fs) != 1 || strings.Contains(fs[0].PerSubject[0].Expected, "writeback_percent") {
		t.Errorf("lvmcache: %+v", fs)
	}
}
