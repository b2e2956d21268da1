package checks

import (
	"context"
	"slices"
	"strconv"
	"strings"

	"github.com/diskdoctor/diskdoctor/probes/block"
	"github.com/diskdoctor/diskdoctor/probes/bootcfg"
	"github.com/diskdoctor/diskdoctor/probes/mount"
	"github.com/diskdoctor/diskdoctor/probes/zfs"
)

func init() {
	Register(Check{Name: "trim", Description: "TRIM/discard support through the block stack, and the trim regime (fstrim timer, cron, discard mounts, ZFS autotrim) for what the SSD holds", Run: trim})
}

func trim(ctx context.Context, env *Env) []*Observation {
	byDevNo := env.MountsByDevNo(ctx)
	sched := readTrimSchedule(ctx, env)
	var out []*Observation
	for _, d := range env.Judged(ctx) {
		if d.Transport == "virtual" {
			continue
		}
		if d.Rotational == nil || *d.Rotational {
			if d.Hypervisor != "" || d.Transport == "virtio" {
				// A guest's disk often says rotational whatever backs
				// it; whether it passes discards on is still what the
				// guest sees (queue/discard_max_bytes), for the table.
				o := NewObservation("trim", KindDevice, d.Name)
				setTrimSupport(o, d)
				out = append(out, o)
			}
			continue
		}
		out = append(out, trimDevice(ctx, env, d, sched, byDevNo))
	}
	return out
}

// trimSchedule is what trims mounted filesystems on a schedule: an enabled
// fstrim.timer (util-linux ships it; systemd.timer(5)) or a cron job.
type trimSchedule struct {
	timerLink string
	timerOn   bool
	cron      []bootcfg.Line
	zfsJobs   zfsTrimJobs
	// known: /etc was read. Without it (a recording that left it out) the
	// timer and cron jobs are unknown, not absent: Fedora and Debian enable
	// fstrim.timer.
	known bool
}

func readTrimSchedule(ctx context.Context, env *Env) trimSchedule {
	var s trimSchedule
	s.timerLink, s.timerOn = bootcfg.TimerEnabled(ctx, env.Host, "fstrim.timer")
	s.cron = bootcfg.FindCronTrim(ctx, env.Host)
	s.zfsJobs = readZFSTrimJobs(ctx, env, slices.ContainsFunc(env.Judged(ctx), func(d *block.Device) bool { return len(zfsPools(d)) > 0 }))
	_, etcErr := env.Host.ReadDir(ctx, "/etc")
	s.known = etcErr == nil
	if !s.known && len(env.Judged(ctx)) > 0 {
		// The Host's error names /etc.
		env.Skip("trim schedule", "", withHint(etcErr, "the recording holds no /etc, so whether fstrim.timer or a cron job trims is unknown; record the machine again with diskdoctor snapshot (it records /etc/systemd/system and /etc/cron*)"))
	}
	return s
}

// trimAreas is what one SSD holds that wants trimming (mounted
// filesystems, ZFS pools) and what trims each of them.
type trimAreas struct {
	regimes, uncovered, blocked []string
	periodicOff                 []string // pools the zfsutils-linux job leaves out
	crypt                       []string // dm names of crypt layers among blocked
	regimeEv                    []Evidence
	unknown                     bool
	areas                       int
}

func trimDevice(ctx context.Context, env *Env, d *block.Device, sched trimSchedule, byDevNo map[string][]mount.Mount) *Observation {
	o := NewObservation("trim", KindDevice, d.Name)
	setTrimSupport(o, d)
	var t trimAreas
	devnos := t.devNos(ctx, env, o, d)
	t.filesystems(devnos, byDevNo, sched)
	pools := zfsPools(d)
	if len(pools) > 0 {
		t.pools(ctx, env, o, pools, sched)
	}
	if sched.timerOn {
		t.regimeEv = append(t.regimeEv, Evidence{sched.timerLink, "fstrim.timer enabled (trims mounted filesystems; ZFS pools need autotrim or zpool trim)"})
	}
	for _, c := range sched.cron {
		t.regimeEv = append(t.regimeEv, Evidence{c.Source(), c.Text})
	}
	o.Set("trim_regimes", nonNil(t.regimes), t.regimeEv...)
	o.Set("trim_uncovered", nonNil(t.uncovered))
	o.Set("trim_blocked_by", nonNil(t.blocked))
	if len(t.blocked) > 0 {
		// Which of the blockers are dm-crypt: said only where one is.
		o.Set("trim_blocked_crypt", nonNil(t.crypt))
	}
	o.Set("trim_relevant", t.areas > 0)
	switch {
	case len(t.uncovered) > 0:
		o.Set("trim_covered", false)
	case t.unknown:
		o.Set("trim_covered", nil)
	default:
		o.Set("trim_covered", t.areas > 0)
	}
	return o
}

// setTrimSupport: the device takes discards when queue/discard_max_bytes
// is not 0 (Documentation/ABI/stable/sysfs-block).
func setTrimSupport(o *Observation, d *block.Device) {
	if d.Queue.DiscardMaxBytes == nil {
		o.Set("trim_supported", nil)
		return
	}
	v := *d.Queue.DiscardMaxBytes
	o.Set("trim_supported", v > 0, Evidence{d.Files["discard_max_bytes"], strconv.FormatUint(v, 10)})
	if d.Queue.DiscardGranularity != nil {
		o.Set("discard_granularity", *d.Queue.DiscardGranularity, Evidence{d.Files["discard_granularity"], strconv.FormatUint(*d.Queue.DiscardGranularity, 10)})
	}
}

// devNos are the device numbers a filesystem on the disk can be mounted
// from: the disk, a partition, or a device stacked on one of them
// (dm-crypt, LVM, md), holders followed through every layer (LUKS on LVM
// on md), bounded. A stacked device whose queue/discard_max_bytes is 0
// while the layer it was reached through passes discards is the layer
// that blocks them: the block layer stacks queue limits upward
// (blk_stack_limits in block/blk-settings.c), so every device above it
// shows 0 too and is not named again.
func (t *trimAreas) devNos(ctx context.Context, env *Env, o *Observation, d *block.Device) []string {
	devnos := []string{d.DevNo}
	for _, p := range d.Partitions {
		devnos = append(devnos, p.DevNo)
	}
	passes := d.Queue.DiscardMaxBytes != nil && *d.Queue.DiscardMaxBytes > 0
	seen := map[string]bool{}
	var walk func(hname string, below bool, depth int)
	walk = func(hname string, below bool, depth int) {
		if depth > maxStackDepth || len(seen) >= maxStackHolders || seen[hname] || !block.ValidName(hname) {
			return
		}
		seen[hname] = true
		dn, err := env.Host.ReadString(ctx, "/sys/block/"+hname+"/dev")
		if err != nil {
			return
		}
		devnos = append(devnos, dn)
		file := "/sys/block/" + hname + "/queue/discard_max_bytes"
		v, err := env.Host.ReadString(ctx, file)
		here := below && err == nil && v != "0"
		if below && err == nil && v == "0" {
			t.blocked = append(t.blocked, hname)
			o.AddEvidence("trim_blocked_by", Evidence{file, v})
			if name, ok := cryptName(ctx, env, hname); ok {
				t.crypt = append(t.crypt, name)
				o.AddEvidence("trim_blocked_crypt", Evidence{"/sys/block/" + hname + "/dm/name", name})
			}
		}
		ents, err := env.Host.ReadDir(ctx, "/sys/block/"+hname+"/holders")
		if err != nil {
			return
		}
		for _, e := range ents {
			walk(e.Name(), here, depth+1)
		}
	}
	for _, hname := range stackedHolders(d) {
		walk(hname, passes, 1)
	}
	return devnos
}

// maxStackDepth and maxStackHolders bound the walk up a disk's holders:
// real stacks are a few layers deep (LUKS on LVM on md), and a hostile or
// looping sysfs must not make it unbounded.
const (
	maxStackDepth   = 16
	maxStackHolders = 256
)

// cryptName is the dm name of a dm-crypt device: cryptsetup gives every
// device it activates a dm UUID "CRYPT-<type>-…" (cryptsetup
// lib/libdevmapper.c, dm_prepare_uuid). dm-crypt passes discards only when
// opened with allow_discards (dm-crypt.rst), so a crypt layer at 0 above
// a layer that passes them lacks it.
func cryptName(ctx context.Context, env *Env, hname string) (string, bool) {
	uuid, err := env.Host.ReadString(ctx, "/sys/block/"+hname+"/dm/uuid")
	if err != nil || !strings.HasPrefix(uuid, "CRYPT-") {
		return "", false
	}
	name, err := env.Host.ReadString(ctx, "/sys/block/"+hname+"/dm/name")
	if err != nil || name == "" {
		return "", false
	}
	return name, true
}

// filesystems: what trims each filesystem fstrim can trim that is mounted
// from devnos; the discard mount option (mount(8)) first.
func (t *trimAreas) filesystems(devnos []string, byDevNo map[string][]mount.Mount, sched trimSchedule) {
	for _, dn := range devnos {
		for _, m := range byDevNo[dn] {
			if !fstrimmable[m.FSType] {
				continue
			}
			t.areas++
			_, discard := m.Options["discard"]
			switch {
			case discard:
				t.regimes = append(t.regimes, "discard mount option on "+m.MountPoint)
				t.regimeEv = append(t.regimeEv, Evidence{"/proc/self/mountinfo", m.Source + " " + m.MountPoint + " " + m.FSType + " discard"})
			case sched.timerOn:
				t.regimes = append(t.regimes, "fstrim.timer trims "+m.MountPoint)
			case len(sched.cron) > 0:
				t.regimes = append(t.regimes, "cron fstrim trims "+m.MountPoint)
			case !sched.known:
				t.unknown = true
			default:
				t.uncovered = append(t.uncovered, m.MountPoint+" ("+m.FSType+")")
			}
		}
	}
}

// pools: a ZFS pool trims its members itself when autotrim=on
// (zpoolprops(7)); fstrim never does. Without autotrim, a pool is trimmed
// only by `zpool trim` (zpool-trim(8)), by hand or from a cron job: with
// /etc unread the cron jobs are unknown, so the pool's regime is too. A
// trim running now is said either way: it is a one-off unless a job runs
// it, never "nothing trims it".
func (t *trimAreas) pools(ctx context.Context, env *Env, o *Observation, pools []string, sched trimSchedule) {
	autotrim, err := env.ZFSAutotrim(ctx)
	trimming := map[string]string{}
	if st, err := env.ZpoolStatus(ctx); err == nil {
		for _, p := range st.Pools {
			for _, v := range p.Vdevs {
				if v.Trim.State == "active" {
					trimming[p.Name] = v.Name + " " + v.Trim.Text
				}
			}
		}
	}
	status := argvString(zfs.StatusArgv())
	for _, pool := range pools {
		t.areas++
		v, ok := autotrim[pool]
		running := trimming[pool]
		switch {
		case err != nil || !ok:
			t.unknown = true
		case v == "on":
			t.regimes = append(t.regimes, "ZFS autotrim=on (pool "+pool+")")
			t.regimeEv = append(t.regimeEv, Evidence{"zpool get -H -o name,value autotrim", pool + "\t" + v})
		case !sched.known:
			t.unknown = true
			if running != "" {
				t.regimes = append(t.regimes, "zpool trim running now (pool "+pool+"); whether a job runs it is unknown")
				t.regimeEv = append(t.regimeEv, Evidence{status, running})
			}
		default:
			t.poolJob(o, pool, v, running, status, sched.zfsJobs)
		}
	}
	if sched.zfsJobs.jobs.Script != nil {
		o.Set("trim_zfs_periodic_off", nonNil(t.periodicOff))
	}
}

// poolJob: a pool without autotrim is trimmed only by a job running
// zpool trim; the zfsutils-linux job's verdict says whether it does.
func (t *trimAreas) poolJob(o *Observation, pool, autotrim, running, status string, jobs zfsTrimJobs) {
	j := jobs.verdict(pool)
	autoEv := Evidence{"zpool get -H -o name,value autotrim", pool + "\t" + autotrim}
	switch {
	case j.covered:
		t.regimes = append(t.regimes, j.regime)
		t.regimeEv = append(t.regimeEv, j.ev...)
		return
	case j.unknown:
		t.unknown = true
		if j.regime != "" {
			t.regimes = append(t.regimes, j.regime)
			t.regimeEv = append(t.regimeEv, j.ev...)
		}
		if running != "" {
			t.regimes = append(t.regimes, "zpool trim running now (pool "+pool+"); whether a job runs it is unknown")
			t.regimeEv = append(t.regimeEv, Evidence{status, running})
		}
		return
	}
	why := "autotrim=" + autotrim
	if j.left != "" {
		why += "; " + j.left
		t.periodicOff = append(t.periodicOff, pool)
	}
	ev := append([]Evidence{autoEv}, j.ev...)
	if running != "" {
		t.uncovered = append(t.uncovered, "ZFS pool "+pool+" ("+why+"; a zpool trim runs now, but no job runs it again)")
		ev = append(ev, Evidence{status, running})
	} else {
		t.uncovered = append(t.uncovered, "ZFS pool "+pool+" ("+why+")")
	}
	o.AddEvidence("trim_uncovered", ev...)
}

// stackedHolders lists dm/md devices stacked on the disk or its partitions.
func stackedHolders(d *block.Device) []string {
	out := append([]string(nil), d.Holders...)
	for _, p := range d.Partitions {
		out = append(out, p.Holders...)
	}
	return out
}
