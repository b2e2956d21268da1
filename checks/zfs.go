package checks

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/diskdoctor/diskdoctor/machine"
	"github.com/diskdoctor/diskdoctor/probes/block"
	"github.com/diskdoctor/diskdoctor/probes/zfs"
)

func init() {
	Register(Check{Name: "zfs", Description: "ZFS pools: state, errors, scrub/resilver/trim in progress, non-native block sizes, single-device special/dedup vdevs (zpool status -P -t), space and fragmentation (zpool list -Hp), the dedup table against memory (zpool status -D), per-member latency over one interval (zpool iostat -l), dataset sync/logbias/recordsize, members mapped to block devices", Run: zfsCheck})
}

// zfsPresent: a pool member on some device, or the zfs module loaded.
func zfsPresent(ctx context.Context, env *Env, devs []*block.Device) bool {
	for _, d := range devs {
		if len(zfsPools(d)) > 0 || d.Udev.Prop("ID_FS_TYPE") == "zfs_member" {
			return true
		}
		for _, p := range d.Partitions {
			if p.FSType == "zfs_member" {
				return true
			}
		}
	}
	return env.Host.Exists("/sys/module/zfs")
}

func argvString(argv []string) string { return strings.Join(argv, " ") }

// zfsRun is one run of the zfs check: what the pools' members resolve to,
// gathered pool by pool and then judged disk by disk.
type zfsRun struct {
	env                  *Env
	devs                 []*block.Device
	index                *memberIndex // made at the first member: a pool may have none
	statusCmd, iostatCmd string
	byDisk               map[string][]*member
	diskOrder            []string
}

// ix is the member index, made on first use: it holds every name of every
// disk, and a machine whose pools have no members needs none of them.
func (z *zfsRun) ix() *memberIndex {
	if z.index == nil {
		z.index = newMemberIndex(z.devs)
	}
	return z.index
}

// hangLog collects the zpool/zfs commands that did not answer: a hung
// command is itself a symptom (a stuck pool).
type hangLog struct {
	commands []string
	evidence []Evidence
}

func (h *hangLog) note(argv []string, err error) {
	if errors.Is(err, machine.ErrTimeout) {
		h.commands = append(h.commands, argvString(argv))
		h.evidence = append(h.evidence, Evidence{argvString(argv), "no answer: " + err.Error()})
	}
}

func zfsCheck(ctx context.Context, env *Env) []*Observation {
	devs, _ := env.Devices(ctx)
	if !zfsPresent(ctx, env, devs) {
		return nil
	}
	host := NewObservation("zfs", KindHost, "host")
	out := []*Observation{host}
	var hangs hangLog
	defer func() {
		host.Set("zfs_hung_commands", nonNil(hangs.commands), hangs.evidence...)
	}()
	if v, p, err := zfs.ModuleParam(ctx, env.Host, "zfs_immediate_write_sz"); err == nil {
		host.Set("zfs_immediate_write_sz", v, Evidence{p, strconv.FormatFloat(v, 'f', -1, 64)})
	} else {
		host.Set("zfs_immediate_write_sz", nil)
	}

	// A stalled pool holds each zpool command until the probe timeout:
	// asked together, they wait it out once, not once each in turn.
	var st *zfs.Status
	var err error
	together(func() { st, err = env.ZpoolStatus(ctx) }, func() { _, _ = env.ZFSAutotrim(ctx) })
	if err != nil {
		hangs.note(zfs.StatusArgv(), err)
		// A pool that hangs `zpool status` hangs `zpool get` too; its
		// answer (or its timeout) is memoised.
		if _, err := env.ZFSAutotrim(ctx); err != nil {
			hangs.note(zfs.AutotrimArgv(), err)
		}
		return out
	}
	var names []string
	for _, p := range st.Pools {
		names = append(names, p.Name)
	}
	// The other commands are asked only once zpool status answered (a
	// pool that hangs one hangs the others), and all at once.
	var (
		rows           []*zfs.IostatRow
		props          zfs.Props
		space          []*zfs.ListRow
		ioErr, propErr error
		listErr        error
	)
	together(
		func() { rows, ioErr = env.ZpoolIostat(ctx) },
		func() { props, propErr = env.ZFSProps(ctx) },
		func() { space, listErr = env.ZpoolList(ctx) },
		func() { _, _ = env.ZpoolDedup(ctx) },
	)
	hangs.note(zfs.IostatArgv(), ioErr)
	zfs.AssignPools(rows, names)
	hangs.note(zfs.GetArgv(), propErr)
	autotrim, _ := env.ZFSAutotrim(ctx)
	hangs.note(zfs.ListArgv(), listErr)
	dedup := newZFSDedupRun(ctx, env, &hangs)

	z := &zfsRun{
		env: env, devs: devs,
		statusCmd: argvString(zfs.StatusArgv()), iostatCmd: argvString(zfs.IostatArgv()),
		byDisk: map[string][]*member{},
	}
	for _, p := range st.Pools {
		o := NewObservation("zfs", KindPool, p.Name)
		out = append(out, o)
		o.Set("zfs_pool", p.Name)
		o.Set("zfs_state", p.State, Evidence{z.statusCmd, p.StateLine})
		o.Set("zfs_status", p.Status)
		if p.DataErrors >= 0 {
			// -1 is the parser's "no errors: line": unknown, never a count.
			o.Set("zfs_data_errors", p.DataErrors, Evidence{z.statusCmd, "errors: " + p.Errors})
		} else {
			o.Set("zfs_data_errors", nil)
		}
		members := z.poolMembers(o, p)
		z.poolBackground(o, p)
		poolMemberFacts(o, p, members, autotrim)
		poolDatasetFacts(o, p, props)
		poolSpaceFacts(o, p, space, listErr == nil)
		dedup.poolFacts(env, o, p.Name)
		z.poolBlockSizeFacts(o, p)
		poolRedundancyFacts(o, p, z.statusCmd)
		z.poolLatency(o, p, members, rows)
	}
	return append(out, z.deviceObservations()...)
}

// poolMembers maps a pool's leaf vdevs to disks and records their errors
// and states.
func (z *zfsRun) poolMembers(o *Observation, p *zfs.Pool) []*member {
	var vdevErrs, unavailable []string
	var errEv []Evidence
	var members []*member
	var unresolved []string
	for _, v := range p.Vdevs {
		if v.Leaf && v.Read+v.Write+v.Cksum > 0 {
			vdevErrs = append(vdevErrs, fmt.Sprintf("%s: %d read, %d write, %d checksum errors", v.Name, v.Read, v.Write, v.Cksum))
			errEv = append(errEv, Evidence{z.statusCmd, v.Line})
		}
		if v.Leaf && v.State != "" && v.State != "ONLINE" && v.State != "AVAIL" && v.State != "INUSE" {
			unavailable = append(unavailable, v.Name+" "+v.State)
			errEv = append(errEv, Evidence{z.statusCmd, v.Line})
		}
		if !v.Leaf || v.Class == "spares" {
			continue
		}
		d, part := z.ix().resolve(z.env, v.Name)
		if d == nil && v.Was != "" {
			d, part = z.ix().resolve(z.env, v.Was)
		}
		if d == nil {
			unresolved = append(unresolved, v.Name)
			continue
		}
		m := &member{pool: p, vdev: v, disk: d, part: part}
		members = append(members, m)
		if _, ok := z.byDisk[d.Name]; !ok {
			z.diskOrder = append(z.diskOrder, d.Name)
		}
		z.byDisk[d.Name] = append(z.byDisk[d.Name], m)
	}
	o.Set("zfs_vdev_problems", nonNil(unavailable))
	o.Set("zfs_vdev_errors", nonNil(vdevErrs), errEv...)
	o.Set("zfs_unresolved_members", nonNil(unresolved))
	return members
}

// poolBackground records the pool's background work: a scan (scrub,
// resilver) and trims in progress.
func (z *zfsRun) poolBackground(o *Observation, p *zfs.Pool) {
	var background []string
	var bgEv []Evidence
	sc := p.Scan
	o.Set("zfs_scan_function", sc.Function)
	o.Set("zfs_scan_in_progress", sc.InProgress)
	if sc.InProgress {
		for _, l := range sc.Lines {
			bgEv = append(bgEv, Evidence{z.statusCmd, "scan: " + l})
		}
		if sc.HasPercent {
			o.Set("zfs_scan_percent", sc.Percent)
		}
		background = append(background, scanDescription(sc))
	}
	setScanStalled(o, sc)
	var trimming []string
	minPct := 101
	for _, v := range p.Vdevs {
		if v.Trim.State != "active" {
			continue
		}
		name := v.Name
		if d, part := z.ix().resolve(z.env, v.Name); d != nil {
			name = d.Name
			if part != "" {
				name = part
			}
		}
		trimming = append(trimming, name)
		minPct = min(minPct, v.Trim.Percent)
		bgEv = append(bgEv, Evidence{z.statusCmd, v.Name + " " + v.Trim.Text})
	}
	o.Set("zfs_trim_active", len(trimming) > 0)
	if len(trimming) > 0 {
		o.Set("zfs_trim_percent", float64(minPct))
		desc := fmt.Sprintf("trim in progress on %s, %d %% done", strings.Join(trimming, ", "), minPct)
		background = append(background, desc)
	}
	o.Set("zfs_background", nonNil(background), bgEv...)
}

// setScanStalled: the running scan's estimate in minutes and whether it
// is stalled, beyond mdStallDays at zpool's rate (the same floor as md's:
// a resilver that long does not restore redundancy in a time that
// protects the pool). nil where no scan runs or zpool printed no
// estimate ("no estimated completion time" at the start of a scan).
func setScanStalled(o *Observation, sc zfs.Scan) {
	min, ok := toGoMinutes(sc.ToGo)
	if !sc.InProgress || !ok {
		o.Set("zfs_scan_to_go_min", nil)
		o.Set("zfs_scan_stalled", nil)
		return
	}
	o.Set("zfs_scan_to_go_min", min)
	o.Set("zfs_scan_stalled", min > mdStallDays*24*60)
}

// toGoMinutes reads zpool's "to go" estimate: "02:21:05", "12 days
// 03:04:05" (OpenZFS 0.8 and later, zpool_main.c print_scan_scrub_resilver_status)
// or "123h32m" (ZFS on Linux 0.7).
func toGoMinutes(s string) (float64, bool) {
	var days, h, m, sec int
	switch {
	case s == "":
		return 0, false
	case strings.Contains(s, "days"):
		if n, _ := fmt.Sscanf(s, "%d days %d:%d:%d", &days, &h, &m, &sec); n != 4 {
			return 0, false
		}
	case strings.HasSuffix(s, "m") && strings.Contains(s, "h"):
		if n, _ := fmt.Sscanf(s, "%dh%dm", &h, &m); n != 2 {
			return 0, false
		}
	default:
		if n, _ := fmt.Sscanf(s, "%d:%d:%d", &h, &m, &sec); n != 3 {
			return 0, false
		}
	}
	return float64(days*24*60+h*60+m) + float64(sec)/60, true
}

// scanDescription is a scan in progress in words: "resilver in progress,
// 12 % done at 300M/s, 01:02:03 to go (since …)".
func scanDescription(sc zfs.Scan) string {
	desc := sc.Function + " in progress"
	if sc.HasPercent {
		desc += fmt.Sprintf(", %s done", trimFloat(sc.Percent)+" %")
	}
	if sc.RateText != "" {
		desc += " at " + sc.RateText
	}
	if sc.ToGo != "" {
		if sc.ToGo == "no estimated completion time" {
			desc += ", " + sc.ToGo
		} else {
			desc += ", " + sc.ToGo + " to go"
		}
	}
	if sc.Since != "" {
		desc += " (since " + sc.Since + ")"
	}
	return desc
}

// poolMemberFacts records the pool's member and log devices by kernel
// name, and its autotrim property.
func poolMemberFacts(o *Observation, p *zfs.Pool, members []*member, autotrim map[string]string) {
	var devNames []string
	seen := map[string]bool{}
	for _, m := range members {
		if !seen[m.disk.Name] {
			seen[m.disk.Name] = true
			devNames = append(devNames, m.disk.Name)
		}
	}
	o.Set("zfs_member_devices", nonNil(devNames))
	var logs []string
	for _, m := range members {
		if m.vdev.Class == "logs" {
			logs = append(logs, m.disk.Name)
		}
	}
	o.Set("zfs_log_devices", nonNil(logs))
	if v, ok := autotrim[p.Name]; ok {
		o.Set("zfs_autotrim", v, Evidence{argvString(zfs.AutotrimArgv()), p.Name + "\t" + v})
	} else {
		o.Set("zfs_autotrim", nil)
	}
}

// poolDatasetFacts records the datasets' sync and logbias (they decide
// whether a log device is used) and the largest recordsize.
func poolDatasetFacts(o *Observation, p *zfs.Pool, props zfs.Props) {
	var syncAlways, syncDisabled, throughput []string
	var dsEv, offEv []Evidence
	var maxRecord float64
	for _, ds := range props.ByPool()[p.Name] {
		pr := props[ds]
		if pr["sync"] == "always" {
			syncAlways = append(syncAlways, ds)
			dsEv = append(dsEv, Evidence{argvString(zfs.GetArgv()), ds + "\tsync\talways"})
		}
		// sync=disabled acknowledges fsync and O_SYNC writes before they
		// reach stable storage; they are lost with the next transaction
		// group on a crash (zfsprops(7), sync).
		if pr["sync"] == "disabled" {
			syncDisabled = append(syncDisabled, ds)
			offEv = append(offEv, Evidence{argvString(zfs.GetArgv()), ds + "\tsync\tdisabled"})
		}
		if pr["logbias"] == "throughput" {
			throughput = append(throughput, ds)
			dsEv = append(dsEv, Evidence{argvString(zfs.GetArgv()), ds + "\tlogbias\tthroughput"})
		}
		if rs, err := strconv.ParseFloat(pr["recordsize"], 64); err == nil && rs > maxRecord {
			maxRecord = rs
		}
	}
	o.Set("zfs_sync_always_datasets", nonNil(syncAlways), dsEv...)
	o.Set("zfs_logbias_throughput_datasets", nonNil(throughput))
	if props == nil {
		// zfs get did not answer: which datasets disable sync is unknown.
		o.Set("zfs_sync_disabled_datasets", nil)
		o.Set("zfs_sync_disabled_roots", nil)
	} else {
		o.Set("zfs_sync_disabled_datasets", nonNil(syncDisabled), offEv...)
		// The topmost of them: setting sync on one sets it for the
		// children that inherit it (zfsprops(7), inheritance).
		o.Set("zfs_sync_disabled_roots", nonNil(topmost(syncDisabled)))
	}
	if maxRecord > 0 {
		o.Set("zfs_max_recordsize", maxRecord)
	} else {
		o.Set("zfs_max_recordsize", nil)
	}
}

// deviceObservations are the per-disk facts: pool membership and the
// member's latency.
func (z *zfsRun) deviceObservations() []*Observation {
	poolDevs := map[string][]string{}
	for _, name := range z.diskOrder {
		for _, m := range z.byDisk[name] {
			if !contains(poolDevs[m.pool.Name], name) {
				poolDevs[m.pool.Name] = append(poolDevs[m.pool.Name], name)
			}
		}
	}
	slowest, words := z.poolDataMedia()
	var out []*Observation
	for _, name := range z.diskOrder {
		ms := z.byDisk[name]
		d := ms[0].disk
		if !z.env.IsJudged(d) {
			continue
		}
		o := NewObservation("zfs", KindDevice, d.Name)
		out = append(out, o)
		// The member with the slowest device latency speaks for the disk
		// (one disk can hold a log and a cache partition).
		m := ms[0]
		for _, x := range ms[1:] {
			if eff(x.row) > eff(m.row) {
				m = x
			}
		}
		var roles []string
		for _, x := range ms {
			roles = append(roles, fmt.Sprintf("%s %s %s", x.pool.Name, classWord(x.vdev.Class), x.vdev.TopLevel))
		}
		o.Set("zfs_member_of", m.pool.Name, Evidence{z.statusCmd, m.vdev.Line})
		o.Set("zfs_roles", roles)
		o.Set("zfs_vdev", m.vdev.TopLevel)
		o.Set("zfs_vdev_class", m.vdev.Class)
		o.Set("zfs_vdev_state", m.vdev.State)
		o.Set("zfs_member_name", m.vdev.Name)
		o.Set("zfs_pool_devices", poolDevs[m.pool.Name])
		o.Set("zfs_pool_member_count", len(poolDevs[m.pool.Name]))
		o.Set("zfs_trim_state", m.vdev.Trim.State)
		// A member of a mirror, raidz or draid (not a single-disk
		// top-level vdev), and whether its pool resilvers now: the
		// facts a drive's own behaviour under rebuild is judged by
		// (smr-drive-in-redundancy, scterc-exceeds-timeout).
		o.Set("zfs_vdev_redundant", m.vdev.TopLevel != m.vdev.Name && redundantVdev(m.vdev.TopLevel))
		if sc := m.pool.Scan; sc.InProgress && (sc.Function == "resilver" || sc.Function == "rebuild") {
			var ev []Evidence
			for _, l := range sc.Lines {
				ev = append(ev, Evidence{z.statusCmd, "scan: " + l})
			}
			o.Set("zfs_pool_resilvering", true, ev...)
		} else {
			o.Set("zfs_pool_resilvering", false)
		}
		// zpool status prints the block sizes only for a member whose
		// ashift is below its native sector size; 0 means it printed none.
		o.Set("zfs_block_size_configured", float64(m.vdev.BlockConfigured))
		o.Set("zfs_block_size_native", float64(m.vdev.BlockNative))
		zfsLatencyFacts(o, m, z.byDisk, z.iostatCmd)
		z.logMediaFacts(o, ms, slowest, words)
	}
	return out
}

func classWord(c string) string {
	switch c {
	case "data":
		return "data vdev"
	case "logs":
		return "log vdev"
	}
	return c + " vdev"
}

// poolSpaceFacts records the pool's space from zpool list. ok is false when
// the command failed or is missing: every space fact is then unknown (nil),
// as is a column the pool's row left "-" or a pool zpool list did not name.
func poolSpaceFacts(o *Observation, p *zfs.Pool, rows []*zfs.ListRow, ok bool) {
	var row *zfs.ListRow
	for _, r := range rows {
		if r.Name == p.Name {
			row = r
		}
	}
	keys := []string{"zfs_capacity_percent", "zfs_fragmentation_percent", "zfs_size_bytes", "zfs_allocated_bytes", "zfs_free_bytes"}
	if !ok || row == nil {
		for _, k := range keys {
			o.Set(k, nil)
		}
		return
	}
	ev := Evidence{argvString(zfs.ListArgv()), row.Line}
	setKnown := func(k string, v float64, known bool) {
		if known {
			o.Set(k, v, ev)
		} else {
			o.Set(k, nil)
		}
	}
	setKnown(keys[0], row.Capacity, row.HasCapacity)
	setKnown(keys[1], row.Frag, row.HasFrag)
	setKnown(keys[2], row.Size, row.HasSize)
	setKnown(keys[3], row.Alloc, row.HasSize)
	setKnown(keys[4], row.Free, row.HasSize)
}

// poolBlockSizeFacts records the members whose ashift is below their
// native sector size ("block size: 512B configured, 4096B native"): each
// write smaller than the native sector makes the device read, modify and
// write a whole sector (zpool status' action: replace the devices or
// migrate the data; the ashift of a vdev is fixed at its creation,
// zpoolprops(7) ashift).
func (z *zfsRun) poolBlockSizeFacts(o *Observation, p *zfs.Pool) {
	var members []string
	var ev []Evidence
	for _, v := range p.Vdevs {
		if v.Leaf && v.BlockNative > 0 {
			members = append(members, fmt.Sprintf("%s: %dB configured, %dB native", v.Name, v.BlockConfigured, v.BlockNative))
			ev = append(ev, Evidence{z.statusCmd, v.Line})
		}
	}
	if p.NonNativeBlockSize {
		ev = append(ev, Evidence{z.statusCmd, "status: " + strings.TrimSpace(p.Status)})
	}
	o.Set("zfs_nonnative_block_size", p.NonNativeBlockSize || len(members) > 0, ev...)
	o.Set("zfs_nonnative_block_members", nonNil(members))
}

// redundantVdev: a top-level vdev that survives a lost member, by the
// name zpool status gives it (mirror-N, raidzP-N, draidP:…; zpoolconcepts(7),
// Virtual Devices).
func redundantVdev(name string) bool {
	return strings.HasPrefix(name, "mirror") || strings.HasPrefix(name, "raidz") || strings.HasPrefix(name, "draid")
}

// poolRedundancyFacts records the special and dedup vdevs that are a single
// device, and whether the data vdevs have redundancy. A special or dedup
// vdev holds the pool's metadata or dedup table: losing it loses the pool,
// so it must be at least as redundant as the data vdevs (OpenZFS
// documentation, Basic Concepts, Pool Structure, "Special vdev").
func poolRedundancyFacts(o *Observation, p *zfs.Pool, statusCmd string) {
	var single, names []string
	var ev []Evidence
	dataRedundant := false
	for _, v := range p.Vdevs {
		if v.Depth != 1 {
			continue
		}
		switch v.Class {
		case "special", "dedup":
			// A top-level row with no rows below it is a disk, a
			// partition or a file: no mirror around it.
			if v.Leaf {
				single = append(single, v.Class+" "+v.Name)
				names = append(names, v.Name)
				ev = append(ev, Evidence{statusCmd, v.Line})
			}
		case "data":
			if !v.Leaf && redundantVdev(v.Name) {
				dataRedundant = true
			}
		}
	}
	o.Set("zfs_nonredundant_alloc_vdevs", nonNil(single), ev...)
	o.Set("zfs_nonredundant_alloc_devices", nonNil(names))
	o.Set("zfs_data_redundant", dataRedundant)
}

// topmost drops the datasets whose parent (or any ancestor) is in the list;
// the list is sorted, so ancestors come first.
func topmost(sorted []string) []string {
	var out []string
	for _, ds := range sorted {
		covered := false
		for _, top := range out {
			covered = covered || strings.HasPrefix(ds, top+"/")
		}
		if !covered {
			out = append(out, ds)
		}
	}
	return out
}
