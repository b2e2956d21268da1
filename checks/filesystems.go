package checks

import "github.com/diskdoctor/diskdoctor/probes/block"

// fstrim trims mounted filesystems that support it; ZFS members are trimmed
// by the pool (autotrim or zpool trim), never by fstrim.
var fstrimmable = map[string]bool{"ext4": true, "xfs": true, "btrfs": true, "vfat": true, "f2fs": true, "jfs": true, "ext3": true, "nilfs2": true, "ntfs3": true, "exfat": true}

func zfsPools(d *block.Device) []string {
	pools := map[string]bool{}
	for _, p := range d.Partitions {
		if p.FSType == "zfs_member" && p.Label != "" {
			pools[p.Label] = true
		}
	}
	if d.Udev.Prop("ID_FS_TYPE") == "zfs_member" && d.Udev.Prop("ID_FS_LABEL") != "" {
		pools[d.Udev.Prop("ID_FS_LABEL")] = true
	}
	return sortedKeys(pools)
}
