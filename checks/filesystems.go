package checks

import (
	"context"
	"errors"
	"math"
	"slices"
	"strings"

	"github.com/diskdoctor/diskdoctor/machine"
	"github.com/diskdoctor/diskdoctor/probes/block"
	"github.com/diskdoctor/diskdoctor/probes/mount"
)

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

func init() {
	Register(Check{Name: "filesystems", Description: "each mounted disk filesystem: its space (df), the barrier and discard mount options, the share of an SSD its filesystems use, and swap on ZFS zvols", Run: filesystems})
}

// diskFS are the filesystems kept on a block device whose space and mount
// options are the disk's concern. Not judged: pseudo and memory
// filesystems (tmpfs, devtmpfs, overlay), images that are full by
// construction (squashfs of snaps, iso9660, udf), ZFS (its pool is judged
// by zfs-pool-full; a dataset's df size is what the pool has left),
// network filesystems (df -l leaves them out), and FUSE other than
// fuseblk (ntfs-3g on a disk).
var diskFS = map[string]bool{"ext2": true, "ext3": true, "ext4": true, "xfs": true, "btrfs": true, "vfat": true, "exfat": true, "ntfs": true, "ntfs3": true, "fuseblk": true, "f2fs": true, "jfs": true, "reiserfs": true, "nilfs2": true, "bcachefs": true, "hfsplus": true}

// fsMount is one judged filesystem: a mount of a disk filesystem,
// writable, the first mount of its device (bind mounts and btrfs
// subvolumes repeat one filesystem).
type fsMount struct {
	mount.Mount
	dev   string   // the block device it is mounted from (sda2, dm-0, md0)
	disks []string // the whole disks beneath it
}

const mountinfoSource = "/proc/self/mountinfo"

func filesystems(ctx context.Context, env *Env) []*Observation {
	judged := env.Judged(ctx)
	var out []*Observation
	if host := swapOnZvol(ctx, env); host != nil {
		out = append(out, host)
	}
	if len(judged) == 0 {
		return out
	}
	m := env.DevMap(ctx)
	mounts, merr := env.Mounts(ctx)
	fss := judgedMounts(mounts, m)
	var space map[string]mount.Space // by mount point
	var serr error
	if len(fss) > 0 {
		var sp []mount.Space
		sp, serr = Probe(ctx, env, func(ctx context.Context) ([]mount.Space, error) { return mount.ReadDF(ctx, env.Host) })
		if serr != nil {
			// The space is then unknown, not free (the facts are nil).
			env.Skip("df", "", serr)
		} else {
			space = map[string]mount.Space{}
			for _, s := range sp {
				space[s.MountPoint] = s
			}
		}
	}
	swaps := swapByDisk(ctx, env, m, mounts)
	for _, d := range judged {
		o := NewObservation("filesystems", KindDevice, d.Name)
		setSwapOnDisk(o, d.Name, swaps)
		var mine []fsMount
		for _, f := range fss {
			if slices.Contains(f.disks, d.Name) {
				mine = append(mine, f)
			}
		}
		// A disk with no filesystem in a mount table that was read has
		// none to fill, df or not; an unread mount table says nothing of
		// any disk.
		setFSSpace(o, d, mine, space, merr == nil && (serr == nil || len(mine) == 0))
		setFSOptions(o, mine, merr == nil)
		out = append(out, o)
	}
	return out
}

// judgedMounts: the writable disk filesystems of the mount table, each
// once, with the device it is mounted from. The device is the mount's
// major:minor, or for btrfs (whose mounts carry an anonymous device
// number, one per subvolume) its source when that names a device of the
// inventory.
func judgedMounts(mounts []mount.Mount, m *block.Map) []fsMount {
	var out []fsMount
	seen := map[string]bool{}
	for _, mt := range mounts {
		if !diskFS[mt.FSType] {
			continue
		}
		if _, ro := mt.Options["ro"]; ro {
			continue
		}
		dev := mountDevice(mt, m)
		if dev == "" || seen[dev] {
			continue
		}
		seen[dev] = true
		out = append(out, fsMount{Mount: mt, dev: dev, disks: m.WholeDisks(dev)})
	}
	return out
}

// mountDevice: the inventory device a mount is mounted from, its
// major:minor's, or for a mount whose number names no device (btrfs gives
// each filesystem an anonymous 0:N, fs/btrfs/disk-io.c) the device its
// source names; "" when neither is one of the inventory's.
func mountDevice(mt mount.Mount, m *block.Map) string {
	if dev := m.Name(mt.DevNo); dev != "" {
		return dev
	}
	if n := strings.TrimPrefix(mt.Source, "/dev/"); n != mt.Source && m.DevNoOf(n) != "" {
		return n
	}
	return ""
}

// setFSSpace: each of the disk's filesystems with its df line; the
// fullest one's use; and on an SSD the share of the disk its own
// filesystems use (those on no other disk). known: the mount table was
// read, and df too where the disk has a filesystem; else every fact is
// nil (unknown), never an empty list that would read as "nothing full".
func setFSSpace(o *Observation, d *block.Device, mine []fsMount, space map[string]mount.Space, known bool) {
	if !known {
		o.Set("fs_space", nil)
		o.Set("fs_use_percent_max", nil)
		o.Set("fs_fullest_mount", "")
		o.Set("fs_ssd_used_bytes", nil)
		o.Set("fs_ssd_used_percent", nil)
		return
	}
	list := []any{}
	var maxPct any
	fullest := ""
	var ssdUsed uint64
	measured := false
	for _, f := range mine {
		s, ok := space[f.MountPoint]
		if !ok {
			continue
		}
		pct, ok := s.UsePercent()
		if !ok {
			continue
		}
		pct = math.Round(pct*10) / 10
		list = append(list, map[string]any{"mount": f.MountPoint, "device": f.dev, "fstype": f.FSType,
			"size_bytes": s.SizeBytes, "used_bytes": s.UsedBytes, "avail_bytes": s.AvailBytes, "use_percent": pct})
		o.AddEvidence("fs_space", Evidence{strings.Join(mount.DFArgv(), " "), s.Line})
		if m, _ := maxPct.(float64); maxPct == nil || pct > m {
			maxPct, fullest = pct, f.MountPoint
		}
		if len(f.disks) == 1 {
			ssdUsed += s.UsedBytes
			measured = true
		}
	}
	o.Set("fs_space", list)
	o.Set("fs_use_percent_max", maxPct)
	o.Set("fs_fullest_mount", fullest)
	// An SSD's share: a lower bound (a partition without a mounted
	// filesystem, swap or an LVM volume spanning disks is not counted).
	if d.Rotational != nil && !*d.Rotational && d.SizeBytes != nil && *d.SizeBytes > 0 && measured {
		o.Set("fs_ssd_used_bytes", ssdUsed)
		o.Set("fs_ssd_used_percent", math.Round(float64(ssdUsed)*1000/float64(*d.SizeBytes))/10)
	} else {
		o.Set("fs_ssd_used_bytes", nil)
		o.Set("fs_ssd_used_percent", nil)
	}
}

// setFSOptions: the mounts that switch off cache flushes (nobarrier,
// barrier=0: ext4(5), btrfs(5); XFS dropped the option in Linux 4.19) and
// those that discard synchronously (discard; btrfs's discard=async and
// f2fs, which queue discards, are not).
func setFSOptions(o *Observation, mine []fsMount, known bool) {
	if !known {
		o.Set("fs_nobarrier", nil)
		o.Set("fs_online_discard", nil)
		return
	}
	nobarrier, discard := []string{}, []string{}
	for _, f := range mine {
		opt := ""
		if _, ok := f.Options["nobarrier"]; ok {
			opt = "nobarrier"
		} else if v, ok := f.Options["barrier"]; ok && v == "0" {
			opt = "barrier=0"
		}
		if opt != "" {
			nobarrier = append(nobarrier, f.MountPoint)
			o.AddEvidence("fs_nobarrier", Evidence{mountinfoSource, f.Source + " " + f.MountPoint + " " + f.FSType + " " + opt})
		}
		if v, ok := f.Options["discard"]; ok && (v == "" || v == "sync") && f.FSType != "f2fs" {
			opt := "discard"
			if v != "" {
				opt += "=" + v
			}
			discard = append(discard, f.MountPoint)
			o.AddEvidence("fs_online_discard", Evidence{mountinfoSource, f.Source + " " + f.MountPoint + " " + f.FSType + " " + opt})
		}
	}
	o.Set("fs_nobarrier", nobarrier)
	o.Set("fs_online_discard", discard)
}

// swapOnZvol: the host's swap areas on ZFS volumes (zd<N>, the kernel's
// name for /dev/zvol/<pool>/<volume>), nil when /proc/swaps cannot be
// read. Swapping to a zvol needs ZFS to allocate memory to write out the
// pages that free memory (openzfs/zfs#7734; the OpenZFS FAQ advises
// against it).
func swapOnZvol(ctx context.Context, env *Env) *Observation {
	o := NewObservation("filesystems", KindHost, "host")
	areas, err := Probe(ctx, env, func(ctx context.Context) ([]mount.SwapArea, error) { return mount.SwapAreas(ctx, env.Host) })
	if err != nil {
		o.Set("fs_swap_zvols", nil)
		if !errors.Is(err, machine.ErrNotAvailable) || env.Host.IsLive() {
			env.Skip("swaps", "", err)
		}
		return o
	}
	zvols := []string{}
	for _, a := range areas {
		if zvolName(a.Filename) {
			zvols = append(zvols, a.Filename)
			o.AddEvidence("fs_swap_zvols", Evidence{"/proc/swaps", a.Line()})
		}
	}
	o.Set("fs_swap_zvols", zvols)
	return o
}

// zvolName: /dev/zd<N> (module/os/linux/zfs/zvol_os.c names zvols zd
// with 16 minors each, partitions zd<N>p<M>) or a /dev/zvol/ link.
func zvolName(p string) bool {
	if strings.HasPrefix(p, "/dev/zvol/") {
		return true
	}
	n, ok := strings.CutPrefix(p, "/dev/zd")
	if !ok || n == "" {
		return false
	}
	n, _, _ = strings.Cut(n, "p")
	for _, c := range n {
		if c < '0' || c > '9' {
			return false
		}
	}
	return n != ""
}
