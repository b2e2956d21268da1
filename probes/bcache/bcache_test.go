package bcache

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/diskdoctor/diskdoctor/machine"
)

// bch_hprint's forms (drivers/md/bcache/util.c): a bare integer below
// 1024, else one decimal and a unit in powers of 1024; the values are
// those bcache.rst and the telegraf bcache plugin's request show
// ("3.4T", "520.0k", "456.0M").
// 1.2 G and 3.4 T as ParseSize computes them (float64, truncated).
var (
	f12, f34 = 1.2, 3.4
	gib12    = uint64(f12 * (1 << 30))
	tib34    = uint64(f34 * (1 << 40))
)

func TestParseSize(t *testing.T) {
	for in, want := range map[string]uint64{
		"0":      0,
		"1036":   1036,
		"520.0k": 520 * 1024,
		"456.0M": 456 << 20,
		"1.2G":   gib12,
		"3.4T":   tib34,
	} {
		if got, ok := ParseSize(in); !ok || got != want {
			t.Errorf("%q: %d %v, want %d", in, got, ok, want)
		}
	}
	for _, bad := range []string{"", "-1.1k", "k", "1e9", "NaN", "Inf", "0x10", "1.2Q", "99999999999999999999Y"} {
		if got, ok := ParseSize(bad); ok {
			t.Errorf("%q read as %d", bad, got)
		}
	}
}

func TestParseModeAndState(t *testing.T) {
	for in, want := range map[string]string{
		"writethrough [writeback] writearound none": "writeback",
		"[writethrough] writeback writearound none": "writethrough",
		"writethrough writeback writearound [none]": "none",
		"writethrough writeback":                    "",
		"[evil\x1b[0m]":                             "",
	} {
		if got := ParseMode(in); got != want {
			t.Errorf("mode %q: %q, want %q", in, got, want)
		}
	}
	for _, s := range []string{"no cache", "clean", "dirty", "inconsistent"} {
		if ParseState(s) != s {
			t.Errorf("state %q refused", s)
		}
	}
	if ParseState("stale") != "" || ParseState("dirty\n\x07") != "" {
		t.Error("unknown state accepted")
	}
}

// A recorded machine with two bcache devices laid out as the kernel does:
// /sys/block/bcacheN/bcache a link to the backing device's bcache/
// directory, its cache link to /sys/fs/bcache/<set>, the set's cache0
// link to the cache device's bcache/ directory. bcache0 is attached in
// writeback with 1.2G dirty; bcache1 runs without a cache (no link).
func TestRead(t *testing.T) {
	dir := t.TempDir()
	set := "c1126837-e029-4d08-bad3-38ff8bc08054"
	files := map[string]string{
		"sys/block/sdb/sdb1/bcache/state":                   "dirty\n",
		"sys/block/sdb/sdb1/bcache/cache_mode":              "writethrough [writeback] writearound none\n",
		"sys/block/sdb/sdb1/bcache/dirty_data":              "1.2G\n",
		"sys/block/sdb/sdb1/bcache/running":                 "1\n",
		"sys/block/sdb/sdb1/bcache/writeback_running":       "1\n",
		"sys/block/sdb/sdb1/bcache/writeback_percent":       "10\n",
		"sys/block/sdd/bcache/state":                        "no cache\n",
		"sys/block/sdd/bcache/cache_mode":                   "[writethrough] writeback writearound none\n",
		"sys/block/sdd/bcache/dirty_data":                   "0\n",
		"sys/block/sdc/bcache/nbuckets":                     "953869\n",
		"sys/fs/bcache/" + set + "/cache_available_percent": "62\n",
	}
	for p, v := range files {
		full := filepath.Join(dir, p)
		if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(full, []byte(v), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	links := map[string]string{
		"sys/block/bcache0/bcache":         "../sdb/sdb1/bcache",
		"sys/block/bcache1/bcache":         "../sdd/bcache",
		"sys/block/sdb/sdb1/bcache/cache":  "../../../../fs/bcache/" + set,
		"sys/fs/bcache/" + set + "/cache0": "../../../block/sdc/bcache",
		"sys/block/bcache2x":               "../sdd",
	}
	for p, target := range links {
		full := filepath.Join(dir, p)
		if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.Symlink(target, full); err != nil {
			t.Fatal(err)
		}
	}
	h, err := machine.Recorded(dir)
	if err != nil {
		t.Fatal(err)
	}
	devs, err := Read(context.Background(), h)
	if err != nil {
		t.Fatal(err)
	}
	if len(devs) != 2 {
		t.Fatalf("%d devices, want bcache0 and bcache1", len(devs))
	}
	b0, b1 := devs[0], devs[1]
	if b0.Name != "bcache0" || b0.State != "dirty" || b0.CacheMode != "writeback" || !b0.HasDirty || b0.DirtyBytes != gib12 ||
		!b0.Running || !b0.WritebackRunning || b0.WritebackPercent != 10 || b0.Set != set || !b0.HasSetAvailable || b0.SetAvailablePercent != 62 ||
		len(b0.CacheDevices) != 1 || b0.CacheDevices[0] != "sdc" {
		t.Errorf("bcache0: %+v", b0)
	}
	if b1.Name != "bcache1" || b1.State != "no cache" || b1.CacheMode != "writethrough" || b1.Set != "" || b1.HasSetAvailable || b1.HasRunning || b1.HasWritebackPercent {
		t.Errorf("bcache1: %+v", b1)
	}
}
