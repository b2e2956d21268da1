package checks

import (
	"context"
	"fmt"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/diskdoctor/diskdoctor/internal/shellquote"
	"github.com/diskdoctor/diskdoctor/machine"
	"github.com/diskdoctor/diskdoctor/probes/block"
	"github.com/diskdoctor/diskdoctor/probes/raidctl"
)

// controllerObservations: one observation per OS device that is a logical
// drive of a controller, one per controller, and controller_volume on
// every device behind the family's driver.
func controllerObservations(ctx context.Context, env *Env, inv *raidctl.Inventory, devs []*block.Device) []*Observation {
	r := &ctlRun{inv: inv}
	matched := map[string]bool{}
	var out []*Observation
	for _, c := range inv.Controllers {
		volumes := 0
		for _, v := range c.Volumes {
			d, how := r.volumeMatch(v, devs)
			if d == nil || matched[d.Name] {
				continue
			}
			matched[d.Name] = true
			volumes++
			o := NewObservation("controller", KindDevice, d.Name)
			o.Set("controller_volume", true, how)
			cv := r.verdict(c, v)
			r.controllerFacts(o, c, cv)
			r.volumeFacts(o, c, v, cv, smartThrough(ctx, env, inv, c, d.Name, volumeDrives(c, v)))
			out = append(out, o)
		}
		o := NewObservation("controller", KindController, c.ID)
		o.Set("kind_controller", true)
		r.controllerFacts(o, c, r.verdict(c, nil))
		o.Set("ctl_volume_count", float64(volumes))
		// What belongs to no volume of the OS: the cache when no volume
		// carries it, and the drives in no logical drive.
		o.Set("ctl_has_os_volumes", volumes > 0)
		r.unassignedFacts(o, c)
		out = append(out, o)
	}
	for _, d := range devs {
		if matched[d.Name] {
			continue
		}
		vol := isControllerVolume(d, nil)
		o := NewObservation("controller", KindDevice, d.Name)
		o.Set("controller_volume", vol)
		if vol {
			o.Set("ctl_cache_state", "unknown")
			env.Skip("controller", d.Name, withHint(fmt.Errorf("%s lists no logical drive with this disk's WWN %q or name: %w", inv.Tool, d.WWN, machine.ErrNotAvailable),
				"run "+shellquote.Join(r.argv(outVolumes))+" and compare its logical drives' identifiers with /sys/block/"+d.Name+"/device/wwid"))
		}
		out = append(out, o)
	}
	return out
}

// controllerFacts are the controller's own: model, cache module, energy
// pack, and cv, the cache verdict for the subject (a volume's, or the
// controller's alone).
func (r *ctlRun) controllerFacts(o *Observation, c *raidctl.Controller, cv cacheVerdict) {
	o.Set("ctl_family", r.inv.Family)
	o.Set("ctl_tool", r.inv.Tool)
	o.Set("ctl_controller", c.ID)
	o.Set("ctl_selector", selector(r.inv, c))
	o.Set("ctl_controller_model", valueOrNil(c.Model), r.ev(outController, c.Model)...)
	o.Set("ctl_controller_status", valueOrNil(c.Status), r.ev(outController, c.Status)...)
	o.Set("ctl_cache_present", cv.present, r.ev(outController, c.CacheBoardPresent)...)
	o.Set("ctl_cache_size", cacheSize(r.inv.Family, c.CacheSize), r.ev(outController, c.CacheSize)...)
	o.Set("ctl_cache_status", valueOrNil(c.CacheStatus), r.ev(outController, c.CacheStatus)...)
	o.Set("ctl_write_ratio", cv.ratio, r.ev(outController, c.CacheRatio)...)
	o.Set("ctl_energy_pack", cv.energy, r.ev(outController, c.EnergyPack.Present)...)
	o.Set("ctl_energy_status", nilIfEmpty(energyText(c.EnergyPack)), r.energyEvidence(c.EnergyPack)...)
	o.Set("ctl_energy_state", nilIfEmpty(energyState(c.EnergyPack)))
	o.Set("ctl_nbwc", onOff(c.NoBatteryWrite), r.ev(outController, c.NoBatteryWrite)...)
	o.Set("ctl_cache_state", cv.state, cv.ev...)
	o.Set("ctl_cache_reason", cv.reason)
	o.Set("ctl_unprotected", nonNil(cv.unprotected), cv.unprotEv...)
}

// megaCliLevel is MegaCli's RAID level line: "Primary-1, Secondary-0,
// RAID Level Qualifier-0".
var megaCliLevel = regexp.MustCompile(`^Primary-(\d+), Secondary-(\d+)`)

// raidLevel names a volume's RAID level one way for every tool: "RAID 5".
// The tools print "RAID5" (storcli), "5" or "1+0" (ssacli's Fault
// Tolerance, arcconf's RAID level) and MegaCli its Primary/Secondary
// pair, where Secondary-3 spans the primary level (RAID 10, 50, 60:
// Broadcom MegaCLI User's Guide, LDInfo).
func raidLevel(v raidctl.Value) any {
	s := strings.TrimSpace(v.Text)
	if !v.Set || s == "" {
		return nil
	}
	if m := megaCliLevel.FindStringSubmatch(s); m != nil {
		switch m[2] {
		case "0":
			return "RAID " + m[1]
		case "3":
			return "RAID " + m[1] + "0"
		}
		return s
	}
	if rest, ok := strings.CutPrefix(s, "RAID"); ok && rest != "" && rest[0] >= '0' && rest[0] <= '9' {
		return "RAID " + rest
	}
	if s[0] >= '0' && s[0] <= '9' {
		return "RAID " + s
	}
	return s
}

// cacheSize is the cache module's size as the tool printed it, with its
// unit where the tool left it out: hpacucli and early ssacli print
// "Total Cache Size: 0.2" in the GB that later ssacli names ("Total Cache
// Size: 2.0 GB", HPE Smart Storage Administrator CLI show config detail).
func cacheSize(family string, v raidctl.Value) any {
	s := valueOrNil(v)
	if family != raidctl.FamilySmartArray || s == nil {
		return s
	}
	if _, err := strconv.ParseFloat(strings.TrimSpace(v.Text), 64); err == nil {
		return strings.TrimSpace(v.Text) + " GB"
	}
	return s
}

func nilIfEmpty(s string) any {
	if s == "" {
		return nil
	}
	return s
}

// selector addresses the controller in its tool's own syntax, for the
// commands of the remediation: ssacli "ctrl slot=0", storcli "/c0",
// MegaCli "-a0", arcconf "1".
func selector(inv *raidctl.Inventory, c *raidctl.Controller) string {
	switch inv.Family {
	case raidctl.FamilyMegaCli:
		return "-" + c.ID
	case raidctl.FamilyArcconf:
		return strings.TrimPrefix(c.ID, "c")
	}
	return c.ID
}

// volumeFacts are the logical drive's own and those of its drives.
func (r *ctlRun) volumeFacts(o *Observation, c *raidctl.Controller, v *raidctl.Volume, cv cacheVerdict, health map[string]driveHealth) {
	o.Set("ctl_volume", v.ID)
	// The volume in its tool's syntax: storcli /c0/v0, MegaCli's target id
	// (-L0), ssacli's logical drive number (ld 1).
	ref := v.ID
	if r.inv.Family == raidctl.FamilyStorcli {
		ref = c.ID + "/" + v.ID
	}
	o.Set("ctl_volume_ref", ref)
	o.Set("ctl_raid", raidLevel(v.RAID), r.ev(outVolumes, v.RAID)...)
	o.Set("ctl_volume_status", valueOrNil(v.Status), r.ev(outVolumes, v.Status)...)
	o.Set("ctl_volume_degraded", volumeDegraded(v.Status), r.ev(outVolumes, v.Status)...)
	o.Set("ctl_policy_configured", nilIfEmpty(writePolicy(v.ConfiguredWrite)), r.ev(outVolumes, v.ConfiguredWrite)...)
	o.Set("ctl_policy_current", nilIfEmpty(writePolicy(v.CurrentWrite)), r.ev(outVolumes, v.CurrentWrite)...)
	o.Set("ctl_read_policy", valueOrNil(v.ReadPolicy), r.ev(outVolumes, v.ReadPolicy)...)
	// The drives' own caches: the volume's disk cache policy (MegaRAID) or
	// the controller's drive write cache setting (Smart Array).
	driveCache, dcEv := onOff(v.DiskCache), r.ev(outVolumes, v.DiskCache)
	if !v.DiskCache.Set {
		driveCache, dcEv = onOff(c.DriveWriteCache), r.ev(outController, c.DriveWriteCache)
	}
	o.Set("ctl_drive_cache", driveCache, dcEv...)
	drives := volumeDrives(c, v)
	o.Set("ctl_drives", driveIDs(drives))
	o.Set("ctl_drive_models", driveModels(drives))
	o.Set("ctl_media", nilIfEmpty(driveMedia(drives)))
	r.failingFacts(o, c, drives, health)
	r.taskFacts(o, c, v, drives)
	byDesign := cv.present == false || strings.Contains(strings.ToLower(v.Acceleration.Text), "smart path")
	o.Set("ctl_no_cache_by_design", byDesign, r.ev(outVolumes, v.Acceleration)...)
	noWrite := cv.state == "write-through" || cv.ratio == float64(0)
	o.Set("ctl_no_write_cache", noWrite && driveCache == false)
}

// volumeDegraded: a logical drive that is not whole. The healthy words are
// ssacli's "OK", storcli's "Optl" and MegaCli's "Optimal"; anything else
// ("Interim Recovery Mode", "Recovering, 45% complete", "Failed", "Dgrd",
// "Pdgd", "OfLn", "Degraded", "Partially Degraded") is not. arcconf's
// "Impacted" is a volume still being built or verified, whose work is
// its background task, not a missing member.
func volumeDegraded(v raidctl.Value) any {
	switch s := strings.ToLower(strings.TrimSpace(v.Text)); {
	case !v.Set || s == "":
		return nil
	case s == "ok" || s == "optl" || s == "optimal" || strings.HasPrefix(s, "impacted"):
		return false
	}
	return true
}

func volumeDrives(c *raidctl.Controller, v *raidctl.Volume) []*raidctl.Drive {
	var out []*raidctl.Drive
	for _, d := range c.Drives {
		if memberOf(c, d) == v.ID {
			out = append(out, d)
		}
	}
	return out
}

// memberOf is the logical drive a physical drive belongs to, "" for none.
// MegaCli's -PDList does not say which logical drive a drive serves (its
// disk group is not the drive's volume): on a controller with a single
// logical drive, every configured drive (not unconfigured, a hot spare or
// JBOD) is that volume's.
func memberOf(c *raidctl.Controller, d *raidctl.Drive) string {
	for _, v := range c.Volumes {
		if slices.Contains(v.Drives, d.ID) {
			return v.ID
		}
	}
	if d.Volume != "" {
		return d.Volume
	}
	s := strings.ToLower(d.Status.Text)
	if len(c.Volumes) == 1 && len(c.Volumes[0].Drives) == 0 && d.Status.Set &&
		!strings.Contains(s, "unconfigured") && !strings.Contains(s, "hotspare") && !strings.Contains(s, "spare") && !strings.Contains(s, "jbod") {
		return c.Volumes[0].ID
	}
	return ""
}

func driveIDs(ds []*raidctl.Drive) []string {
	out := []string{}
	for _, d := range ds {
		out = append(out, d.ID)
	}
	return out
}

func driveModels(ds []*raidctl.Drive) []string {
	out := []string{}
	for _, d := range ds {
		if m := strings.TrimSpace(d.Model.Text); m != "" {
			out = appendUniq(out, m)
		}
	}
	return out
}

// driveMedia is hdd, sata-ssd or sas-ssd when every drive agrees, mixed
// when not, "" when the tool did not say.
func driveMedia(ds []*raidctl.Drive) string {
	kind := ""
	for _, d := range ds {
		k := ""
		m, i := strings.ToUpper(d.Media.Text), strings.ToUpper(d.Interface.Text)
		switch {
		case strings.Contains(m, "SSD") || strings.Contains(m, "SOLID"):
			k = "sata-ssd"
			if strings.Contains(i, "SAS") {
				k = "sas-ssd"
			} else if strings.Contains(i, "NVME") {
				k = "nvme"
			}
		case strings.Contains(m, "HDD") || strings.Contains(m, "HARD"):
			k = "hdd"
		default:
			return ""
		}
		if kind != "" && kind != k {
			return "mixed"
		}
		kind = k
	}
	return kind
}

// driveFailing says why a physical drive is failing, "" when it is not:
// a failed or predictive-failure state (ssacli "Failed", "Predictive
// Failure"; storcli "UBad", "Offln", "F"; MegaCli "Failed",
// "Unconfigured(bad)"; arcconf "Failed", "Defunct"), a predictive failure
// count, or media errors.
func driveFailing(d *raidctl.Drive) string {
	var why []string
	s := strings.ToLower(d.Status.Text)
	if strings.Contains(s, "predictive") || strings.Contains(s, "fail") || strings.Contains(s, "bad") ||
		s == "offln" || s == "f" || strings.HasPrefix(s, "offline") || s == "defunct" {
		why = append(why, d.Status.Text)
	}
	if n, err := strconv.Atoi(strings.TrimSpace(d.Predictive.Text)); err == nil && n > 0 {
		why = append(why, "predictive failure count "+d.Predictive.Text)
	}
	if n, err := strconv.Atoi(strings.TrimSpace(d.MediaErrors.Text)); err == nil && n > 0 {
		why = append(why, "media error count "+d.MediaErrors.Text)
	}
	if len(why) == 0 {
		return ""
	}
	return d.ID + " " + strings.Join(why, ", ")
}

// failingFacts lists the failing drives among ds: by the controller's
// word, and by their own SMART health read through it (health, by drive).
func (r *ctlRun) failingFacts(o *Observation, c *raidctl.Controller, ds []*raidctl.Drive, health map[string]driveHealth) {
	failing, refs := []string{}, []string{}
	var ev []Evidence
	for _, d := range ds {
		why := driveFailing(d)
		if h, ok := health[d.ID]; ok && h.failing != "" || why != "" {
			if ref := driveRef(r.inv, c, d); ref != "" {
				refs = append(refs, ref)
			}
		}
		if why != "" {
			failing = append(failing, why)
			for _, v := range []raidctl.Value{d.Status, d.Predictive, d.MediaErrors, d.Model, d.Serial} {
				ev = append(ev, r.ev(outDrives, v)...)
			}
		}
		if h, ok := health[d.ID]; ok && h.failing != "" {
			failing = append(failing, h.failing)
			ev = append(ev, h.ev)
		}
	}
	o.Set("ctl_failing_drives", failing, ev...)
	o.Set("ctl_failing_drive_refs", refs)
}

// driveRef is a physical drive in its tool's syntax for a command on it:
// MegaCli -PhysDrv[E:S] (MegaRAID SAS Software User Guide), storcli
// /cX/eE/sS or /cX/sS without an enclosure (StorCLI Reference Manual),
// ssacli's bay address (1I:1:1); "" for arcconf, whose commands name a
// drive by channel and ID, which its drive list does not give.
func driveRef(inv *raidctl.Inventory, c *raidctl.Controller, d *raidctl.Drive) string {
	switch inv.Family {
	case raidctl.FamilyMegaCli:
		return "-PhysDrv[" + d.ID + "]"
	case raidctl.FamilyStorcli:
		enc, slot, ok := strings.Cut(d.ID, ":")
		if !ok {
			return ""
		}
		if enc == "" {
			return c.ID + "/s" + slot
		}
		return c.ID + "/e" + enc + "/s" + slot
	case raidctl.FamilyArcconf:
		return ""
	}
	return d.ID
}

// taskFacts: background work on the volume, on its drives (a rebuild) and,
// for the controller alone (v nil), what no volume claims.
func (r *ctlRun) taskFacts(o *Observation, c *raidctl.Controller, v *raidctl.Volume, drives []*raidctl.Drive) {
	tasks, stalled := []string{}, []string{}
	rebuilding := false
	var ev []Evidence
	add := func(t raidctl.Task, on string) {
		rebuilding = rebuilding || t.Kind == raidctl.TaskRebuild
		s := t.Kind + " on " + on
		if t.Progress.Set {
			s += " (" + t.Progress.Text + ")"
		}
		if why := taskStalled(t); why != "" && !slices.Contains(tasks, s) {
			stalled = append(stalled, s+": "+why)
		}
		out := outVolumes
		if r.inv.Family == raidctl.FamilyMegaCli && t.Kind == raidctl.TaskPatrolRead {
			// MegaCli's only patrol read line is -AdpPR's (storcli's
			// evidence names its output itself).
			out = outPatrolRead
		}
		if !slices.Contains(tasks, s) {
			tasks = append(tasks, s)
			ev = append(ev, r.ev(out, raidctl.Value{Text: s, Line: t.Line, Set: true})...)
		}
	}
	if v != nil {
		for _, t := range v.Tasks {
			add(t, c.ID+" logical drive "+v.ID)
		}
	}
	for _, t := range c.Tasks {
		if d := taskDrive(t, c.Drives); d != nil && (v == nil || slices.Contains(drives, d)) {
			add(t, c.ID+" drive "+d.ID)
		} else if v == nil && d == nil {
			add(t, c.ID)
		}
	}
	o.Set("ctl_tasks", tasks, ev...)
	o.Set("ctl_tasks_stalled", stalled)
	o.Set("ctl_rebuilding", rebuilding)
}

// megaCliTaken is MegaCli's progress line: "Completed 4%, Taken 616 min."
var megaCliTaken = regexp.MustCompile(`Completed (\d+(?:\.\d+)?)%, Taken (\d+) min`)

// taskStalled says why a controller task makes no headway, "" when it
// does or when the tool gives no time to judge it by. Only MegaCli prints
// how long a task has run beside its progress; at that pace, what is left
// taking more than taskStallDays is called stalled, as md's passes are
// (checks/md.go mdStallDays): a rebuild or check the controller runs at
// its configured rate ends in hours to days (MegaRAID SAS Software User
// Guide: Rebuild Rate, CC Rate).
func taskStalled(t raidctl.Task) string {
	m := megaCliTaken.FindStringSubmatch(t.Line.Text)
	if m == nil {
		return ""
	}
	pct, _ := strconv.ParseFloat(m[1], 64)
	taken, _ := strconv.ParseFloat(m[2], 64)
	switch {
	case pct <= 0 && taken >= 24*60:
		return fmt.Sprintf("0 %% done after %.0f minutes", taken)
	case pct > 0 && pct < 100:
		if left := taken * (100 - pct) / pct; left > taskStallDays*24*60 {
			return fmt.Sprintf("%.0f days to go at the pace of its %.0f minutes so far", left/(24*60), taken)
		}
	}
	return ""
}

// taskStallDays: see taskStalled.
const taskStallDays = mdStallDays

// taskDrive is the drive whose state line a controller task was read from
// (a drive in rebuild), nil for none.
func taskDrive(t raidctl.Task, ds []*raidctl.Drive) *raidctl.Drive {
	for _, d := range ds {
		if d.Status.Line == t.Line {
			return d
		}
	}
	return nil
}

// unassignedFacts: the drives in no logical drive the OS sees, on the
// controller's own subject.
func (r *ctlRun) unassignedFacts(o *Observation, c *raidctl.Controller) {
	var loose []*raidctl.Drive
	for _, d := range c.Drives {
		if memberOf(c, d) == "" {
			loose = append(loose, d)
		}
	}
	r.failingFacts(o, c, loose, nil)
	var tasks []raidctl.Task
	for _, t := range c.Tasks {
		if d := taskDrive(t, c.Drives); d == nil || memberOf(c, d) == "" {
			tasks = append(tasks, t)
		}
	}
	r.taskFacts(o, &raidctl.Controller{ID: c.ID, Tasks: tasks, Drives: c.Drives}, nil, nil)
}
