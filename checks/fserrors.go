package checks

import (
	"context"
	"slices"
	"strconv"
	"strings"

	"github.com/diskdoctor/diskdoctor/probes/block"
	"github.com/diskdoctor/diskdoctor/probes/ext4"
	"github.com/diskdoctor/diskdoctor/probes/kernlog"
	"github.com/diskdoctor/diskdoctor/probes/mount"
)

func init() {
	Register(Check{Name: "fs-errors", Description: "errors an ext2/3/4 filesystem has recorded in its superblock since its last fsck (/sys/fs/ext4/<dev>/errors_count, first and last error), and the kernel log's daily error summary and \"mounting fs with errors\" warning; XFS's \"possible memory allocation deadlock\" warnings on each mounted XFS filesystem", Run: fsErrorsCheck})
}

// fsErrorsCheck observes each mounted ext2/3/4 filesystem (the ext4 driver
// mounts all three) whose error record could be read: one filesystem
// subject named by its mount point. ext4 counts every error it reports
// (ext4_error and its siblings, fs/ext4/super.c save_error_info) in the
// superblock until e2fsck clears it, so the record survives reboots: a
// filesystem that hit corruption or I/O errors once says so until it is
// checked.
func fsErrorsCheck(ctx context.Context, env *Env) []*Observation {
	mounts, err := env.Mounts(ctx)
	if err != nil {
		return nil
	}
	log, err := env.KernelLog(ctx)
	if err != nil {
		log = nil
	}
	m := env.DevMap(ctx)
	read := func(dev string) (*ext4.Errors, error) { return ext4.ReadErrors(ctx, env.Host, dev) }
	out := fsErrorsObservations(ext4Mounts(mounts, m), read, log, m)
	return append(out, xfsAllocObservations(mounts, m, log)...)
}

// ext4Mounts: one mount per ext2/3/4 filesystem (the first of its mount
// points), read-only ones too: a filesystem with errors is often
// remounted read-only.
func ext4Mounts(mounts []mount.Mount, m *block.Map) []fsMount {
	return mountsOfType(mounts, m, "ext4", "ext3", "ext2")
}

// mountsOfType: one mount per filesystem of the given types (the first of
// its mount points), by the block device it is mounted from.
func mountsOfType(mounts []mount.Mount, m *block.Map, types ...string) []fsMount {
	var out []fsMount
	seen := map[string]bool{}
	for _, mt := range mounts {
		if !slices.Contains(types, mt.FSType) {
			continue
		}
		dev := mountDevice(mt, m)
		if dev == "" {
			dev = strings.TrimPrefix(mt.Source, "/dev/")
		}
		if dev == "" || strings.Contains(dev, "/") || seen[dev] {
			continue
		}
		seen[dev] = true
		out = append(out, fsMount{Mount: mt, dev: dev, disks: m.WholeDisks(dev)})
	}
	return out
}

func fsErrorsObservations(fss []fsMount, read func(string) (*ext4.Errors, error), log *kernlog.Log, m *block.Map) []*Observation {
	logged := map[string]*kernlog.EXT4Errors{}
	for _, e := range log.EXT4ErrorInfo() {
		logged[e.Dev] = e
	}
	var out []*Observation
	for _, f := range fss {
		rec, err := read(f.dev)
		if err != nil {
			// A kernel before the record's files, or a recording
			// without them: the log alone may still tell.
			rec = nil
		}
		le := logged[f.dev]
		if rec == nil && le == nil {
			// Neither the record nor a line about it: unknown. A log
			// without a summary says little (it prints once a day, and
			// the ring buffer may have rotated past it).
			continue
		}
		o := NewObservation("fs-errors", KindFilesystem, f.MountPoint)
		o.Set("ext4_device", f.dev)
		o.Set("ext4_disks", nonNil(f.disks))
		var logEv []Evidence
		if le != nil {
			for _, l := range le.Lines {
				logEv = append(logEv, Evidence{"dmesg line " + strconv.Itoa(l.Num), l.Raw})
			}
		}
		switch {
		case rec != nil:
			dir := ext4.SysfsDir(f.dev)
			ev := append([]Evidence{{dir + "/errors_count", strconv.FormatUint(rec.Count, 10)}}, logEv...)
			o.Set("ext4_errors_count", rec.Count, ev...)
			setString(o, "ext4_first_error", ext4.Describe(rec.FirstTime, rec.FirstFunc, rec.FirstLine), Evidence{dir + "/first_error_time", strconv.FormatInt(rec.FirstTime, 10)})
			setString(o, "ext4_last_error", ext4.Describe(rec.LastTime, rec.LastFunc, rec.LastLine), Evidence{dir + "/last_error_time", strconv.FormatInt(rec.LastTime, 10)})
		case le != nil && le.HasCount:
			o.Set("ext4_errors_count", le.Count, logEv...)
			setString(o, "ext4_first_error", logTime(le.First))
			setString(o, "ext4_last_error", logTime(le.Last))
		default:
			o.Set("ext4_errors_count", nil)
			o.Set("ext4_first_error", nil)
			o.Set("ext4_last_error", nil)
		}
		switch {
		case le != nil && le.MountedWithErrors:
			o.Set("ext4_mounted_with_errors", true, logEv...)
		case log != nil:
			o.Set("ext4_mounted_with_errors", false)
		default:
			o.Set("ext4_mounted_with_errors", nil)
		}
		out = append(out, o)
	}
	return out
}

// setString sets a text fact, nil when empty (unknown).
func setString(o *Observation, fact, v string, ev ...Evidence) {
	if v == "" {
		o.Set(fact, nil)
		return
	}
	o.Set(fact, v, ev...)
}

// logTime turns the log's "1487728499: ext4_iget:4223: inode 1836929"
// into the same words as the sysfs record's.
func logTime(s string) string {
	t, rest, ok := strings.Cut(s, ": ")
	if !ok {
		return ""
	}
	n, err := strconv.ParseInt(t, 10, 64)
	if err != nil {
		return ""
	}
	d := ext4.Describe(n, "", 0)
	if d == "" {
		return ""
	}
	return d + " in " + rest
}
