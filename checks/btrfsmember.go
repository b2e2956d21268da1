package checks

import (
	"strings"

	"github.com/diskdoctor/diskdoctor/probes/block"
	"github.com/diskdoctor/diskdoctor/probes/btrfs"
)

// btrfsRedundant are the block group profiles that keep copies or parity
// on more than one device (btrfs-balance(8) PROFILES; DUP keeps both
// copies on one device): a filesystem in one of them waits for every
// device it spreads a chunk over, as an md array waits for its members.
var btrfsRedundant = map[string]bool{"raid1": true, "raid1c3": true, "raid1c4": true, "raid10": true, "raid5": true, "raid6": true}

// btrfsMemberFacts says, on each judged disk beneath a mounted btrfs
// filesystem, whether that filesystem's data or metadata is redundant
// across devices, from filesystem usage's block groups, else sysfs
// allocation/<type>/<profile>. A filesystem whose profiles were read by
// neither says nothing of its disks. The facts join the disk's btrfs
// observation where it has one (its error counters).
func btrfsMemberFacts(out []*Observation, fss []*btrfsFS, m *block.Map, judged map[string]bool) []*Observation {
	byDisk := map[string]*Observation{}
	for _, o := range out {
		if o.Kind == KindDevice {
			byDisk[o.Subject] = o
		}
	}
	for _, f := range fss {
		redundant, ev, known := btrfsRedundancy(f)
		if !known {
			continue
		}
		for _, d := range f.devs {
			for _, disk := range m.WholeDisks(d) {
				if !judged[disk] {
					continue
				}
				o := byDisk[disk]
				if o == nil {
					o = NewObservation("btrfs", KindDevice, disk)
					byDisk[disk] = o
					out = append(out, o)
				}
				if prev, ok := o.Get("btrfs_member_redundant").(bool); ok && prev {
					continue // the first redundant filesystem on the disk is named
				}
				o.Set("btrfs_member_redundant", redundant, ev...)
				o.Set("btrfs_member_of", f.mnt())
			}
		}
	}
	return out
}

// btrfsRedundancy reads whether the filesystem's data or metadata profile
// is one of btrfsRedundant, with the lines that say so.
func btrfsRedundancy(f *btrfsFS) (redundant bool, ev []Evidence, known bool) {
	switch {
	case f.usage != nil && len(f.usage.Groups) > 0:
		cmd := argvString(btrfs.UsageArgv(f.mnt()))
		for _, g := range f.usage.Groups {
			if g.Type == "System" || !btrfsRedundant[strings.ToLower(g.Profile)] {
				continue
			}
			redundant = true
			ev = append(ev, Evidence{cmd, g.Line})
		}
		return redundant, ev, true
	case f.sys != nil && len(f.sys.Profiles) > 0:
		for _, typ := range []string{"data", "metadata", "mixed"} {
			for _, p := range f.sys.Profiles[typ] {
				if btrfsRedundant[p] {
					redundant = true
					ev = append(ev, Evidence{btrfs.SysfsRoot + "/" + f.uuid + "/allocation/" + typ + "/" + p, "present"})
				}
			}
		}
		return redundant, ev, true
	}
	return false, nil, false
}
