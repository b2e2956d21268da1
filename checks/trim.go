package checks

import (
	"context"
	"fmt"
	"strconv"

	"github.com/diskdoctor/diskdoctor/probes/block"
	"github.com/diskdoctor/diskdoctor/probes/bootcfg"
)

func init() {
	Register(Check{Name: "trim", Description: "TRIM/discard support through the block stack, and the trim regime (fstrim timer, cron, discard mounts, ZFS autotrim) for what the SSD holds", Run: trim})
}

func trim(ctx context.Context, env *Env) []*Observation {
	byDevNo := env.MountsByDevNo(ctx)
	timerLink, timerOn := bootcfg.TimerEnabled(ctx, env.Host, "fstrim.timer")
	cron := bootcfg.FindCronTrim(ctx, env.Host)
	// Without /etc (a recording that left it out) the timer and cron jobs
	// are unknown, not absent: Fedora and Debian enable fstrim.timer.
	_, etcErr := env.Host.ReadDir(ctx, "/etc")
	scheduleKnown := etcErr == nil
	if !scheduleKnown && len(env.Judged(ctx)) > 0 {
		env.Skip("trim schedule", "", withHint(fmt.Errorf("/etc: %w", etcErr), "record /etc/systemd/system and /etc/cron* to tell whether fstrim runs"))
	}

	var out []*Observation
	for _, d := range env.Judged(ctx) {
		if d.Rotational == nil || *d.Rotational || d.Transport == "virtual" {
			continue
		}
		o := NewObservation("trim", KindDevice, d.Name)
		out = append(out, o)
		if d.Queue.DiscardMaxBytes == nil {
			o.Set("trim_supported", nil)
		} else {
			v := *d.Queue.DiscardMaxBytes
			o.Set("trim_supported", v > 0, Evidence{d.Files["discard_max_bytes"], strconv.FormatUint(v, 10)})
			if d.Queue.DiscardGranularity != nil {
				o.Set("discard_granularity", *d.Queue.DiscardGranularity, Evidence{d.Files["discard_granularity"], strconv.FormatUint(*d.Queue.DiscardGranularity, 10)})
			}
		}

		var regimes, uncovered, blocked []string
		var regimeEv []Evidence
		unknown := false
		areas := 0
		// A filesystem lives on the disk, a partition, or a device stacked on
		// one of them (dm-crypt, LVM); follow holders one level.
		devnos := []string{d.DevNo}
		for _, p := range d.Partitions {
			devnos = append(devnos, p.DevNo)
		}
		for _, hname := range stackedHolders(d) {
			dn, err := env.Host.ReadString(ctx, "/sys/block/"+hname+"/dev")
			if err != nil {
				continue
			}
			devnos = append(devnos, dn)
			if v, err := env.Host.ReadString(ctx, "/sys/block/"+hname+"/queue/discard_max_bytes"); err == nil && v == "0" {
				blocked = append(blocked, hname)
				o.AddEvidence("trim_blocked_by", Evidence{"/sys/block/" + hname + "/queue/discard_max_bytes", v})
			}
		}
		for _, dn := range devnos {
			for _, m := range byDevNo[dn] {
				if !fstrimmable[m.FSType] {
					continue
				}
				areas++
				_, discard := m.Options["discard"]
				switch {
				case discard:
					regimes = append(regimes, "discard mount option on "+m.MountPoint)
					regimeEv = append(regimeEv, Evidence{"/proc/self/mountinfo", m.Source + " " + m.MountPoint + " " + m.FSType + " discard"})
				case timerOn:
					regimes = append(regimes, "fstrim.timer trims "+m.MountPoint)
				case len(cron) > 0:
					regimes = append(regimes, "cron fstrim trims "+m.MountPoint)
				case !scheduleKnown:
					unknown = true
				default:
					uncovered = append(uncovered, m.MountPoint+" ("+m.FSType+")")
				}
			}
		}
		pools := zfsPools(d)
		if len(pools) > 0 {
			autotrim, err := env.ZFSAutotrim(ctx)
			for _, pool := range pools {
				areas++
				v, ok := autotrim[pool]
				switch {
				case err != nil || !ok:
					unknown = true
				case v == "on":
					regimes = append(regimes, "ZFS autotrim=on (pool "+pool+")")
					regimeEv = append(regimeEv, Evidence{"zpool get -H -o name,value autotrim", pool + "\t" + v})
				default:
					uncovered = append(uncovered, "ZFS pool "+pool+" (autotrim="+v+")")
					o.AddEvidence("trim_uncovered", Evidence{"zpool get -H -o name,value autotrim", pool + "\t" + v})
				}
			}
		}
		if timerOn {
			regimeEv = append(regimeEv, Evidence{timerLink, "fstrim.timer enabled (trims mounted filesystems; ZFS pools need autotrim or zpool trim)"})
		}
		for _, c := range cron {
			regimeEv = append(regimeEv, Evidence{c.Source(), c.Text})
		}
		o.Set("trim_regimes", nonNil(regimes), regimeEv...)
		o.Set("trim_uncovered", nonNil(uncovered))
		o.Set("trim_blocked_by", nonNil(blocked))
		o.Set("zfs_pools", nonNil(pools))
		o.Set("trim_relevant", areas > 0)
		switch {
		case len(uncovered) > 0:
			o.Set("trim_covered", false)
		case unknown:
			o.Set("trim_covered", nil)
		default:
			o.Set("trim_covered", areas > 0)
		}
	}
	return out
}

// stackedHolders lists dm/md devices stacked on the disk or its partitions.
func stackedHolders(d *block.Device) []string {
	out := append([]string(nil), d.Holders...)
	for _, p := range d.Partitions {
		out = append(out, p.Holders...)
	}
	return out
}
