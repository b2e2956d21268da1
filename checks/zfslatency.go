package checks

import (
	"fmt"
	"math"
	"sort"
	"strconv"

	"github.com/diskdoctor/diskdoctor/probes/zfs"
)

// Units: zpool iostat -p prints exact values, bytes and nanoseconds
// (zpool-iostat(8)); the facts are in µs and MB/s (decimal megabytes, as
// drive datasheets count them).
const (
	nsPerUs     = 1e3
	nsPerMs     = 1e6
	usPerS      = 1e6
	bytesPerMB  = 1e6
	bytesPerKiB = 1024
)

// poolLatency records the pool row's latency over the interval and hands
// each member its own row.
func (z *zfsRun) poolLatency(o *Observation, p *zfs.Pool, members []*member, rows []*zfs.IostatRow) {
	o.Set("zfs_total_wait_write_us", nil)
	o.Set("zfs_disk_wait_write_us", nil)
	for _, r := range rows {
		if r.Pool != p.Name {
			continue
		}
		if r.Name == p.Name {
			ev := Evidence{z.iostatCmd, iostatSummary(r)}
			setUs(o, "zfs_total_wait_write_us", r.TotalWaitWrite, ev)
			setUs(o, "zfs_disk_wait_write_us", r.DiskWaitWrite, ev)
			setUs(o, "zfs_total_wait_read_us", r.TotalWaitRead, ev)
			setUs(o, "zfs_disk_wait_read_us", r.DiskWaitRead, ev)
			continue
		}
		for _, m := range members {
			if m.row == nil && (r.Name == m.vdev.Name) {
				m.row = r
			}
		}
	}
}

// zfsLatencyFacts records one interval of a member's latency, and compares
// its device wait with its peers' (the other members of its pool and class).
func zfsLatencyFacts(o *Observation, m *member, byDisk map[string][]*member, iostatCmd string) {
	for _, f := range []string{"zfs_write_iops", "zfs_write_mbs", "zfs_write_size_bytes", "zfs_write_size_kib", "zfs_disk_wait_write_us", "zfs_total_wait_write_us", "zfs_disk_wait_read_us", "zfs_total_wait_read_us", "zfs_effective_write_us", "zfs_peer_disk_wait_write_us", "zfs_peer_disk_wait_write", "zfs_above_device_write_us"} {
		o.Set(f, nil)
	}
	o.Set("zfs_slow_vs_peers", false)
	o.Set("zfs_slow_read_vs_peers", false)
	r := m.row
	if r == nil {
		return
	}
	zfsWriteFacts(o, r, Evidence{iostatCmd, iostatSummary(r)})
	// Peers: the other members of the same pool and class with a sample,
	// compared per direction (a failing disk shows in reads first).
	writes := peerWaits(m, byDisk, func(r *zfs.IostatRow) (*float64, *float64) { return r.DiskWaitWrite, r.WriteOps })
	classDevs := classDevices(m, byDisk)
	o.Set("zfs_class_devices", classDevs)
	o.Set("zfs_class_member_count", len(classDevs))
	o.Set("zfs_peer_count", len(writes))
	o.Set("zfs_disk_wait_read", humanNs(r.DiskWaitRead))
	o.Set("zfs_read_iops", nil)
	if r.ReadOps != nil {
		o.Set("zfs_read_iops", round(*r.ReadOps, 1))
	}
	o.Set("zfs_peer_disk_wait_read", nil)
	o.Set("zfs_slow_read_vs_peers", false)
	if med, slow := slowerThanPeers(r.DiskWaitWrite, r.WriteOps, writes); len(writes) > 0 {
		o.Set("zfs_peer_disk_wait_write_us", round(med, 1))
		o.Set("zfs_peer_disk_wait_write", humanNs(ptrF(med*nsPerUs)))
		o.Set("zfs_slow_vs_peers", slow)
	}
	if reads := peerWaits(m, byDisk, func(r *zfs.IostatRow) (*float64, *float64) { return r.DiskWaitRead, r.ReadOps }); len(reads) > 0 {
		med, slow := slowerThanPeers(r.DiskWaitRead, r.ReadOps, reads)
		o.Set("zfs_peer_disk_wait_read", humanNs(ptrF(med*nsPerUs)))
		o.Set("zfs_slow_read_vs_peers", slow)
		if slow {
			o.AddEvidence("zfs_slow_read_vs_peers", Evidence{iostatCmd, iostatSummary(r)})
		}
	}
}

// zfsWriteFacts records a member's writes over the interval: their rate
// and size, the time they waited in the device (disk_wait) and in all
// (total_wait: ZFS's queues too), zpool-iostat(8) -l.
func zfsWriteFacts(o *Observation, r *zfs.IostatRow, ev Evidence) {
	if r.WriteOps != nil {
		o.Set("zfs_write_iops", round(*r.WriteOps, 1), ev)
	}
	if r.WriteBytes != nil {
		o.Set("zfs_write_mbs", round(*r.WriteBytes/bytesPerMB, 2))
		if r.WriteOps != nil && *r.WriteOps > 0 {
			o.Set("zfs_write_size_bytes", math.Round(*r.WriteBytes / *r.WriteOps))
			o.Set("zfs_write_size_kib", round(*r.WriteBytes / *r.WriteOps / bytesPerKiB, 1))
		}
	}
	setUs(o, "zfs_disk_wait_write_us", r.DiskWaitWrite, ev)
	setUs(o, "zfs_total_wait_write_us", r.TotalWaitWrite)
	setUs(o, "zfs_disk_wait_read_us", r.DiskWaitRead)
	setUs(o, "zfs_total_wait_read_us", r.TotalWaitRead)
	o.Set("zfs_disk_wait_write", humanNs(r.DiskWaitWrite))
	o.Set("zfs_total_wait_write", humanNs(r.TotalWaitWrite))
	if r.TotalWaitWrite != nil && r.DiskWaitWrite != nil && *r.TotalWaitWrite > *r.DiskWaitWrite {
		o.Set("zfs_above_device_write_us", round((*r.TotalWaitWrite-*r.DiskWaitWrite)/nsPerUs, 1))
		o.Set("zfs_above_device_write", humanNs(ptrF(*r.TotalWaitWrite-*r.DiskWaitWrite)))
	}
	if e := eff(r); e > 0 {
		o.Set("zfs_effective_write_us", round(e, 1))
		o.Set("zfs_effective_write", humanNs(ptrF(e*nsPerUs)))
	}
}

// peerWaits are the device waits in µs, in one direction (wait gives the
// wait and the operations of a row), of m's peers: the members of its pool
// and class on other disks that did I/O that way in the interval.
func peerWaits(m *member, byDisk map[string][]*member, wait func(*zfs.IostatRow) (*float64, *float64)) []float64 {
	var out []float64
	for _, ms := range byDisk {
		for _, x := range ms {
			if x == m || x.disk == m.disk || x.pool != m.pool || x.vdev.Class != m.vdev.Class || x.row == nil {
				continue
			}
			if w, ops := wait(x.row); w != nil && ops != nil && *ops > 0 {
				out = append(out, *w/nsPerUs)
			}
		}
	}
	return out
}

// classDevices are the disks of m's pool and class, m's own among them.
func classDevices(m *member, byDisk map[string][]*member) []string {
	classDevs := []string{m.disk.Name}
	for _, ms := range byDisk {
		for _, x := range ms {
			if x.pool == m.pool && x.vdev.Class == m.vdev.Class && !contains(classDevs, x.disk.Name) {
				classDevs = append(classDevs, x.disk.Name)
			}
		}
	}
	sortNatural(classDevs)
	return classDevs
}

// slowerThanPeers is the peers' median wait (µs), and whether mine (ns)
// is slower: at least 4 times the median (the "4× above its peers" that
// rules/defs/zfs-device-slow.yaml states) and 0.5 ms more, over at least
// 10 requests per second, so that an idle member's few requests and a
// fast pool's small differences do not count.
func slowerThanPeers(mine, ops *float64, peers []float64) (float64, bool) {
	if len(peers) == 0 {
		return 0, false
	}
	med := median(peers)
	if mine == nil || ops == nil {
		return med, false
	}
	w := *mine / nsPerUs
	return med, *ops >= 10 && w >= 4*med && w-med >= 500
}

// eff is the device's time per write over the interval in µs: its
// disk_wait, or the time between completions where requests queued inside
// the device (disk_wait > 1/ops: Little's law), whichever is less. A device
// that is not busy shows its latency; a busy one its throughput.
func eff(r *zfs.IostatRow) float64 {
	if r == nil || r.DiskWaitWrite == nil || r.WriteOps == nil || *r.WriteOps <= 0 {
		return 0
	}
	wait := *r.DiskWaitWrite / nsPerUs
	return math.Min(wait, usPerS / *r.WriteOps)
}

func setUs(o *Observation, fact string, ns *float64, ev ...Evidence) {
	if ns == nil {
		o.Set(fact, nil)
		return
	}
	o.Set(fact, round(*ns/nsPerUs, 1), ev...)
}

func ptrF(f float64) *float64 { return &f }

// humanNs prints a latency as zpool iostat would: 90 µs, 68 ms, 1.2 s.
func humanNs(ns *float64) string {
	if ns == nil {
		return "-"
	}
	v := *ns
	switch {
	case v >= 1e9:
		return trimFloat(round(v/1e9, 1)) + " s"
	case v >= nsPerMs:
		return trimFloat(round(v/nsPerMs, 1)) + " ms"
	case v >= nsPerUs:
		return trimFloat(round(v/nsPerUs, 0)) + " µs"
	}
	return trimFloat(v) + " ns"
}

func trimFloat(f float64) string { return strconv.FormatFloat(f, 'f', -1, 64) }

// iostatSummary is one member's row in words, for evidence.
func iostatSummary(r *zfs.IostatRow) string {
	num := func(p *float64) string {
		if p == nil {
			return "-"
		}
		return trimFloat(round(*p, 1))
	}
	mbs := func(p *float64) string {
		if p == nil {
			return "-"
		}
		return trimFloat(round(*p/bytesPerMB, 2)) + " MB/s"
	}
	return fmt.Sprintf("%s: write %s/s %s, total_wait %s, disk_wait %s; read %s/s %s, total_wait %s, disk_wait %s",
		r.Name, num(r.WriteOps), mbs(r.WriteBytes), humanNs(r.TotalWaitWrite), humanNs(r.DiskWaitWrite),
		num(r.ReadOps), mbs(r.ReadBytes), humanNs(r.TotalWaitRead), humanNs(r.DiskWaitRead))
}

func median(xs []float64) float64 {
	s := append([]float64(nil), xs...)
	sort.Float64s(s)
	n := len(s)
	if n%2 == 1 {
		return s[n/2]
	}
	return (s[n/2-1] + s[n/2]) / 2
}
