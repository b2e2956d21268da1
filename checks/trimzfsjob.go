package checks

import (
	"bytes"
	"context"
	"slices"
	"strconv"
	"strings"

	"github.com/diskdoctor/diskdoctor/probes/bootcfg"
	"github.com/diskdoctor/diskdoctor/probes/zfs"
)

// zfsTrimJobs is what cron does for ZFS pools: the zfsutils-linux job and
// the pool's org.debian:periodic-trim values (read only where the job
// exists), and cron lines that run `zpool trim` themselves.
type zfsTrimJobs struct {
	jobs       bootcfg.ZFSTrimJobs
	periodic   map[string]string
	periodicOK bool
	// nvmeOnly: per pool, true when every leaf vdev resolves to an NVMe
	// disk, false when one resolves to another disk; absent when a leaf
	// does not resolve or zpool status did not answer.
	nvmeOnly map[string]bool
	// autoSATA: the installed script is the 2026 revision whose auto mode
	// also trims non-rotational SATA disks that do queued TRIM
	// (classify_dev_trim reads /sys/class/ata_device/devN.M/trim); which
	// of a pool's disks do is not read here, so such a pool is unknown.
	autoSATA bool
}

// readZFSTrimJobs finds the cron jobs that trim pools and, where the
// zfsutils-linux job exists, what its script will do with each pool.
func readZFSTrimJobs(ctx context.Context, env *Env, pooled bool) zfsTrimJobs {
	j := zfsTrimJobs{jobs: bootcfg.FindCronZFSTrim(ctx, env.Host)}
	if len(j.jobs.Script) == 0 || !pooled {
		return j
	}
	v, err := ProbeWithin(ctx, env, env.Opts.ProbeTimeout, func(ctx context.Context) (map[string]string, error) {
		m, _, err := zfs.PeriodicTrim(ctx, env.Host)
		return m, err
	})
	if err != nil {
		env.Skip("zfs-periodic-trim", "", withHint(err, "the zfsutils-linux cron job trims a pool as its "+zfs.PeriodicTrimProperty+" property says; without `"+argvString(zfs.PeriodicTrimArgv())+"` whether it trims each pool is unknown"))
	} else {
		j.periodic, j.periodicOK = v, true
	}
	if b, err := env.Host.ReadFile(ctx, bootcfg.ZFSTrimScript); err == nil && bytes.Contains(b, []byte("queued")) {
		j.autoSATA = true
	}
	j.nvmeOnly = map[string]bool{}
	st, err := env.ZpoolStatus(ctx)
	devs, derr := env.Devices(ctx)
	if err != nil || derr != nil {
		return j
	}
	ix := newMemberIndex(devs)
	for _, p := range st.Pools {
		j.nvmeOnly[p.Name] = true
		for _, v := range p.Leaves() {
			d, _ := ix.resolve(env, v.Name)
			if d == nil && v.Was != "" {
				d, _ = ix.resolve(env, v.Was)
			}
			if d == nil {
				delete(j.nvmeOnly, p.Name)
				break
			}
			if d.Transport != "nvme" {
				j.nvmeOnly[p.Name] = false
			}
		}
		if len(p.Leaves()) == 0 {
			delete(j.nvmeOnly, p.Name)
		}
	}
	return j
}

// zfsJobVerdict is what cron does for one pool without autotrim.
type zfsJobVerdict struct {
	covered bool   // a job trims the pool
	unknown bool   // whether a job trims it is not known
	regime  string // covered: the regime, for trim_regimes
	left    string // not covered by the zfsutils-linux job: why, for trim_uncovered
	ev      []Evidence
	// periodicOff: the zfsutils-linux job runs but its property leaves
	// the pool out; `zfs set org.debian:periodic-trim=enable POOL` puts it in.
	periodicOff bool
}

// verdict applies the zfsutils-linux script's rule (debian/tree/
// zfsutils-linux/usr/lib/zfs-linux/trim, read at the salsa.debian.org
// packaging mirrored at github.com/pop-os/zfs-linux): for each ONLINE
// pool, the root dataset's org.debian:periodic-trim decides: "disable"
// skips it, "enable" trims it, "auto" or unset ("-") trims it only when
// every /dev leaf of `zpool list -vHP` sits on an NVMe disk
// (pool_is_nvme_only, the releases from 2021 to 2026; where the installed
// script is the 2026 revision, which also trims SATA SSDs that do queued
// TRIM, a pool not all NVMe is unknown), and any other value is warned
// about and skipped. The job trims ONLINE pools only: a degraded pool waits
// for its repair, which the zfs check reports. A plain `zpool trim` line
// that names the pool trims it; one whose pool is a shell expansion may.
func (j zfsTrimJobs) verdict(pool string) zfsJobVerdict {
	var r zfsJobVerdict
	for _, l := range j.jobs.Zpool {
		names := bootcfg.ZpoolTrimNames(l.Text)
		switch {
		case slices.Contains(names, pool):
			return zfsJobVerdict{covered: true, regime: "cron zpool trim (pool " + pool + ")", ev: []Evidence{{l.Source(), l.Text}}}
		case slices.ContainsFunc(names, func(n string) bool { return strings.ContainsAny(n, "$`") }):
			r.unknown = true
			r.ev = append(r.ev, Evidence{l.Source(), l.Text})
		}
	}
	if len(j.jobs.Script) == 0 {
		return r
	}
	job := j.jobs.Script[0]
	jobEv := Evidence{job.Source(), job.Text}
	if !j.periodicOK {
		r.unknown = true
		return r
	}
	v, ok := j.periodic[pool]
	if !ok {
		// The pool's root dataset was not listed: not read, not absent.
		r.unknown = true
		return r
	}
	propEv := Evidence{argvString(zfs.PeriodicTrimArgv()), pool + "\t" + v}
	name := "the zfsutils-linux cron job (" + job.File + ")"
	switch v {
	case "enable":
		return zfsJobVerdict{covered: true, regime: name + " trims pool " + pool + " monthly (" + zfs.PeriodicTrimProperty + "=enable)", ev: []Evidence{jobEv, propEv}}
	case "disable":
		r.left = name + " skips it: " + zfs.PeriodicTrimProperty + "=disable"
		r.periodicOff = true
	case "-", "auto":
		nvme, known := j.nvmeOnly[pool]
		switch {
		case !known:
			r.unknown = true
			return r
		case nvme:
			return zfsJobVerdict{covered: true, regime: name + " trims pool " + pool + " monthly (" + zfs.PeriodicTrimProperty + " auto, every member NVMe)", ev: []Evidence{jobEv, propEv}}
		}
		if j.autoSATA {
			return zfsJobVerdict{unknown: true, regime: name + " may trim pool " + pool + " (" + zfs.PeriodicTrimProperty + " auto: its script also trims SATA SSDs that do queued TRIM)", ev: []Evidence{jobEv, propEv, {bootcfg.ZFSTrimScript, "auto mode trims SATA SSDs with queued TRIM"}}}
		}
		set := zfs.PeriodicTrimProperty + "=auto"
		if v == "-" {
			set = zfs.PeriodicTrimProperty + " not set (auto)"
		}
		r.left = name + " skips it: " + set + " trims only pools whose members are all NVMe"
		r.periodicOff = true
	default:
		r.left = name + " skips it: " + zfs.PeriodicTrimProperty + "=" + strconv.Quote(v) + " is none of auto, enable, disable"
		r.periodicOff = true
	}
	r.ev = append(r.ev, jobEv, propEv)
	return r
}
