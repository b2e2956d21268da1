package checks

import (
	"context"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/diskdoctor/diskdoctor/probes/bcache"
	"github.com/diskdoctor/diskdoctor/probes/kernlog"
)

func init() {
	Register(Check{Name: "bcache", Description: "bcache devices: the backing device's state, cache mode and dirty data (/sys/block/bcacheN/bcache/), its cache set's clean share and cache devices (/sys/fs/bcache/<set>/), and the kernel log's cache set failures", Run: bcacheCheck})
}

// bcacheCheck observes each bcache device sysfs lists: one pool subject
// named by the device (bcache0). A machine without bcache has no
// /sys/block/bcache* and gets no observation.
func bcacheCheck(ctx context.Context, env *Env) []*Observation {
	devs, err := Probe(ctx, env, func(ctx context.Context) ([]*bcache.Device, error) {
		return bcache.Read(ctx, env.Host)
	})
	if err != nil {
		env.Skip("bcache", "", err)
	}
	if len(devs) == 0 {
		return nil
	}
	log, err := env.KernelLog(ctx)
	if err != nil {
		log = nil
	}
	return bcacheObservations(devs, log)
}

// The kernel's words for a cache set given up on and for the devices it
// cached (drivers/md/bcache/super.c): bch_cache_set_error prints "error on
// <set uuid>: <reason>, disabling caching" (older kernels split it over
// lines); bch_cached_dev_attach "Caching <backing> as bcacheN on set
// <uuid>"; conditional_stop_bcache_device names the device it keeps alive
// or stops after its set failed; cached_dev_detach_finish "Caching
// disabled for <backing>".
var (
	bcacheSetErrorRe = regexp.MustCompile(`bcache: (?:bch_cache_set_error\(\) )?error on ([0-9a-f-]{36})`)
	bcacheAttachRe   = regexp.MustCompile(`bcache: (?:bch_cached_dev_attach\(\) )?Caching (\S+) as (bcache[0-9]+) on set ([0-9a-f-]{36})`)
	bcacheStopRe     = regexp.MustCompile(`bcache: (?:conditional_stop_bcache_device\(\) )?stop_when_cache_set_failed of (bcache[0-9]+) is`)
)

// bcacheLogged is what the kernel log says about one bcache device: the
// lines that tell its cache set failed.
type bcacheLogged struct {
	failed []kernlog.Line
}

// bcacheLog reads the log for cache set failures, tied to devices by the
// attach line that named the set, or by the stop line that names the
// device itself.
func bcacheLog(log *kernlog.Log) map[string]*bcacheLogged {
	out := map[string]*bcacheLogged{}
	if log == nil {
		return out
	}
	setDevs := map[string][]string{} // set uuid → bcacheN attached to it
	failedSets := map[string][]kernlog.Line{}
	add := func(dev string, l kernlog.Line) {
		e := out[dev]
		if e == nil {
			e = &bcacheLogged{}
			out[dev] = e
		}
		if len(e.failed) < 8 {
			e.failed = append(e.failed, l)
		}
	}
	for _, l := range log.Lines {
		if !strings.Contains(l.Text, "bcache") {
			continue
		}
		if m := bcacheAttachRe.FindStringSubmatch(l.Text); m != nil && bcache.UUID(m[3]) {
			setDevs[m[3]] = append(setDevs[m[3]], m[2])
			continue
		}
		if m := bcacheSetErrorRe.FindStringSubmatch(l.Text); m != nil && bcache.UUID(m[1]) {
			failedSets[m[1]] = append(failedSets[m[1]], l)
			continue
		}
		if m := bcacheStopRe.FindStringSubmatch(l.Text); m != nil {
			add(m[1], l)
		}
	}
	for set, lines := range failedSets {
		for _, dev := range setDevs[set] {
			for _, l := range lines {
				add(dev, l)
			}
		}
	}
	for _, e := range out {
		slices.SortFunc(e.failed, func(a, b kernlog.Line) int { return a.Num - b.Num })
	}
	return out
}

func bcacheObservations(devs []*bcache.Device, log *kernlog.Log) []*Observation {
	logged := bcacheLog(log)
	var out []*Observation
	for _, d := range devs {
		o := NewObservation("bcache", KindPool, d.Name)
		ev := func(file, v string) Evidence { return Evidence{d.Dir + "/" + file, v} }
		setString(o, "bcache_state", d.State, ev("state", d.State))
		setString(o, "bcache_cache_mode", d.CacheMode, ev("cache_mode", d.CacheMode))
		if d.HasDirty {
			o.Set("bcache_dirty_bytes", d.DirtyBytes, ev("dirty_data", strconv.FormatUint(d.DirtyBytes, 10)+" bytes"))
		} else {
			o.Set("bcache_dirty_bytes", nil)
		}
		if d.HasWritebackPercent {
			o.Set("bcache_writeback_percent", d.WritebackPercent)
		} else {
			o.Set("bcache_writeback_percent", nil)
		}
		setString(o, "bcache_cache_set", d.Set)
		if d.HasSetAvailable {
			sev := Evidence{"/sys/fs/bcache/" + d.Set + "/cache_available_percent", strconv.Itoa(d.SetAvailablePercent)}
			o.Set("bcache_dirty_percent", 100-d.SetAvailablePercent, sev)
		} else {
			o.Set("bcache_dirty_percent", nil)
		}
		o.Set("bcache_cache_devices", nonNil(d.CacheDevices))
		if len(d.CacheDevices) > 0 {
			o.Set("bcache_cache_virtual", bcacheVirtualCache(d.CacheDevices))
		} else {
			o.Set("bcache_cache_virtual", nil)
		}
		switch e := logged[d.Name]; {
		case e != nil:
			var lev []Evidence
			for _, l := range e.failed {
				lev = append(lev, Evidence{"dmesg line " + strconv.Itoa(l.Num), l.Raw})
			}
			o.Set("bcache_cache_failed_logged", true, lev...)
		case log != nil:
			o.Set("bcache_cache_failed_logged", false)
		default:
			o.Set("bcache_cache_failed_logged", nil)
		}
		out = append(out, o)
	}
	return out
}

// bcacheVirtualCache: every cache device is an md array or a
// device-mapper device (a RAID1 of SSDs, an LVM volume), or there is more
// than one. Such a cache may itself be redundant, so losing one SSD need
// not lose the dirty data.
func bcacheVirtualCache(devs []string) bool {
	if len(devs) > 1 {
		return true
	}
	for _, d := range devs {
		if !strings.HasPrefix(d, "md") && !strings.HasPrefix(d, "dm-") {
			return false
		}
	}
	return true
}
