package kernlog

import (
	"regexp"
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
