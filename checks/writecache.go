package checks

import (
	"context"
	"errors"
	"strconv"
	"strings"

	"github.com/diskdoctor/diskdoctor/internal/parallel"
	"github.com/diskdoctor/diskdoctor/machine"
	"github.com/diskdoctor/diskdoctor/probes/block"
	"github.com/diskdoctor/diskdoctor/probes/bootcfg"
	"github.com/diskdoctor/diskdoctor/probes/drive"
	"github.com/diskdoctor/diskdoctor/probes/kernlog"
)

func init() {
	Register(Check{Name: "write-cache", Description: "drive write cache: kernel view, SCSI cache_type, boot log, udev record, the drive's own state, and what re-enables it at boot", Run: writeCache})
}

// writeCache gathers every view of a drive's volatile write cache. The
// kernel's view (queue/write_cache, Documentation/ABI/stable/sysfs-block;
// cache_type, drivers/scsi/sd.c) is what it believes and acts on (whether
// it sends flushes); the drive's own state (hdparm -W, ATA IDENTIFY
// DEVICE word 85 bit 5, ACS-3) is what the drive does. The boot log and udev's record
// tell what the drive reported when it appeared.
func writeCache(ctx context.Context, env *Env) []*Observation {
	log, _ := env.KernelLog(ctx)
	bootLines := log.WriteCacheLines()
	noPage := log.NoCachePageLines()
	judged := env.Judged(ctx)
	var persist *bootcfg.CachePersistence
	if len(judged) > 0 {
		// The candidate lines are read once; which disk each covers is
		// decided per disk below.
		persist = bootcfg.ReadCachePersistence(ctx, env.Host)
		if persist.Err != nil {
			env.Skip("write-cache persistence", "", withHint(persist.Err, "the recording holds no /etc: whether a udev rule, unit or hdparm.conf re-enables the cache at boot is unknown; record the machine again with diskdoctor snapshot (it records /etc/udev/rules.d, /etc/systemd/system and /etc/hdparm.conf)"))
		}
	}
	var out []*Observation
	type job struct {
		o *Observation
		d *block.Device
	}
	var jobs []job
	for _, d := range judged {
		o := NewObservation("write-cache", KindDevice, d.Name)
		out = append(out, o)
		setCacheViews(ctx, env, o, d, bootLines)
		setNoCachePage(o, d, log, noPage)
		o.Set("wc_drive_supported", nil)
		o.Set("wc_drive_enabled", nil)
		o.Set("ata", isATA(d))
		if isATA(d) || d.Transport == "nvme" {
			jobs = append(jobs, job{o, d})
		}
	}
	// Every drive is asked in a goroutine of its own: RunCommand's slots
	// bound how many of their commands run at once.
	parallel.Each(len(jobs), len(jobs), func(i int) { readDriveCache(ctx, env, jobs[i].o, jobs[i].d) })
	setPersistence(ctx, env, persist, out, judged)
	for _, o := range out {
		derive(o)
	}
	return out
}

// setCacheViews records what the kernel, the boot log and udev say of the
// disk's write cache, without asking the drive.
func setCacheViews(ctx context.Context, env *Env, o *Observation, d *block.Device, bootLines map[string]kernlog.WriteCacheLine) {
	o.Set("wc_nvme_vwc", nil)
	if v := d.Queue.WriteCache; v != "" {
		ev := Evidence{d.Files["write_cache"], v}
		o.Set("wc_kernel_on", v == "write back", ev)
		// For NVMe the kernel shows "write back" exactly when Identify
		// Controller reports a volatile write cache (VWC; the queue's
		// write cache feature in drivers/nvme/host/core.c); drives with
		// power-loss protection usually have none, and "write through"
		// is then their normal state.
		if d.Transport == "nvme" {
			o.Set("wc_nvme_vwc", v == "write back", ev)
		}
	} else {
		o.Set("wc_kernel_on", nil)
	}
	o.Set("wc_scsi_cache_type", nil)
	if d.SCSIAddr != "" {
		p := "/sys/class/scsi_disk/" + d.SCSIAddr + "/cache_type"
		if v, err := env.Host.ReadString(ctx, "/sys/block/"+d.Name+"/device/scsi_disk/"+d.SCSIAddr+"/cache_type"); err == nil {
			o.Set("wc_scsi_cache_type", v, Evidence{p, v})
		}
	}
	if l, ok := bootLines[d.Name]; ok {
		o.Set("wc_boot_enabled", l.Enabled, Evidence{"dmesg line " + strconv.Itoa(l.Line.Num), l.Line.Raw})
	} else {
		o.Set("wc_boot_enabled", nil)
	}
	o.Set("wc_udev_supported", nil)
	o.Set("wc_udev_enabled", nil)
	if u := d.Udev; u != nil {
		if v := u.Prop("ID_ATA_WRITE_CACHE"); v != "" {
			o.Set("wc_udev_supported", v == "1", Evidence{u.Path, "ID_ATA_WRITE_CACHE=" + v})
		}
		if v := u.Prop("ID_ATA_WRITE_CACHE_ENABLED"); v != "" {
			o.Set("wc_udev_enabled", v == "1", Evidence{u.Path, "ID_ATA_WRITE_CACHE_ENABLED=" + v})
		}
	}
}

// setNoCachePage records whether the SCSI disk driver found no Caching
// mode page on the device at probe time (sd_read_cache_type,
// drivers/scsi/sd.c): such a device (many USB sticks and card readers) has
// no write cache the host could switch on, and sd assumed write through.
// Unknown (nil) when the kernel log could not be read.
func setNoCachePage(o *Observation, d *block.Device, log *kernlog.Log, lines map[string]kernlog.Line) {
	if log == nil {
		o.Set("wc_no_cache_page", nil)
		return
	}
	if l, ok := lines[d.Name]; ok {
		o.Set("wc_no_cache_page", true, Evidence{"dmesg line " + strconv.Itoa(l.Num), l.Raw})
		return
	}
	o.Set("wc_no_cache_page", false)
}

// setPersistence records, on each disk's observation, what re-enables its
// cache at boot, and the drives the doctor's own rules file covers.
func setPersistence(ctx context.Context, env *Env, persist *bootcfg.CachePersistence, out []*Observation, judged []*block.Device) {
	byName := map[string]*block.Device{}
	for _, d := range judged {
		byName[d.Name] = d
	}
	var ownSerials []string
	for _, o := range out {
		d := byName[o.Subject]
		judgePersistence(ctx, env, persist, o, d)
		if own, _ := o.Get("wc_own_rule_covers").(bool); own && d.Udev.Prop("ID_SERIAL") != "" {
			ownSerials = append(ownSerials, d.Udev.Prop("ID_SERIAL"))
		}
	}
	for _, o := range out {
		// The doctor's own rules file is rewritten whole: it must keep the
		// drives it already covers.
		o.Set("wc_own_rule_serials", nonNil(ownSerials))
	}
}

// OwnRulesFile is the file the doctor's persistent write-cache fix writes.
const OwnRulesFile = "/etc/udev/rules.d/69-diskdoctor-write-cache.rules"

// judgePersistence decides, for this disk, which configuration line turns
// its cache on at boot: a udev rule whose match keys hold for the disk's
// own properties and attributes, an enabled unit or an hdparm.conf stanza
// naming it. A rule that only sets queue/write_cache does not count.
func judgePersistence(ctx context.Context, env *Env, persist *bootcfg.CachePersistence, o *Observation, d *block.Device) {
	if persist == nil || persist.Err != nil {
		o.Set("wc_persistence", nil)
		o.Set("wc_persistence_verdict", "unknown whether anything re-enables it at boot (configuration not readable)")
		return
	}
	var covering, kernelOnly []string
	var ev []Evidence
	checked := 0
	for _, r := range persist.Rules {
		ok, why := r.Covers(ctx, env.Host, d)
		if r.KernelOnly {
			if ok {
				kernelOnly = append(kernelOnly, r.Line.Source())
				o.AddEvidence("wc_kernel_only_rules", Evidence{r.Line.Source(), r.Line.Text + " (sets only the kernel's belief)"})
			}
			if !r.KernelOnlyWithRun() {
				continue
			}
		}
		checked++
		if ok {
			covering = append(covering, r.Line.Source())
			ev = append(ev, Evidence{r.Line.Source(), r.Line.Text + " (" + why + ")"})
			if r.Line.File == OwnRulesFile {
				o.Set("wc_own_rule_covers", true)
			}
		} else {
			ev = append(ev, Evidence{r.Line.Source(), r.Line.Text + " (does not cover " + d.Name + ": " + why + ")"})
		}
	}
	o.Set("wc_persistence", nonNil(covering), ev...)
	o.Set("wc_kernel_only_rules", nonNil(kernelOnly))
	switch {
	case len(covering) > 0:
		o.Set("wc_persistence_verdict", "re-enabled at boot by "+strings.Join(covering, ", "))
	case checked > 0:
		o.Set("wc_persistence_verdict", "none of the "+strconv.Itoa(checked)+" lines that enable a write cache covers "+d.Name)
	default:
		o.Set("wc_persistence_verdict", "no udev rule, enabled unit or hdparm.conf stanza re-enables it")
	}
}

func isATA(d *block.Device) bool {
	return d.Transport == "sata" || d.Transport == "pata" || d.Udev.Prop("ID_BUS") == "ata" || d.Udev.Prop("ID_ATA") == "1"
}

// readDriveCache asks the drive: hdparm -W first (recordable, and what an
// admin would type), ATA IDENTIFY through smart.go where hdparm is missing.
func readDriveCache(ctx context.Context, env *Env, o *Observation, d *block.Device) {
	if d.Transport == "nvme" {
		readNVMeCache(ctx, env, o, d)
		return
	}
	if env.asleep(ctx, "hdparm -W", d.Name) {
		return
	}
	dc, err := RunCommand(ctx, env, func(ctx context.Context) (*drive.Cache, error) {
		return drive.ReadHdparmW(ctx, env.Host, d.Name)
	})
	if errors.Is(err, machine.ErrToolMissing) && env.Host.IsLive() {
		var err2 error
		dc, err2 = Probe(ctx, env, func(ctx context.Context) (*drive.Cache, error) {
			return drive.ReadATAIdentify(ctx, env.Host, d.Name)
		})
		if err2 != nil {
			env.Skip("ata-identify", d.Name, err2)
		}
	}
	if err != nil && dc == nil {
		env.Skip("hdparm -W", d.Name, err)
		return
	}
	if dc == nil {
		return
	}
	ev := Evidence{dc.Source, dc.Value}
	if dc.Supported != nil {
		o.Set("wc_drive_supported", *dc.Supported, ev)
	}
	if dc.Enabled != nil {
		o.Set("wc_drive_enabled", *dc.Enabled, ev)
	}
}

// readNVMeCache asks the NVMe drive itself (Get Features 0x06, or Identify
// VWC): the kernel's queue/write_cache is writable and can say "write
// through" while the drive caches, the no-flush state the mismatch rule is
// for.
func readNVMeCache(ctx context.Context, env *Env, o *Observation, d *block.Device) {
	ctrl := ""
	if len(d.Controllers) > 0 {
		ctrl = d.Controllers[0]
	}
	dc, err := RunCommand(ctx, env, func(ctx context.Context) (*drive.Cache, error) {
		return drive.ReadNVMeWriteCache(ctx, env.Host, d.Name, ctrl)
	})
	if err != nil {
		if errors.Is(err, machine.ErrToolMissing) {
			err = withHint(err, "apt-get install nvme-cli (the drive's own volatile write cache state: nvme get-feature -f 0x06)")
		}
		env.Skip("nvme get-feature -f 0x06", d.Name, err)
		return
	}
	ev := Evidence{dc.Source, dc.Value}
	if dc.Supported != nil {
		o.Set("wc_drive_supported", *dc.Supported, ev)
	}
	if dc.Enabled != nil {
		o.Set("wc_drive_enabled", *dc.Enabled, ev)
	}
}

// derive combines the views into the few facts rules judge on.
func derive(o *Observation) {
	f := o.Get
	// The drive's own answer first; the kernel's NVMe view (writable by
	// anyone with root) only where the drive was not asked.
	supported := firstBool(f("wc_drive_supported"), f("wc_udev_supported"), f("wc_nvme_vwc"))
	if supported == nil {
		if ct, ok := f("wc_scsi_cache_type").(string); ok && strings.Contains(ct, "write back") {
			t := true
			supported = &t
		}
	}
	o.Set("wc_supported", ptrAny(supported))
	// The drive's state now: only what the drive itself says counts.
	driveOn := firstBool(f("wc_drive_enabled"))
	kernelOn := firstBool(f("wc_kernel_on"))
	var effective *bool
	switch {
	case driveOn != nil:
		effective = driveOn
	case kernelOn != nil:
		effective = kernelOn
	}
	o.Set("wc_on", ptrAny(effective))
	bootOn := firstBool(f("wc_boot_enabled"))
	o.Set("wc_boot_disabled", bootOn != nil && !*bootOn)
	// Unknown (configuration not readable) stays unknown, never "absent".
	if persist, ok := f("wc_persistence").([]string); ok {
		o.Set("wc_persistent", len(persist) > 0)
	} else {
		o.Set("wc_persistent", nil)
	}
}

func firstBool(vs ...any) *bool {
	for _, v := range vs {
		if b, ok := v.(bool); ok {
			return &b
		}
	}
	return nil
}

func ptrAny(b *bool) any {
	if b == nil {
		return nil
	}
	return *b
}
