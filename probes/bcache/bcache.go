package bcache

import (
	"context"
	"errors"
	"fmt"
	"path"
	"regexp"
	"strconv"
	"strings"

	"github.com/diskdoctor/diskdoctor/machine"
)

// MaxDevices bounds how many bcache devices are read: the kernel numbers
// them from a minor-number space of its own, and a real machine has a few.
const MaxDevices = 256

// fileLimit: every file read here is one short line (bcache's sysfs.c
// prints each with a single snprintf).
const fileLimit = 4096

// Device is one bcache device: a backing device and, while attached, the
// cache set that caches it. A field that could not be read has its Has
// flag false: unknown, not zero.
type Device struct {
	Name string // bcache0
	// Dir is the sysfs directory the values were read from.
	Dir string
	// State is the backing device's state: "no cache", "clean", "dirty"
	// or "inconsistent" (bcache.rst, state; drivers/md/bcache/sysfs.c
	// bch_cached_dev_state). "" when unread or not one of these.
	State string
	// CacheMode is the selected word of cache_mode ("writethrough
	// [writeback] writearound none").
	CacheMode string
	// DirtyBytes is dirty_data, printed by bch_hprint in powers of 1024
	// ("1.2G").
	DirtyBytes                uint64
	HasDirty                  bool
	Running, WritebackRunning bool
	HasRunning, HasWBRunning  bool
	// WritebackPercent: the share of the cache bcache keeps dirty on
	// purpose, throttling writeback below it (bcache.rst,
	// writeback_percent; default 10 in cached_dev_init).
	WritebackPercent    int
	HasWritebackPercent bool
	// Set is the attached cache set's UUID ("" when detached: the
	// bcache/cache link is gone); SetAvailablePercent its
	// cache_available_percent, the share of the cache holding no dirty
	// data (bcache.rst, "Sysfs - cache set").
	Set                 string
	SetAvailablePercent int
	HasSetAvailable     bool
	// CacheDevices are the kernel names of the cache set's cache devices
	// (its cache0, cache1, … links).
	CacheDevices []string
}

var uuidRe = regexp.MustCompile(`^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$`)

// UUID reports whether s is a cache set UUID as sysfs names it.
func UUID(s string) bool { return uuidRe.MatchString(s) }

var nameRe = regexp.MustCompile(`^bcache[0-9]{1,6}$`)

// Read lists /sys/block/bcache* and reads each device. No bcache device
// is an empty list; a device whose bcache/ directory cannot be listed is
// left out (it is being torn down).
func Read(ctx context.Context, h *machine.Host) ([]*Device, error) {
	var out []*Device
	for _, p := range h.Glob("/sys/block/bcache*") {
		name := path.Base(p)
		if !nameRe.MatchString(name) {
			continue
		}
		if len(out) >= MaxDevices {
			return out, fmt.Errorf("%w: more than %d bcache devices", machine.ErrParse, MaxDevices)
		}
		if err := ctx.Err(); err != nil {
			return nil, machine.CtxErr(err)
		}
		d, err := readDevice(ctx, h, name)
		if err != nil {
			if errors.Is(err, machine.ErrNotAvailable) {
				continue
			}
			return nil, err
		}
		out = append(out, d)
	}
	return out, nil
}

func readDevice(ctx context.Context, h *machine.Host, name string) (*Device, error) {
	dir := "/sys/block/" + name + "/bcache"
	d := &Device{Name: name, Dir: dir}
	state, err := read(ctx, h, dir+"/state")
	if err != nil && !errors.Is(err, machine.ErrNotAvailable) {
		return nil, err
	}
	if err != nil && !h.Exists(dir) {
		return nil, err
	}
	d.State = ParseState(state)
	mode, _ := read(ctx, h, dir+"/cache_mode")
	d.CacheMode = ParseMode(mode)
	if s, err := read(ctx, h, dir+"/dirty_data"); err == nil {
		d.DirtyBytes, d.HasDirty = ParseSize(s)
	}
	if s, err := read(ctx, h, dir+"/running"); err == nil {
		d.Running, d.HasRunning = parseBool(s)
	}
	if s, err := read(ctx, h, dir+"/writeback_running"); err == nil {
		d.WritebackRunning, d.HasWBRunning = parseBool(s)
	}
	if s, err := read(ctx, h, dir+"/writeback_percent"); err == nil {
		if n, err := strconv.Atoi(s); err == nil && n >= 0 && n <= 100 {
			d.WritebackPercent, d.HasWritebackPercent = n, true
		}
	}
	// bcache/cache links to the cache set's kobject, /sys/fs/bcache/<uuid>
	// (bcache_device_link, sysfs_create_link(&d->kobj, &c->kobj,
	// "cache")), while the device is attached.
	if t, err := h.Readlink(dir + "/cache"); err == nil && UUID(path.Base(t)) {
		d.Set = path.Base(t)
		readSet(ctx, h, d)
	}
	return d, nil
}

// readSet reads the cache set's share of clean space and its cache
// devices: /sys/fs/bcache/<uuid>/cacheN links to the cache device's
// bcache/ directory (/sys/block/sdc/bcache, or …/sdc/sdc1/bcache).
func readSet(ctx context.Context, h *machine.Host, d *Device) {
	sdir := "/sys/fs/bcache/" + d.Set
	if s, err := read(ctx, h, sdir+"/cache_available_percent"); err == nil {
		if n, err := strconv.Atoi(s); err == nil && n >= 0 && n <= 100 {
			d.SetAvailablePercent, d.HasSetAvailable = n, true
		}
	}
	links, err := h.LinksIn(ctx, sdir, func(n string) bool {
		rest, ok := strings.CutPrefix(n, "cache")
		_, err := strconv.Atoi(rest)
		return ok && err == nil
	})
	if err != nil {
		return
	}
	for _, l := range links {
		dev := path.Base(path.Dir(l.Target))
		if path.Base(l.Target) == "bcache" && validDevName(dev) {
			d.CacheDevices = append(d.CacheDevices, dev)
		}
	}
}

func read(ctx context.Context, h *machine.Host, p string) (string, error) {
	b, err := h.ReadFileLimit(ctx, p, fileLimit)
	return strings.TrimSpace(string(b)), err
}

// ParseState accepts the four states bch_cached_dev_state prints; anything
// else is "" (unknown).
func ParseState(s string) string {
	switch s {
	case "no cache", "clean", "dirty", "inconsistent":
		return s
	}
	return ""
}

// ParseMode returns the bracketed word of cache_mode, the selected one
// (bch_snprint_string_list); "" when none is bracketed or it is not one
// of bcache's modes.
func ParseMode(s string) string {
	for _, w := range strings.Fields(s) {
		if strings.HasPrefix(w, "[") && strings.HasSuffix(w, "]") {
			switch m := strings.Trim(w, "[]"); m {
			case "writethrough", "writeback", "writearound", "none":
				return m
			}
			return ""
		}
	}
	return ""
}

// ParseSize reads bch_hprint's output: an integer, or a number with one
// decimal and a unit of k, M, G, T, P, E, Z or Y, powers of 1024
// (drivers/md/bcache/util.c). "1.2G" is 1.2 × 2^30 bytes. A negative or
// malformed value is unknown.
func ParseSize(s string) (uint64, bool) {
	if s == "" || len(s) > 32 {
		return 0, false
	}
	mult := 1.0
	if i := strings.IndexByte("kMGTPEZY", s[len(s)-1]); i >= 0 {
		s = s[:len(s)-1]
		for j := 0; j <= i; j++ {
			mult *= 1024
		}
	}
	v, err := strconv.ParseFloat(s, 64)
	if err != nil || v < 0 || v != v || strings.ContainsAny(s, "eEnNxX+-") {
		return 0, false
	}
	b := v * mult
	if b >= 1<<63 {
		return 0, false
	}
	return uint64(b), true
}

func parseBool(s string) (bool, bool) {
	switch s {
	case "0":
		return false, true
	case "1":
		return true, true
	}
	return false, false
}

// validDevName: a kernel block device name, without a path.
func validDevName(s string) bool {
	if s == "" || len(s) > 64 || s == "." || s == ".." {
		return false
	}
	for _, c := range s {
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '-' || c == '_' || c == '.' || c == '!') {
			return false
		}
	}
	return true
}
