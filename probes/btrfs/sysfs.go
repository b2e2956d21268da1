package btrfs

import (
	"context"
	"errors"
	"fmt"
	"regexp"
	"strconv"
	"strings"

	"github.com/diskdoctor/diskdoctor/machine"
)

// SysfsRoot is where the kernel lists each btrfs filesystem it knows, by
// UUID (fs/btrfs/sysfs.c; Documentation/ABI/testing/sysfs-fs-btrfs).
const SysfsRoot = "/sys/fs/btrfs"

var uuidRe = regexp.MustCompile(`^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$`)

// Sysfs is what /sys/fs/btrfs/<UUID>/ says of a mounted filesystem. A file
// that could not be read leaves its Has flag false: unknown, not healthy.
type Sysfs struct {
	UUID string
	// Devices are the kernel names of the block devices the filesystem
	// has open (devices/: one link each, sda1, dm-3).
	Devices []string
	// DevInfo is devinfo/<devid>/ (Linux 5.9 and later), by devid.
	DevInfo []DevInfo
	// Profiles are the block group profiles of each type,
	// allocation/<type>/<profile>/ ("data": ["raid5"]).
	Profiles map[string][]string
	// MetaTotal and MetaUsed are allocation/metadata/{total_bytes,
	// bytes_used}: the metadata block groups' size and use.
	MetaTotal, MetaUsed uint64
	HasMeta             bool
	// ExclusiveOp is exclusive_operation (5.10 and later): none, balance,
	// balance paused, device add, device remove, device replace, resize,
	// swap activate.
	ExclusiveOp    string
	HasExclusiveOp bool
	// Quota: qgroups/ exists (created when quotas are enabled, removed
	// when disabled: btrfs_sysfs_add_qgroups) and, where the kernel has
	// it, qgroups/enabled is 1. Subvolumes counts the level-0 qgroups
	// (qgroups/0_<id>/): one per subvolume and snapshot.
	Quota, HasQuota bool
	Subvolumes      int
}

// DevInfo is devinfo/<devid>/.
type DevInfo struct {
	ID         uint64
	Missing    bool
	HasMissing bool
	// Stats are error_stats (5.14 and later): nil when absent or
	// "invalid".
	Stats *DevStats
}

// UUIDs lists the filesystems under SysfsRoot. A machine without btrfs
// loaded has none (ErrNotAvailable).
func UUIDs(ctx context.Context, h *machine.Host) ([]string, error) {
	ents, err := h.ReadDir(ctx, SysfsRoot)
	if err != nil {
		return nil, err
	}
	var out []string
	for _, e := range ents {
		if uuidRe.MatchString(e.Name()) && len(out) < MaxDevices {
			out = append(out, e.Name())
		}
	}
	return out, nil
}

// ReadSysfs reads /sys/fs/btrfs/<uuid>/. Only a missing directory is an
// error; each file missing leaves its fact unknown.
func ReadSysfs(ctx context.Context, h *machine.Host, uuid string) (*Sysfs, error) {
	if !uuidRe.MatchString(uuid) {
		return nil, fmt.Errorf("%w: %q is not a btrfs UUID", machine.ErrNotAvailable, uuid)
	}
	dir := SysfsRoot + "/" + uuid
	ents, err := h.ReadDir(ctx, dir+"/devices")
	if err != nil {
		return nil, err
	}
	s := &Sysfs{UUID: uuid, Profiles: map[string][]string{}}
	for _, e := range ents {
		if validDevName(e.Name()) && len(s.Devices) < MaxDevices {
			s.Devices = append(s.Devices, e.Name())
		}
	}
	if ids, err := h.ReadDir(ctx, dir+"/devinfo"); err == nil {
		for _, e := range ids {
			id, err := strconv.ParseUint(e.Name(), 10, 64)
			if err != nil || len(s.DevInfo) >= MaxDevices {
				continue
			}
			di := DevInfo{ID: id}
			p := dir + "/devinfo/" + e.Name()
			if v, err := h.ReadString(ctx, p+"/missing"); err == nil && (v == "0" || v == "1") {
				di.Missing, di.HasMissing = v == "1", true
			}
			if b, err := h.ReadFile(ctx, p+"/error_stats"); err == nil {
				di.Stats = ParseErrorStats(b)
			}
			s.DevInfo = append(s.DevInfo, di)
		}
	}
	for _, typ := range []string{"data", "metadata", "system", "mixed"} {
		pents, err := h.ReadDir(ctx, dir+"/allocation/"+typ)
		if err != nil {
			continue
		}
		for _, e := range pents {
			if profiles[e.Name()] && e.IsDir() {
				s.Profiles[typ] = append(s.Profiles[typ], e.Name())
			}
		}
	}
	total, terr := readUint(ctx, h, dir+"/allocation/metadata/total_bytes")
	used, uerr := readUint(ctx, h, dir+"/allocation/metadata/bytes_used")
	if terr == nil && uerr == nil {
		s.MetaTotal, s.MetaUsed, s.HasMeta = total, used, true
	}
	if v, err := h.ReadString(ctx, dir+"/exclusive_operation"); err == nil && printable(v) && len(v) < 64 {
		s.ExclusiveOp, s.HasExclusiveOp = v, true
	}
	switch q, err := h.ReadDir(ctx, dir+"/qgroups"); {
	case err == nil:
		s.Quota, s.HasQuota = true, true
		if v, err := h.ReadString(ctx, dir+"/qgroups/enabled"); err == nil && v == "0" {
			s.Quota = false
		}
		for _, e := range q {
			if strings.HasPrefix(e.Name(), "0_") && e.IsDir() {
				s.Subvolumes++
			}
		}
	case errors.Is(err, machine.ErrNotAvailable) && len(s.Devices) > 0:
		// The filesystem's directory is there and qgroups/ is not:
		// quotas are off.
		s.HasQuota = true
	}
	return s, nil
}

// profiles are the names of allocation/<type>/<profile>/ (fs/btrfs/
// volumes.c btrfs_raid_array raid_name).
var profiles = map[string]bool{"single": true, "dup": true, "raid0": true, "raid1": true, "raid1c3": true, "raid1c4": true, "raid10": true, "raid5": true, "raid6": true}

// ParseErrorStats reads devinfo/<id>/error_stats ("write_errs 0\n…");
// nil for "invalid" (the counters could not be read at mount) or anything
// without all five counters.
func ParseErrorStats(b []byte) *DevStats {
	s := &DevStats{}
	seen := 0
	for _, l := range lines(b) {
		k, v, ok := strings.Cut(strings.TrimSpace(l), " ")
		if !ok {
			continue
		}
		n, err := strconv.ParseUint(strings.TrimSpace(v), 10, 64)
		if err != nil {
			continue
		}
		switch k {
		case "write_errs":
			s.Write = n
		case "read_errs":
			s.Read = n
		case "flush_errs":
			s.Flush = n
		case "corruption_errs":
			s.Corrupt = n
		case "generation_errs":
			s.Generation = n
		default:
			continue
		}
		seen++
		s.Lines = append(s.Lines, strings.TrimSpace(l))
	}
	if seen != 5 {
		return nil
	}
	return s
}

func readUint(ctx context.Context, h *machine.Host, p string) (uint64, error) {
	v, err := h.ReadString(ctx, p)
	if err != nil {
		return 0, err
	}
	n, err := strconv.ParseUint(v, 10, 64)
	if err != nil {
		return 0, fmt.Errorf("%w: %s: %q", machine.ErrParse, p, v)
	}
	return n, nil
}

// validDevName: a kernel block device name (no slash, no dots only, no
// control characters).
func validDevName(s string) bool {
	if s == "" || len(s) > 255 || s == "." || s == ".." || strings.ContainsRune(s, '/') {
		return false
	}
	return printable(s)
}
