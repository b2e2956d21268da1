package checks

import (
	"fmt"
	"strings"

	"github.com/diskdoctor/diskdoctor/probes/block"
)

// Media speed classes of a pool member, slowest first. A separate log
// device helps only when it commits a ZIL record faster than the pool's
// data vdevs would: without one the ZIL is written to the data vdevs
// themselves (zpoolconcepts(7), Intent Log: "Separate intent log devices
// ... can improve performance ... by using nonvolatile RAM or a dedicated
// disk"; OpenZFS documentation, Performance and Tuning, the ZIL and SLOG).
// The order is that of the media's sync-write latency: a disk's seek and
// rotation, a SATA/SAS SSD behind an AHCI or SAS host, an NVMe SSD on its
// own queues over PCIe.
const (
	mediaUnknown = iota
	mediaHDD
	mediaSSD
	mediaNVMe
)

var mediaNames = [...]string{"", "hdd", "ssd", "nvme"}

// memberMedia is a disk's media class for comparing pool members; unknown
// for a guest's disk, a RAID controller's volume or a device whose
// rotational flag could not be read (what backs them decides their speed).
func memberMedia(d *block.Device) int {
	switch {
	case d.Hypervisor != "" || d.Transport == "raid" || d.Transport == "virtio" || d.Transport == "virtual":
		return mediaUnknown
	case d.Transport == "nvme":
		return mediaNVMe
	case d.Rotational == nil:
		return mediaUnknown
	case *d.Rotational:
		return mediaHDD
	}
	return mediaSSD
}

// mediaEvidence is what a disk's media class was read from: its
// transport and its queue/rotational flag.
func mediaEvidence(d *block.Device) Evidence {
	src := d.Files["rotational"]
	if src == "" {
		src = "/sys/block/" + d.Name + "/queue/rotational"
	}
	rot := "unknown"
	if d.Rotational != nil {
		rot = "0"
		if *d.Rotational {
			rot = "1"
		}
	}
	return Evidence{src, fmt.Sprintf("%s (transport %s): rotational %s", d.Name, d.Transport, rot)}
}

// poolDataMedia is, for each pool, the slowest media among its data
// vdevs' disks and those disks in words ("sdb (hdd)"); a pool with a data
// disk of unknown media, or none resolved, is absent: not judged.
func (z *zfsRun) poolDataMedia() (map[string]int, map[string][]string) {
	slowest := map[string]int{}
	words := map[string][]string{}
	unknown := map[string]bool{}
	for _, name := range z.diskOrder {
		for _, m := range z.byDisk[name] {
			if m.vdev.Class != "data" {
				continue
			}
			p := m.pool.Name
			md := memberMedia(m.disk)
			if md == mediaUnknown {
				unknown[p] = true
				continue
			}
			w := fmt.Sprintf("%s (%s)", name, mediaNames[md])
			if !contains(words[p], w) {
				words[p] = append(words[p], w)
			}
			if s, ok := slowest[p]; !ok || md < s {
				slowest[p] = md
			}
		}
	}
	for p := range unknown {
		delete(slowest, p)
		delete(words, p)
	}
	return slowest, words
}

// logMediaFacts records, on a disk that holds a pool's log vdev, its
// media and whether it is slower than every data disk of that pool: such
// a log makes each sync write wait longer than the pool alone would.
// Unknown media on either side leaves zfs_log_slower_than_data nil.
func (z *zfsRun) logMediaFacts(o *Observation, ms []*member, slowest map[string]int, words map[string][]string) {
	var log *member
	for _, m := range ms {
		if m.vdev.Class == "logs" {
			log = m
			break
		}
	}
	if log == nil {
		for _, k := range []string{"zfs_log_media", "zfs_pool_data_media", "zfs_pool_data_disks_media", "zfs_log_slower_than_data"} {
			o.Set(k, nil)
		}
		return
	}
	md := memberMedia(log.disk)
	data, ok := slowest[log.pool.Name]
	if md == mediaUnknown {
		o.Set("zfs_log_media", nil)
	} else {
		o.Set("zfs_log_media", mediaNames[md], Evidence{z.statusCmd, log.vdev.Line}, mediaEvidence(log.disk))
	}
	if !ok {
		o.Set("zfs_pool_data_media", nil)
		o.Set("zfs_pool_data_disks_media", nil)
		o.Set("zfs_log_slower_than_data", nil)
		return
	}
	o.Set("zfs_pool_data_media", mediaNames[data])
	o.Set("zfs_pool_data_disks_media", words[log.pool.Name], Evidence{z.statusCmd, "data disks: " + strings.Join(words[log.pool.Name], ", ")})
	if md == mediaUnknown {
		o.Set("zfs_log_slower_than_data", nil)
		return
	}
	o.Set("zfs_log_slower_than_data", md < data)
}
