// Package ext4 reads what the kernel keeps about an ext4 filesystem's
// recorded errors (/sys/fs/ext4/<dev>/, fs/ext4/sysfs.c) and whether the
// ext4lazyinit kernel thread, which zeroes inode tables mkfs left for
// later, is running.
package ext4

import (
	"bytes"
	"context"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/diskdoctor/diskdoctor/machine"
)

// Errors is /sys/fs/ext4/<dev>/'s error record, kept in the superblock
// until e2fsck clears it: errors_count, and the first and last error's
// time (seconds since the epoch, 0 for none), function and line
// (first_error_func and its siblings, Linux 5.10 and later).
type Errors struct {
	Dev                 string
	Count               uint64
	FirstTime, LastTime int64
	FirstFunc, LastFunc string
	FirstLine, LastLine uint64
}

// SysfsDir is the filesystem's directory, named by its block device
// (sb->s_id: sda1, dm-0, mmcblk0p2).
func SysfsDir(dev string) string { return "/sys/fs/ext4/" + dev }

// ReadErrors reads the error record of the ext4 filesystem on dev. Only
// errors_count is required: the others are kept when present.
func ReadErrors(ctx context.Context, h *machine.Host, dev string) (*Errors, error) {
	if dev == "" || strings.ContainsAny(dev, "/\x00") || dev == "." || dev == ".." {
		return nil, fmt.Errorf("%w: %q is no device name", machine.ErrNotAvailable, dev)
	}
	dir := SysfsDir(dev)
	s, err := h.ReadString(ctx, dir+"/errors_count")
	if err != nil {
		return nil, err
	}
	n, err := strconv.ParseUint(s, 10, 32)
	if err != nil {
		return nil, fmt.Errorf("%w: %s/errors_count: %q", machine.ErrParse, dir, s)
	}
	e := &Errors{Dev: dev, Count: n}
	e.FirstTime = readInt(ctx, h, dir+"/first_error_time")
	e.LastTime = readInt(ctx, h, dir+"/last_error_time")
	e.FirstFunc = readFunc(ctx, h, dir+"/first_error_func")
	e.LastFunc = readFunc(ctx, h, dir+"/last_error_func")
	e.FirstLine = uint64(readInt(ctx, h, dir+"/first_error_line"))
	e.LastLine = uint64(readInt(ctx, h, dir+"/last_error_line"))
	return e, nil
}

func readInt(ctx context.Context, h *machine.Host, p string) int64 {
	s, err := h.ReadString(ctx, p)
	if err != nil {
		return 0
	}
	n, err := strconv.ParseInt(s, 10, 64)
	if err != nil || n < 0 {
		return 0
	}
	return n
}

// readFunc is a kernel function name (at most 32 characters in the
// superblock, s_first_error_func), "" for anything else.
func readFunc(ctx context.Context, h *machine.Host, p string) string {
	s, err := h.ReadString(ctx, p)
	if err != nil || len(s) > 32 {
		return ""
	}
	for _, c := range s {
		if !(c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9') {
			return ""
		}
	}
	return s
}

// Describe is one error as "2017-02-22 01:54:59 UTC in ext4_iget:4223",
// "" without a time.
func Describe(t int64, fn string, line uint64) string {
	if t <= 0 {
		return ""
	}
	s := time.Unix(t, 0).UTC().Format("2006-01-02 15:04:05 UTC")
	if fn != "" {
		s += " in " + fn
		if line > 0 {
			s += ":" + strconv.FormatUint(line, 10)
		}
	}
	return s
}

// LazyinitComm is the kernel thread's name (fs/ext4/super.c,
// ext4_run_lazyinit_thread: kthread_run(ext4_lazyinit_thread, ...,
// "ext4lazyinit")). It exists only while some mounted filesystem has
// inode tables left to zero, and exits when none has.
const LazyinitComm = "ext4lazyinit"

// Lazyinit says whether the thread runs: its PID, or 0 when none of the
// comm files read names it. Known is false when no comm file could be
// read, or only a recording's partial set of them: unknown, not idle. The
// kernel threads are kthreadd's children (/proc/2/task/2/children, with
// CONFIG_PROC_CHILDREN); without that file every process is looked at.
type Lazyinit struct {
	PID   int
	Known bool
	Path  string // the comm file that names it
}

// maxPIDs bounds the processes looked at: pid_max is at most 4194304
// (PID_MAX_LIMIT) but a machine runs far fewer; a recording is not
// trusted.
const maxPIDs = 1 << 16

// FindLazyinit looks for the thread.
func FindLazyinit(ctx context.Context, h *machine.Host) (*Lazyinit, error) {
	var pids []string
	// Every process is a complete list only on the live machine: a
	// recording holds the comm files some probe happened to read (the
	// sampling window's, of processes that did I/O), and a thread missing
	// from it is unknown, not absent.
	complete := h.IsLive()
	if b, err := h.ReadFileLimit(ctx, "/proc/2/task/2/children", 1<<20); err == nil {
		pids = strings.Fields(string(b))
		complete = true
	} else {
		ents, err := h.ReadDir(ctx, "/proc")
		if err != nil {
			return nil, err
		}
		for _, e := range ents {
			pids = append(pids, e.Name())
		}
	}
	l := &Lazyinit{}
	for i, p := range pids {
		if i >= maxPIDs {
			break
		}
		pid, err := strconv.Atoi(p)
		if err != nil || pid <= 0 {
			continue
		}
		if err := ctx.Err(); err != nil {
			return nil, machine.CtxErr(err)
		}
		path := "/proc/" + p + "/comm"
		b, err := h.ReadFileLimit(ctx, path, 256)
		if err != nil {
			continue // gone since the listing, or not recorded
		}
		l.Known = complete
		if string(bytes.TrimSuffix(b, []byte("\n"))) == LazyinitComm {
			l.PID, l.Path, l.Known = pid, path, true
			return l, nil
		}
	}
	return l, nil
}
