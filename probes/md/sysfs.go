package md

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/diskdoctor/diskdoctor/machine"
)

// Sysfs is what /sys/block/<md>/md/ says about an array beyond
// /proc/mdstat (kernel Documentation/admin-guide/md.rst, "md devices in
// sysfs"). A field the machine does not have is nil.
type Sysfs struct {
	// MismatchCnt is md/mismatch_cnt: the sectors a "check" or "repair"
	// (and possibly a "resync") found to differ between the copies or
	// against parity, counted afresh by each such pass.
	MismatchCnt *int64
	// SyncAction is md/sync_action (idle, resync, recover, check,
	// repair, reshape, frozen); LastSyncAction md/last_sync_action, the
	// pass MismatchCnt belongs to (Linux 3.15 and later).
	SyncAction, LastSyncAction *string
	// StripeCacheSize is md/stripe_cache_size: the stripe cache of a
	// raid4/5/6 array in pages per member device (md.rst; raid5.c
	// NR_STRIPES, 256 by default). A level without one has no file.
	StripeCacheSize *int64
}

// File names under /sys/block/<md>/md/.
const (
	fileMismatch   = "mismatch_cnt"
	fileSyncAction = "sync_action"
	fileLastSync   = "last_sync_action"
	fileStripe     = "stripe_cache_size"
)

// SysfsPath is the path of one of the array's md/ files.
func SysfsPath(array, file string) string { return "/sys/block/" + array + "/md/" + file }

// ReadSysfs reads the array's mismatch count, sync actions and stripe
// cache size. A file the
// kernel does not have (an older kernel, a level without a sync thread:
// raid0, linear, containers) is nil, not an error; a file that exists but
// does not parse is an error (ErrParse) and its field nil.
func ReadSysfs(ctx context.Context, h *machine.Host, array string) (Sysfs, error) {
	var s Sysfs
	var errs []error
	read := func(file string) (string, bool) {
		v, err := h.ReadString(ctx, SysfsPath(array, file))
		switch {
		case err == nil:
			return v, true
		case !errors.Is(err, machine.ErrNotAvailable):
			errs = append(errs, err)
		}
		return "", false
	}
	if v, ok := read(fileMismatch); ok {
		n, err := ParseCount(v)
		if err != nil {
			errs = append(errs, fmt.Errorf("%s: %w", SysfsPath(array, fileMismatch), err))
		} else {
			s.MismatchCnt = &n
		}
	}
	if v, ok := read(fileSyncAction); ok && v != "" {
		s.SyncAction = &v
	}
	if v, ok := read(fileLastSync); ok && v != "" {
		s.LastSyncAction = &v
	}
	if v, ok := read(fileStripe); ok {
		n, err := ParseCount(v)
		if err != nil {
			errs = append(errs, fmt.Errorf("%s: %w", SysfsPath(array, fileStripe), err))
		} else {
			s.StripeCacheSize = &n
		}
	}
	return s, errors.Join(errs...)
}

// ParseCount parses a sysfs counter (a non-negative decimal).
func ParseCount(v string) (int64, error) {
	n, err := strconv.ParseInt(strings.TrimSpace(v), 10, 64)
	if err != nil || n < 0 {
		return 0, fmt.Errorf("%w: counter %q", machine.ErrParse, v)
	}
	return n, nil
}

// Metadata is the array's metadata format as /proc/mdstat prints it after
// "super" ("1.2", "external:imsm", "external:/md127/0"; drivers/md/md.c
// md_seq_show prints "super external:<type>" for external metadata, and
// Documentation/admin-guide/md.rst metadata_version "external:" names).
// "" when the line has none (0.90 arrays print no "super").
func Metadata(lines []string) string {
	for _, l := range lines {
		f := strings.Fields(l)
		for i := 0; i+1 < len(f); i++ {
			if f[i] == "super" {
				return f[i+1]
			}
		}
	}
	return ""
}

// Container reports whether the metadata names an external-metadata
// container (external:imsm, external:ddf): a set of disks carrying one
// metadata area that mdadm and mdmon manage, which md keeps "inactive"
// by design and which holds no data itself (mdadm(8), CONTAINER). The
// arrays inside it say "external:/<container>/<n>" (or "external:-…"
// while mdmon does not yet manage them).
func Container(meta string) bool {
	t, ok := strings.CutPrefix(meta, "external:")
	return ok && t != "" && t[0] != '/' && t[0] != '-'
}

// ContainerOf names the container an array inside one lives in
// ("external:/md127/0" is in md127), "" for any other array.
func ContainerOf(meta string) string {
	t, ok := strings.CutPrefix(meta, "external:")
	if !ok || t == "" || (t[0] != '/' && t[0] != '-') {
		return ""
	}
	name, _, _ := strings.Cut(t[1:], "/")
	return name
}
