package kernlog

import (
	"regexp"
	"slices"
	"strconv"
	"strings"
)

// BTRFSDevStats is btrfs's persistent error counters of one device as the
// log last printed them: btrfs_dev_stat_print_on_load at mount ("BTRFS
// info (device sdb1): bdev /dev/sda1 errs: wr 0, rd 0, flush 0, corrupt
// 135630, gen 0", printed only when a counter is not zero) and
// btrfs_dev_stat_inc_and_print when one grows ("BTRFS error …"), fs/btrfs/
// volumes.c, 3.x–6.x. The counters are the device's since they were last
// reset (btrfs device stats -z), kept on disk across mounts; they belong
// to the bdev named, not to the device in parentheses, which is only the
// one btrfs names the whole filesystem by.
type BTRFSDevStats struct {
	Dev                                     string // the bdev as named: sda1, nvme0n1p5, dm-3 or a mapper name
	Write, Read, Flush, Corrupt, Generation uint64
	Line                                    Line // the last line that printed them
}

var btrfsDevStatsMsg = regexp.MustCompile(`^BTRFS (?:info|warning|error|critical) \(device [\w.-]+(?::? state \w+)?\): bdev /dev/(?:mapper/)?([\w.-]+) errs: wr (\d+), rd (\d+), flush (\d+), corrupt (\d+), gen (\d+)`)

// BTRFSDeviceStats finds each device's last printed counters, in the
// order the devices first appear.
func (k *Log) BTRFSDeviceStats() []*BTRFSDevStats {
	if k == nil {
		return nil
	}
	var out []*BTRFSDevStats
	by := map[string]*BTRFSDevStats{}
	for _, l := range k.Lines {
		if !strings.Contains(l.Text, " errs: wr ") {
			continue
		}
		m := btrfsDevStatsMsg.FindStringSubmatch(l.Text)
		if m == nil || len(m[1]) > 255 {
			continue
		}
		var n [5]uint64
		ok := true
		for i := range n {
			v, err := strconv.ParseUint(m[2+i], 10, 64)
			if err != nil {
				ok = false
				break
			}
			n[i] = v
		}
		if !ok {
			continue
		}
		s := by[m[1]]
		if s == nil {
			s = &BTRFSDevStats{Dev: m[1]}
			by[s.Dev] = s
			out = append(out, s)
		}
		s.Write, s.Read, s.Flush, s.Corrupt, s.Generation = n[0], n[1], n[2], n[3], n[4]
		s.Line = l
	}
	return out
}

// BTRFSEvents is what the log says of one btrfs filesystem, named as the
// kernel names it in its messages: "(device X)", one member (btrfs_printk,
// fs/btrfs/messages.c; super.c before 6.2).
type BTRFSEvents struct {
	Device string
	// Missing are the "devid N uuid U is missing" lines (read_one_dev,
	// fs/btrfs/volumes.c, at a degraded mount) and "allowing degraded
	// mounts" (btrfs_parse_options / btrfs_check_options); MissingIDs
	// the devids named.
	Missing    []Line
	MissingIDs []string
	// ENOSPC are errors that carry -28 (errno=-28 No space left, a
	// transaction aborted with -28): the filesystem could not allocate.
	ENOSPC []Line
}

// maxBTRFSLines bounds the lines kept per filesystem and kind.
const maxBTRFSLines = 8

var (
	btrfsDevOf      = regexp.MustCompile(`^BTRFS(?::? (?:info|warning|error|critical|notice|emerg|alert|err))? \(device ([\w.-]+)(?::? state \w+)?\)`)
	btrfsDevMissing = regexp.MustCompile(`: devid (\d+) uuid [0-9a-fA-F-]+ is missing`)
)

// BTRFSFilesystemEvents finds, per filesystem as the log names it, its
// missing-device and ENOSPC lines, in the order the names first appear.
func (k *Log) BTRFSFilesystemEvents() []*BTRFSEvents {
	if k == nil {
		return nil
	}
	var out []*BTRFSEvents
	by := map[string]*BTRFSEvents{}
	for _, l := range k.Lines {
		if !strings.HasPrefix(l.Text, "BTRFS") {
			continue
		}
		missing := btrfsDevMissing.FindStringSubmatch(l.Text)
		degraded := strings.Contains(l.Text, "allowing degraded mounts")
		enospc := strings.Contains(l.Text, "errno=-28") || strings.Contains(l.Text, "(error -28)")
		if missing == nil && !degraded && !enospc {
			continue
		}
		m := btrfsDevOf.FindStringSubmatch(l.Text)
		if m == nil || len(m[1]) > 255 {
			continue
		}
		e := by[m[1]]
		if e == nil {
			e = &BTRFSEvents{Device: m[1]}
			by[e.Device] = e
			out = append(out, e)
		}
		switch {
		case enospc:
			if len(e.ENOSPC) < maxBTRFSLines {
				e.ENOSPC = append(e.ENOSPC, l)
			}
		default:
			if len(e.Missing) < maxBTRFSLines {
				e.Missing = append(e.Missing, l)
			}
			if missing != nil && !slices.Contains(e.MissingIDs, missing[1]) && len(e.MissingIDs) < maxBTRFSLines {
				e.MissingIDs = append(e.MissingIDs, missing[1])
			}
		}
	}
	return out
}

// BTRFSHungTasks are the hung-task reports whose stack waits in btrfs
// (btrfs_* frames or the [btrfs] module): a transaction commit, a
// qgroup rescan or a snapshot delete holding everyone else. At most
// maxBTRFSLines, with their first lines.
func (k *Log) BTRFSHungTasks() (tasks []string, at []Line) {
	if k == nil {
		return nil, nil
	}
	for i, l := range k.Lines {
		if !strings.Contains(l.Text, "blocked for more than") {
			continue
		}
		m := hungTaskMsg.FindStringSubmatch(l.Text)
		if m == nil || !btrfsStack(k.Lines[i+1:]) {
			continue
		}
		if len(tasks) < maxBTRFSLines {
			tasks = append(tasks, m[1])
			at = append(at, l)
		}
	}
	return tasks, at
}

// btrfsStack: the stack after a hung-task report names btrfs. It ends at
// the next hung-task report.
func btrfsStack(after []Line) bool {
	for i, l := range after {
		if i >= maxTraceLines || strings.HasPrefix(l.Text, "INFO: task ") {
			return false
		}
		if strings.Contains(l.Text, "btrfs_") || strings.Contains(l.Text, "[btrfs]") {
			return true
		}
	}
	return false
}
