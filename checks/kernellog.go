package checks

import (
	"time"

	"context"
	"fmt"
	"path"
	"regexp"
	"sort"
	"strconv"
	"strings"

	"github.com/diskdoctor/diskdoctor/probes/block"
	"github.com/diskdoctor/diskdoctor/probes/kernlog"
	"github.com/diskdoctor/diskdoctor/probes/system"
)

func init() {
	Register(Check{Name: "kernel-log", Description: "the kernel log: I/O and medium errors, ATA exceptions, resets, timeouts, link speed limits, NCQ turned off, NVMe aborts and resets, filesystem errors and read-only remounts per disk; hung tasks and thermal throttling for the host", Run: kernelLogCheck})
}

// klogSeverity orders categories for evidence; klogCritical are the ones
// that mean data did not reach or come back from the medium.
var (
	klogOrder = []string{
		kernlog.MediumError, kernlog.IOError, kernlog.DeviceFailed, kernlog.FSReadOnly,
		kernlog.FSError, kernlog.FSCorrupt, kernlog.Timeout, kernlog.ControllerReset, kernlog.LinkReset,
		kernlog.LinkError, kernlog.LinkLimited, kernlog.NCQDisabled, kernlog.ATAException,
		kernlog.CommandFailed, kernlog.LinkUp,
	}
	klogCritical = map[string]bool{kernlog.MediumError: true, kernlog.IOError: true, kernlog.DeviceFailed: true, kernlog.FSReadOnly: true}
	klogNames    = map[string][2]string{
		kernlog.MediumError:     {"medium error", "medium errors"},
		kernlog.IOError:         {"I/O error", "I/O errors"},
		kernlog.DeviceFailed:    {"device failure (not ready, disabled or offline)", "device failures (not ready, disabled or offline)"},
		kernlog.FSReadOnly:      {"filesystem forced read-only", "filesystem read-only remounts or shutdowns"},
		kernlog.FSError:         {"filesystem error", "filesystem errors"},
		kernlog.FSCorrupt:       {"btrfs filesystem corruption (not a disk error)", "btrfs filesystem corruption reports (not disk errors)"},
		kernlog.Timeout:         {"command timeout", "command timeouts"},
		kernlog.ControllerReset: {"controller reset", "controller resets"},
		kernlog.LinkReset:       {"link reset", "link resets"},
		kernlog.LinkError:       {"link (bus/CRC) error", "link (bus/CRC) errors"},
		kernlog.LinkLimited:     {"link speed limit", "link speed limits"},
		kernlog.NCQDisabled:     {"NCQ disabled after errors", "NCQ disabled after errors"},
		kernlog.ATAException:    {"ATA exception", "ATA exceptions"},
		kernlog.CommandFailed:   {"failed command", "failed commands"},
	}
)

// maxKlogEvidence bounds the sample lines per device: the worst groups first.
const maxKlogEvidence = 12

func kernelLogCheck(ctx context.Context, env *Env) []*Observation {
	log, err := env.KernelLog(ctx)
	if err != nil || log == nil {
		return nil
	}
	topo := klogTopology(ctx, env, log)
	uptime, err := Probe(ctx, env, func(ctx context.Context) (float64, error) { return system.ReadUptime(ctx, env.Host) })
	if err != nil {
		uptime = -1
	}
	var judged []string
	devs := env.Judged(ctx)
	for _, d := range devs {
		judged = append(judged, d.Name)
	}
	obs := KernelLogObservations(log, topo, uptime, judged)
	klogUnknown(env, log, topo, devs, obs)
	for _, o := range obs {
		if o.Get("klog_gone") == true {
			linkGoneMember(ctx, env, topo, o)
		}
	}
	return obs
}

// klogTopology maps what the log names (ports, controllers, PCI
// functions) to the machine's disks, and learns the ones only the log
// knows.
func klogTopology(ctx context.Context, env *Env, log *kernlog.Log) *kernlog.Topology {
	devs, derr := env.Devices(ctx)
	topo := kernlog.NewTopology(devs, block.NVMePCIAddresses(env.Host, devs))
	// An empty /sys/block that could be read is every disk gone, not a
	// log without a machine: the disks the log names are judged as gone.
	topo.Listed = derr == nil
	topo.LearnFromLog(log)
	return topo
}

// linkGoneMember names the md array or ZFS pool a vanished disk was a
// member of, from /proc/mdstat (a failed member stays listed until it is
// removed) and zpool status (a missing vdev keeps its name, or "was
// /dev/…"). Only read when a disk is gone: these probes cost time.
func linkGoneMember(ctx context.Context, env *Env, topo *kernlog.Topology, o *Observation) {
	members, _ := o.Get("klog_member_of").([]string)
	members, ev := mdMemberships(ctx, env, topo, o.Subject, members)
	members, zev := zfsMemberships(ctx, env, topo, o.Subject, members)
	o.Set("klog_member_of", nonNil(members), append(ev, zev...)...)
}

// mdMemberships adds the md arrays /proc/mdstat lists dev in (md(4)).
func mdMemberships(ctx context.Context, env *Env, topo *kernlog.Topology, dev string, members []string) ([]string, []Evidence) {
	arrays, err := env.MDStat(ctx)
	if err != nil {
		return members, nil
	}
	var ev []Evidence
	for _, a := range arrays {
		for _, m := range a.Members {
			if !contains(topo.Attribute(kernlog.RefBlock, m.Name), dev) {
				continue
			}
			state := "member"
			if m.Faulty {
				state = "marked failed"
			}
			members = appendUniq(members, fmt.Sprintf("%s (%s, %s in /proc/mdstat)", a.Name, m.Name, state))
			ev = append(ev, Evidence{"/proc/mdstat", strings.Join(a.Lines, " | ")})
		}
	}
	return members, ev
}

// zfsMemberships adds the ZFS pools whose leaf vdevs name dev, now or as
// "was /dev/…" (zpool-status(8)), when the zfs module is loaded.
func zfsMemberships(ctx context.Context, env *Env, topo *kernlog.Topology, dev string, members []string) ([]string, []Evidence) {
	if !env.Host.Exists("/sys/module/zfs") {
		return members, nil
	}
	st, err := env.ZpoolStatus(ctx)
	if err != nil || st == nil {
		return members, nil
	}
	names := func(name string) bool { return contains(topo.Attribute(kernlog.RefBlock, path.Base(name)), dev) }
	var ev []Evidence
	for _, p := range st.Pools {
		for _, v := range p.Vdevs {
			if !v.Leaf || (!names(v.Name) && !names(v.Was)) {
				continue
			}
			members = appendUniq(members, fmt.Sprintf("ZFS pool %s (%s, %s)", p.Name, v.Name, v.State))
			ev = append(ev, Evidence{"zpool status -P -t", v.Line})
		}
	}
	return members, ev
}

// KernelLogObservations turns a classified log into one observation per
// judged disk (every one of them, errors or not) and one for the host.
func KernelLogObservations(log *kernlog.Log, topo *kernlog.Topology, uptime float64, judged []string) []*Observation {
	events := kernlog.Classify(log, topo, uptime)
	groups := kernlog.GroupEvents(events)
	links := kernlog.SATALinks(events)
	byDev := map[string][]kernlog.Group{}
	var order []string
	for _, g := range groups {
		if _, ok := byDev[g.Device]; !ok {
			order = append(order, g.Device)
		}
		byDev[g.Device] = append(byDev[g.Device], g)
	}
	var out []*Observation
	isJudged := map[string]bool{}
	linkOf := topo.LinksByDisk()
	for _, dev := range judged {
		isJudged[dev] = true
		o := klogDevice(dev, byDev[dev], links[linkOf[dev]], uptime)
		out = append(out, o)
	}
	for _, dev := range order {
		if dev == "" || isJudged[dev] || !gone(topo, dev) {
			continue
		}
		out = append(out, klogGone(dev, byDev[dev], events, uptime, topo.Transport[dev])...)
	}
	host := klogHost(byDev[""], uptime)
	setKlogPorts(host, kernlog.DisabledDevices(log, events, topo), uptime)
	out = append(out, host)
	return out
}

// setKlogPorts records the devices libata disabled (or SCSI took offline)
// that no disk is attributed to: a disk the kernel gave up on before it
// got a name, or whose name the log does not give (ata_dev_disable,
// drivers/ata/libata-core.c). One that was configured again later came
// back and is listed apart: the kernel gave up on it once, and it answers
// now.
func setKlogPorts(o *Observation, devs []kernlog.DisabledDevice, uptime float64) {
	var disabled, recovered []string
	var dEv, rEv []Evidence
	for _, d := range devs {
		name := d.Device
		if d.Port == "" {
			name = "SCSI " + d.Device
		}
		if d.Model != "" {
			name += " (" + d.Model + ")"
		}
		desc := name + " disabled " + klogWhenShort(d.Line, uptime)
		if before := klogBefore(d.Before); before != "" {
			desc += ", after " + before
		}
		ev := []Evidence{{"dmesg line " + strconv.Itoa(d.Line.Num), d.Line.Raw}}
		if d.Model != "" {
			ev = append(ev, Evidence{"dmesg line " + strconv.Itoa(d.ModelLine.Num), d.ModelLine.Raw})
		}
		if d.Recovered != nil {
			desc += ", configured again " + klogWhenShort(*d.Recovered, uptime)
			recovered = append(recovered, desc)
			rEv = append(rEv, append(ev, Evidence{"dmesg line " + strconv.Itoa(d.Recovered.Num), d.Recovered.Raw})...)
			continue
		}
		disabled = append(disabled, desc)
		dEv = append(dEv, ev...)
	}
	o.Set("klog_ports_disabled", nonNil(disabled), dEv...)
	o.Set("klog_ports_recovered", nonNil(recovered), rEv...)
}

// klogWhenShort is klogWhen for a phrase: "at 2018-06-19 02:39:19",
// "75 s after boot".
func klogWhenShort(l kernlog.Line, uptime float64) string {
	w := klogWhen(l, uptime)
	if !l.Wall.IsZero() {
		return "at " + w
	}
	if strings.HasPrefix(w, "log line") {
		return "at " + w
	}
	return w
}

// klogBefore is a port's messages before it was disabled in words, worst
// category first: "3 failed commands, 3 command timeouts".
func klogBefore(counts map[string]int) string {
	var parts []string
	for _, c := range klogOrder {
		n := counts[c]
		if n == 0 || c == kernlog.DeviceFailed {
			continue
		}
		name := klogNames[c][1]
		if n == 1 {
			name = klogNames[c][0]
		}
		parts = append(parts, fmt.Sprintf("%d %s", n, name))
	}
	return strings.Join(parts, ", ")
}

// gone: sysfs was read and does not list the disk the log names.
func gone(topo *kernlog.Topology, dev string) bool {
	return !topo.LogOnly && topo.HasInventory() && !topo.Inventory[dev]
}

// mdFailureLine is md's "md/raid1:md0: Disk failure on nvme9n1p2,
// disabling device." (raid1_error, raid10_error, raid5_error).
var mdFailureLine = regexp.MustCompile(`^md/raid\d*:(md\w+): Disk failure on ([\w-]+),`)

// klogGone are the observations of a disk that left /sys/block: its error
// messages, when it was last heard of, and the arrays it was a member of
// by md's own words; and its inventory (not judged, its bus and /dev
// path), which only the log still tells. None when nothing but boot
// probing named it.
func klogGone(dev string, groups []kernlog.Group, events []kernlog.Event, uptime float64, transport string) []*Observation {
	o := klogDevice(dev, groups, nil, uptime)
	if n, _ := o.Get("klog_events").(int); n == 0 {
		return nil
	}
	var last kernlog.Line
	var members []string
	for _, e := range events {
		if !contains(e.Devices, dev) {
			continue
		}
		last = e.Line
		if m := mdFailureLine.FindStringSubmatch(e.Line.Text); m != nil {
			members = appendUniq(members, fmt.Sprintf("%s (%s, failed by md)", m[1], m[2]))
		}
	}
	o.Set("klog_gone", true, Evidence{"dmesg line " + strconv.Itoa(last.Num), last.Raw})
	o.Set("klog_gone_since", klogWhen(last, uptime))
	o.Set("klog_member_of", nonNil(members))
	if transport == "" {
		transport = goneTransport(dev)
	}
	inv := NewObservation("inventory", KindDevice, dev)
	inv.Set("judged", false)
	inv.Set("transport", transport)
	inv.Set("dev_path", "/dev/"+dev)
	return []*Observation{o, inv}
}

// klogWhen says when a line was logged, in the terms the log gives: its
// wall-clock time, or seconds after boot (and how long ago, with uptime).
func klogWhen(l kernlog.Line, uptime float64) string {
	switch {
	case !l.Wall.IsZero() && l.Wall.Year() > 0 && l.Wall.Location() == time.UTC:
		// No zone in the line (dmesg -T prints the machine's local
		// time): naming one would say more than the log.
		return l.Wall.Format("2006-01-02 15:04:05")
	case !l.Wall.IsZero() && l.Wall.Year() > 0:
		return l.Wall.Format("2006-01-02 15:04:05 MST")
	case !l.Wall.IsZero():
		return l.Wall.Format("Jan _2 15:04:05")
	case l.Time >= 0 && uptime >= l.Time && !l.EarlierBoot:
		ago := uptime - l.Time
		if ago < 3600 {
			return fmt.Sprintf("%s after boot, %.0f min ago", bootOffset(l.Time), ago/60)
		}
		return fmt.Sprintf("%s after boot, %s ago", bootOffset(l.Time), span(ago))
	case l.Time >= 0:
		return bootOffset(l.Time) + " after boot"
	}
	return "log line " + strconv.Itoa(l.Num)
}

// bootOffset is a log line's seconds after boot as a person reads them,
// with the seconds the line shows ("[1513147.2…]") beside a long one:
// "75 s", "17.5 days (1513147 s)".
func bootOffset(secs float64) string {
	if secs < 3600 {
		return fmt.Sprintf("%.0f s", secs)
	}
	return fmt.Sprintf("%s (%.0f s)", span(secs), secs)
}

// span is a duration of an hour or more in hours, or in days beyond two.
func span(secs float64) string {
	if secs < 2*86400 {
		return fmt.Sprintf("%.1f h", secs/3600)
	}
	return fmt.Sprintf("%.1f days", secs/86400)
}

// goneTransport guesses the bus from the kernel's name for the disk; the
// sysfs path that would say is gone with it.
func goneTransport(dev string) string {
	switch {
	case strings.HasPrefix(dev, "nvme"):
		return "nvme"
	case strings.HasPrefix(dev, "sd"):
		return "scsi"
	}
	return ""
}

func klogDevice(dev string, groups []kernlog.Group, link *kernlog.SATALinkState, uptime float64) *Observation {
	o := NewObservation("kernel-log", KindDevice, dev)
	t := tallyKlog(groups)
	downgraded := link.Downgraded()
	if downgraded && t.counts[kernlog.LinkLimited] == 0 {
		// The link came up slower than before without a "limiting" line.
		t.groups = append(t.groups, kernlog.Group{Category: kernlog.LinkUp, Device: dev, Count: 1, First: link.LastEvent.Line, Last: link.LastEvent.Line, Boot: link.LastEvent.Boot})
	}
	sortKlogGroups(t.groups)
	total, critical, cats, summary := t.summary()
	o.Set("klog_events", total, klogSamples(t.groups)...)
	o.Set("klog_critical_events", critical)
	o.Set("klog_categories", nonNil(cats))
	o.Set("klog_summary", strings.Join(summary, ", "))
	counts := t.counts
	o.Set("klog_io_errors", counts[kernlog.IOError])
	o.Set("klog_medium_errors", counts[kernlog.MediumError])
	o.Set("klog_timeouts", counts[kernlog.Timeout])
	o.Set("klog_resets", counts[kernlog.LinkReset]+counts[kernlog.ControllerReset])
	o.Set("klog_link_errors", counts[kernlog.LinkError])
	o.Set("klog_fs_errors", counts[kernlog.FSError])
	o.Set("klog_fs_readonly", counts[kernlog.FSReadOnly] > 0)
	o.Set("klog_device_failed", counts[kernlog.DeviceFailed] > 0)
	o.Set("klog_ncq_disabled", counts[kernlog.NCQDisabled] > 0)
	o.Set("klog_boot_only", total > 0 && t.bootOnly)
	if t.newest != nil {
		o.Set("klog_last_age_s", round(*t.newest, 0))
		o.Set("klog_last_age_h", round(*t.newest/3600, 1))
	} else {
		o.Set("klog_last_age_s", nil)
		o.Set("klog_last_age_h", nil)
	}
	o.Set("klog_link_downgraded", downgraded)
	setKlogLink(o, link, downgraded)
	return o
}

// klogTally is one disk's error messages counted by category.
type klogTally struct {
	counts   map[string]int
	groups   []kernlog.Group // the groups that count, worst first once sorted
	bootOnly bool            // every one of them logged while the kernel booted
	newest   *float64        // age of the newest, seconds
}

func tallyKlog(groups []kernlog.Group) klogTally {
	t := klogTally{counts: map[string]int{}, bootOnly: true}
	// One failed read is logged by libata (drivers/ata/libata-eh.c), the
	// SCSI layer (drivers/scsi/scsi_logging.c, sd.c) and the block layer
	// (block/blk-mq.c), each in its own words: a category counts the
	// incidents of the pattern that saw most of them, not the sum of every
	// layer's lines.
	perPattern := map[string]int{}
	patternCat := map[string]string{}
	for _, g := range groups {
		switch g.Category {
		case kernlog.WriteCache, kernlog.PCIeBandwidth, kernlog.LinkUp:
			continue
		}
		perPattern[g.Pattern] += g.Count
		patternCat[g.Pattern] = g.Category
		t.groups = append(t.groups, g)
		t.bootOnly = t.bootOnly && g.Boot
		if g.Age != nil && (t.newest == nil || *g.Age < *t.newest) {
			a := *g.Age
			t.newest = &a
		}
	}
	for p, n := range perPattern {
		if c := patternCat[p]; n > t.counts[c] {
			t.counts[c] = n
		}
	}
	return t
}

// sortKlogGroups puts the worst category first; within one, a message's
// own line before an indented continuation line (the "res …" under an ATA
// command).
func sortKlogGroups(groups []kernlog.Group) {
	sort.SliceStable(groups, func(i, j int) bool {
		a, b := groups[i], groups[j]
		if ra, rb := klogRank(a.Category), klogRank(b.Category); ra != rb {
			return ra < rb
		}
		return !indented(a.First.Raw) && indented(b.First.Raw)
	})
}

// summary is the tally in words, worst category first: the events, the
// critical ones among them, the categories seen, "2 medium errors, …".
func (t klogTally) summary() (total, critical int, cats, summary []string) {
	for _, c := range klogOrder {
		n := t.counts[c]
		if n == 0 {
			continue
		}
		total += n
		if klogCritical[c] {
			critical += n
		}
		cats = append(cats, c)
		name := klogNames[c][1]
		if n == 1 {
			name = klogNames[c][0]
		}
		summary = append(summary, fmt.Sprintf("%d %s", n, name))
	}
	return total, critical, cats, summary
}

// klogSamples are the evidence of a disk's messages: one line per group,
// the first maxKlogEvidence groups and a count of the rest.
func klogSamples(groups []kernlog.Group) []Evidence {
	var evs []Evidence
	for i, g := range groups {
		if i == maxKlogEvidence {
			evs = append(evs, Evidence{"dmesg", fmt.Sprintf("… %d more kinds of message", len(groups)-i)})
			break
		}
		evs = append(evs, klogEvidence(g))
	}
	return evs
}

// setKlogLink: the speed the SATA link last came up at.
func setKlogLink(o *Observation, link *kernlog.SATALinkState, downgraded bool) {
	if link != nil && link.LastUp > 0 {
		// The line is evidence only where the speed may matter: a link
		// below SATA's 6 Gb/s or one libata slowed down.
		var ev []Evidence
		if l := link.LastEvent.Line; downgraded || link.LastUp < 6 {
			ev = append(ev, Evidence{"dmesg line " + strconv.Itoa(l.Num), l.Raw})
		}
		o.Set("klog_link_gbps", link.LastUp, ev...)
		return
	}
	o.Set("klog_link_gbps", nil)
}

func klogHost(groups []kernlog.Group, uptime float64) *Observation {
	o := NewObservation("kernel-log", KindHost, "host")
	hung, thermal := 0, 0
	var hungEv, thermalEv []Evidence
	for _, g := range groups {
		switch g.Category {
		case kernlog.HungTask:
			hung += g.Count
			if len(hungEv) < maxKlogEvidence {
				hungEv = append(hungEv, klogEvidence(g))
			}
		case kernlog.Thermal:
			thermal += g.Count
			if len(thermalEv) < maxKlogEvidence {
				thermalEv = append(thermalEv, klogEvidence(g))
			}
		}
	}
	o.Set("klog_hung_tasks", hung, hungEv...)
	o.Set("klog_thermal_throttle", thermal, thermalEv...)
	if uptime >= 0 {
		o.Set("uptime_s", round(uptime, 0), Evidence{"/proc/uptime", strconv.FormatFloat(uptime, 'f', 2, 64)})
	} else {
		o.Set("uptime_s", nil)
	}
	return o
}

func klogRank(c string) int {
	for i, x := range klogOrder {
		if x == c {
			return i
		}
	}
	return len(klogOrder)
}

// klogEvidence is one group as evidence: its first line, and how often and
// until when it repeated.
func klogEvidence(g kernlog.Group) Evidence {
	if g.Count <= 1 {
		return Evidence{"dmesg line " + strconv.Itoa(g.First.Num), g.First.Raw}
	}
	src := fmt.Sprintf("dmesg lines %d-%d (%d times", g.First.Num, g.Last.Num, g.Count)
	if g.First.Time >= 0 && g.Last.Time >= 0 {
		src += fmt.Sprintf(", %.1f s to %.1f s after boot", g.First.Time, g.Last.Time)
	}
	return Evidence{src + ")", g.First.Raw}
}

func indented(raw string) bool { return strings.HasPrefix(raw, " ") || strings.HasPrefix(raw, "\t") }
