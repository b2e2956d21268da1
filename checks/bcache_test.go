package checks

import (
	"testing"

	"github.com/diskdoctor/diskdoctor/probes/bcache"
	"github.com/diskdoctor/diskdoctor/probes/kernlog"
)

// The kernel log of Launchpad bug 1829563, comment 27 (Ubuntu's
// verification of the bcache I/O error path on 4.15.0-56-generic): dm-0
// cached as bcache0 on set c1126837-…, the cache device dm-1 fails a
// btree write, the set is disabled, and bcache0 is kept alive without its
// cache because it was clean.
const bcacheLaunchpadLog = `[  369.375820] bcache: register_bdev() registered backing device dm-0
[  369.395195] bcache: run_cache_set() invalidating existing data
[  369.410278] bcache: register_cache() registered cache device dm-1
[  371.393391] bcache: bch_cached_dev_attach() Caching dm-0 as bcache0 on set c1126837-e029-4d08-bad3-38ff8bc08054
[  425.656209] bcache: bch_count_io_errors() dm-1: IO error on writing btree, recovering
[  425.684837] bcache: error on c1126837-e029-4d08-bad3-38ff8bc08054: 
[  425.684840] journal io error
[  425.686537] , disabling caching
[  425.688849] Buffer I/O error on dev bcache0, logical block 2807, lost async page write
[  425.694131] bcache: conditional_stop_bcache_device() stop_when_cache_set_failed of bcache0 is "auto" and cache is clean, keep it alive.
`

func TestBcacheObservations(t *testing.T) {
	log := &kernlog.Log{Source: "dmesg", Lines: kernlog.Parse([]byte(bcacheLaunchpadLog))}
	// After the failure: bcache0 detached ("no cache", no set link), in
	// writeback; bcache1 a healthy writethrough device on another set
	// whose only cache is an md mirror.
	devs := []*bcache.Device{
		{Name: "bcache0", Dir: "/sys/block/bcache0/bcache", State: "no cache", CacheMode: "writeback", HasDirty: true},
		{Name: "bcache1", Dir: "/sys/block/bcache1/bcache", State: "clean", CacheMode: "writethrough", HasDirty: true,
			WritebackPercent: 10, HasWritebackPercent: true, Set: "0226553a-37cf-41d5-b3ce-8b1e944543a8", SetAvailablePercent: 97, HasSetAvailable: true, CacheDevices: []string{"md5"}},
	}
	obs := bcacheObservations(devs, log)
	if len(obs) != 2 {
		t.Fatalf("%d observations", len(obs))
	}
	b0, b1 := obs[0], obs[1]
	if b0.Subject != "bcache0" || b0.Kind != KindPool || b0.Get("bcache_state") != "no cache" || b0.Get("bcache_cache_failed_logged") != true ||
		b0.Get("bcache_cache_set") != nil || b0.Get("bcache_dirty_percent") != nil || b0.Get("bcache_cache_virtual") != nil || b0.Get("bcache_writeback_percent") != nil {
		t.Errorf("bcache0: %v", b0.Facts())
	}
	ev := b0.EvidenceOf("bcache_cache_failed_logged")
	if len(ev) != 2 || ev[0].Source != "dmesg line 6" || ev[1].Source != "dmesg line 10" {
		t.Errorf("bcache0 evidence %+v", ev)
	}
	if b1.Get("bcache_cache_failed_logged") != false || b1.Get("bcache_dirty_percent") != 3 || b1.Get("bcache_cache_virtual") != true ||
		b1.Get("bcache_dirty_bytes") != uint64(0) || b1.Get("bcache_writeback_percent") != 10 {
		t.Errorf("bcache1: %v", b1.Facts())
	}
	if ev := b1.EvidenceOf("bcache_dirty_percent"); len(ev) != 1 || ev[0].Source != "/sys/fs/bcache/0226553a-37cf-41d5-b3ce-8b1e944543a8/cache_available_percent" || ev[0].Value != "97" {
		t.Errorf("bcache1 evidence %+v", ev)
	}
	// No log: unknown, never "no failure".
	if o := bcacheObservations(devs[:1], nil)[0]; o.Get("bcache_cache_failed_logged") != nil {
		t.Errorf("without a log: %v", o.Get("bcache_cache_failed_logged"))
	}
	// A failure of another set is not pinned on a device of this one.
	other := &kernlog.Log{Lines: kernlog.Parse([]byte("[ 1.0] bcache: bch_cached_dev_attach() Caching sdb1 as bcache1 on set 0226553a-37cf-41d5-b3ce-8b1e944543a8\n[ 2.0] bcache: bch_cache_set_error() error on c1126837-e029-4d08-bad3-38ff8bc08054: journal io error, disabling caching\n"))}
	if o := bcacheObservations(devs[1:], other)[0]; o.Get("bcache_cache_failed_logged") != false {
		t.Errorf("another set's failure pinned on bcache1")
	}
}

func TestBcacheVirtualCache(t *testing.T) {
	for _, tt := range []struct {
		devs []string
		want bool
	}{{[]string{"sdc"}, false}, {[]string{"nvme0n1"}, false}, {[]string{"md5"}, true}, {[]string{"dm-3"}, true}, {[]string{"sdc", "sdd"}, true}} {
		if got := bcacheVirtualCache(tt.devs); got != tt.want {
			t.Errorf("%v: %v", tt.devs, got)
		}
	}
}
