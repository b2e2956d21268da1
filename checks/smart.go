package checks

import (
	"context"
	"fmt"
	"strconv"
	"strings"

	"github.com/diskdoctor/diskdoctor/internal/parallel"
	"github.com/diskdoctor/diskdoctor/machine"
	"github.com/diskdoctor/diskdoctor/probes/block"
	"github.com/diskdoctor/diskdoctor/probes/smart"
)

func init() {
	Register(Check{Name: "smart", Description: "each drive's own health: SMART overall status, ATA attributes against thresholds, the NVMe health log, SCSI defect and error counters, temperature against the drive's limits (smartctl -x -n standby -j, or smart.go on the live machine after CHECK POWER MODE)", Run: smartCheck})
}

// ATA attribute ids the doctor reads. The ids are vendor conventions, not
// a standard (ATA dropped SMART attributes from its specifications);
// smartmontools' drivedb.h names them per drive.
const (
	ataReallocated        = 5
	ataPowerOnHours       = 9
	ataReportedUncorrect  = 187
	ataCommandTimeout     = 188
	ataAirflowTemperature = 190
	ataTemperature        = 194
	ataReallocatedEvents  = 196
	ataPending            = 197
	ataOfflineUncorrect   = 198
	ataCRCErrors          = 199
)

// wearAttrs are the normalized "life left" attributes of SSD vendors:
// 100 new, falling to 0 (Samsung 177, Intel 233, Kingston/SandForce 231,
// Micron/Crucial 173 and 202; smartmontools' drivedb.h).
var wearAttrs = map[int]bool{173: true, 177: true, 202: true, 231: true, 233: true}

// noSMART are transports whose disks have no SMART the doctor can reach.
var noSMART = map[string]string{
	"virtio":  "a virtio disk has no SMART: the hypervisor does not pass it through",
	"virtual": "a virtual device has no SMART",
	"mmc":     "an MMC/SD card has no SMART",
	// An iSCSI LUN is a volume the target exports (a file or a slice of
	// an array), as an EBS volume is the cloud's: the target's storage
	// holds the media's health (open-iscsi passes SCSI commands to the
	// target, whose LUN answers for itself, not for its disks).
	"iscsi": "an iSCSI LUN has no SMART of its own: the target's storage holds the media's health",
}

// noSMARTHint is the hint for a transport of noSMART whose media's health
// is not the hypervisor's or a card's.
var noSMARTHint = map[string]string{
	"iscsi": "the iSCSI target holds the media's health; ask it (smartctl on the target host, or the array's tool)",
}

func smartCheck(ctx context.Context, env *Env) []*Observation {
	judged := env.Judged(ctx)
	out := make([]*Observation, len(judged))
	// Every drive is asked in a goroutine of its own: RunCommand's slots
	// bound how many of their commands run at once.
	parallel.Each(len(judged), len(judged), func(i int) { out[i] = smartDevice(ctx, env, judged[i]) })
	var obs []*Observation
	for _, o := range out {
		if o != nil {
			obs = append(obs, o)
		}
	}
	return obs
}

// passedThrough are the guest disks that are a drive of the host given
// to the guest whole (an NVMe function passed through), whose SMART is the
// drive's own; every other disk a hypervisor backs is a file or a network
// volume, whose health the host's storage holds.
var passedThrough = map[string]bool{"Amazon EC2 instance store": true, "Google local SSD": true, "Azure local NVMe": true}

func smartDevice(ctx context.Context, env *Env, d *block.Device) *Observation {
	probe := "smartctl -x -n standby -j"
	why, ok := noSMART[d.Transport]
	if !ok && d.Hypervisor != "" && !passedThrough[d.Hypervisor] {
		why, ok = fmt.Sprintf("a virtual disk (%s) has no SMART of its own: the host's storage holds the media's health", d.Hypervisor), true
	}
	if ok {
		hint := noSMARTHint[d.Transport]
		if hint == "" {
			hint = "the hypervisor or card holds the media's health; ask it (the host's smartctl, the card's tool)"
		}
		env.Skip(probe, d.Name, withHint(fmt.Errorf("%s: %w", why, machine.ErrNotAvailable), hint))
		// Said as a fact too, so that advice to read the disk's SMART
		// is not given where there is none to read.
		o := NewObservation("smart", KindDevice, d.Name)
		o.Set("smart_not_applicable", why)
		return o
	}
	if m := d.Multipath; m != nil && m.Primary() != d.Name {
		// Another path of the same drive: its SMART is read through the
		// first path, once (the drive answers the same on each).
		return nil
	}
	if block.RAIDDriver(controllerDriver(d)) {
		env.Skip(probe, d.Name, withHint(fmt.Errorf("behind a RAID controller (%s): %w", controllerDriver(d), machine.ErrNotAvailable), smartThroughHint(controllerDriver(d))))
		return nil
	}
	s, err := RunCommand(ctx, env, func(ctx context.Context) (*smart.Info, error) {
		return smart.Read(ctx, env.Host, d.Name, d.Transport == "nvme")
	})
	if err != nil {
		env.Skip(probe, d.Name, err)
		return nil
	}
	o := SMARTObservation(d.Name, s)
	setDeviceTimeout(ctx, env, o, d.Name)
	return o
}

// setDeviceTimeout records the kernel's command timer of the disk
// (dev_timeout_s), which a drive's error recovery must finish within
// (scterc-exceeds-timeout). Unknown (nil) where the disk has no SCSI
// device, or the file could not be read.
func setDeviceTimeout(ctx context.Context, env *Env, o *Observation, dev string) {
	raw, err := Probe(ctx, env, func(ctx context.Context) (string, error) {
		_, raw, err := block.ReadTimeout(ctx, env.Host, dev)
		return raw, err
	})
	if err != nil {
		o.Set("dev_timeout_s", nil)
		return
	}
	v, _ := strconv.Atoi(raw)
	o.Set("dev_timeout_s", v, Evidence{block.TimeoutPath(dev), raw})
}

// SMARTObservation turns one drive's health report into facts. The
// severity reasons (smart_critical, smart_warnings) are worked out here,
// where the attribute semantics live; rules judge the facts.
func SMARTObservation(dev string, s *smart.Info) *Observation {
	f := &smartFacts{o: NewObservation("smart", KindDevice, dev), s: s, wear: -1}
	o := f.o
	o.Set("smart_protocol", s.Protocol)
	o.Set("smart_model", s.Model)
	if s.Firmware != "" {
		// The firmware revision the drive reports; the rules match it
		// against the firmware advisories (rules/firmware.yaml).
		o.Set("smart_firmware", s.Firmware, f.ev("firmware_version: "+s.Firmware))
	} else {
		o.Set("smart_firmware", nil)
	}
	if r := s.RotationRPM; r != nil {
		txt := strconv.Itoa(*r) + " rpm"
		if *r == 0 {
			txt = "0 (Solid State Device)"
		}
		o.Set("smart_rotation_rpm", *r, f.ev("rotation_rate: "+txt))
	} else {
		o.Set("smart_rotation_rpm", nil)
	}
	if s.Standby != "" {
		// Asleep and left so: a fact, not a failure and not a skipped
		// probe. Every health fact below is then unknown (nil).
		o.Set("smart_standby", s.Standby, f.ev("in "+s.Standby+" mode, not woken: "+strings.Join(s.Notes, "; ")))
	} else if s.StandbyUnknown {
		// Answered by an older recording's argv without -n standby: the
		// drive may have been woken to answer.
		o.Set("smart_standby", nil)
	}
	f.overall()
	f.ataAttributes()
	f.nvmeLog()
	f.scsiCounters()
	f.wearUsed()
	f.temperatures()
	f.nvmeThermal()
	f.interfaceAndFeatures()
	f.headParking()
	f.recordingAndRecovery()
	f.pendingOnly()
	o.Set("smart_critical", nonNil(f.crit))
	o.Set("smart_warnings", nonNil(f.warn))
	o.Set("smart_notes", nonNil(s.Notes))
	return o
}

// smartFacts collects one drive's facts and the reasons for concern found
// on the way.
type smartFacts struct {
	o          *Observation
	s          *smart.Info
	crit, warn []string
	wear       int // highest endurance used, %; -1: not reported
	wearEv     Evidence
}

func (f *smartFacts) ev(v string) Evidence { return Evidence{f.s.Source, v} }

// overall: smartctl's health verdict and exit status.
func (f *smartFacts) overall() {
	s, o := f.s, f.o
	if s.Passed != nil {
		o.Set("smart_passed", *s.Passed, f.ev("smart_status.passed: "+strconv.FormatBool(*s.Passed)))
		if !*s.Passed {
			f.crit = append(f.crit, "overall health FAILED")
		}
	} else {
		o.Set("smart_passed", nil)
	}
	if s.Exit != nil {
		o.Set("smart_exit_status", *s.Exit)
	}
}

// ataAttributes: the sector counters, attributes at their threshold, and
// the wear attribute of SSDs.
func (f *smartFacts) ataAttributes() {
	s, o := f.s, f.o
	raw := func(fact string, id int) {
		if a, ok := s.Attr(id); ok {
			o.Set(fact, a.Raw, f.ev(attrLine(a)))
			return
		}
		o.Set(fact, nil)
	}
	raw("smart_reallocated", ataReallocated)
	raw("smart_reallocated_events", ataReallocatedEvents)
	raw("smart_pending", ataPending)
	raw("smart_offline_uncorrectable", ataOfflineUncorrect)
	raw("smart_reported_uncorrectable", ataReportedUncorrect)
	raw("smart_crc_errors", ataCRCErrors)
	var failing, past []string
	var failingEv []Evidence
	for _, a := range s.Attributes {
		if a.Failing() {
			failing = append(failing, fmt.Sprintf("%d %s (value %d, threshold %d)", a.ID, a.Name, a.Value, a.Thresh))
			failingEv = append(failingEv, f.ev(attrLine(a)))
		} else if a.WhenFailed == "past" {
			past = append(past, fmt.Sprintf("%d %s (worst %d, threshold %d)", a.ID, a.Name, a.Worst, a.Thresh))
		}
		if wearAttrs[a.ID] && isWearName(a.Name) && a.Value <= 100 {
			if used := 100 - a.Value; used > f.wear {
				f.wear, f.wearEv = used, f.ev(attrLine(a))
			}
		}
	}
	o.Set("smart_failing_attrs", nonNil(failing), failingEv...)
	o.Set("smart_past_failing_attrs", nonNil(past))
	if len(failing) > 0 {
		f.crit = append(f.crit, "pre-failure attribute at or below its threshold: "+strings.Join(failing, ", "))
	}
	for _, c := range []struct {
		id        int
		one, more string
	}{
		{ataReallocated, "reallocated sector", "reallocated sectors"},
		{ataPending, "sector pending reallocation", "sectors pending reallocation"},
		{ataOfflineUncorrect, "offline uncorrectable sector", "offline uncorrectable sectors"},
		{ataReportedUncorrect, "uncorrectable error reported", "uncorrectable errors reported"},
	} {
		// Vendors pack other fields into the upper raw bytes: above 2^32
		// the raw value is no count.
		if a, ok := s.Attr(c.id); ok && a.Raw > 0 && a.Raw < 1<<32 {
			f.warn = append(f.warn, countOf(a.Raw, c.one, c.more))
		}
	}
}

// pendingOnly: smart_pending_only is true when sectors pending
// reallocation are the drive's only concern: nothing reallocated, nothing
// offline or reported uncorrectable (each read as 0, not unknown), no
// other warning and nothing critical. A drive whose firmware counts a
// phantom pending sector (rules/firmware.yaml quirk) looks exactly so.
// Nil when the drive reports no pending count.
func (f *smartFacts) pendingOnly() {
	p, ok := f.s.Attr(ataPending)
	if !ok {
		f.o.Set("smart_pending_only", nil)
		return
	}
	only := p.Raw > 0 && len(f.crit) == 0 && len(f.warn) == 1
	for _, id := range []int{ataReallocated, ataOfflineUncorrect, ataReportedUncorrect} {
		if a, ok := f.s.Attr(id); !ok || a.Raw != 0 {
			only = false
		}
	}
	f.o.Set("smart_pending_only", only)
}

// nvmeLog: the NVMe SMART/Health log's warnings, spare, errors and wear.
func (f *smartFacts) nvmeLog() {
	o := f.o
	for _, fact := range []string{"smart_nvme_critical_warning", "smart_nvme_warnings", "smart_nvme_spare", "smart_nvme_spare_threshold", "smart_nvme_media_errors", "smart_nvme_error_log_entries", "smart_nvme_unsafe_shutdowns"} {
		o.Set(fact, nil)
	}
	n := f.s.NVMe
	if n == nil {
		return
	}
	cw := n.CriticalWarnings()
	o.Set("smart_nvme_critical_warning", n.CriticalWarning, f.ev(fmt.Sprintf("critical_warning: %d (0x%02x)%s", n.CriticalWarning, n.CriticalWarning, bracketList(cw))))
	o.Set("smart_nvme_warnings", nonNil(cw))
	spareEv := f.ev(fmt.Sprintf("available_spare: %d %%, available_spare_threshold: %d %%", n.AvailableSpare, n.SpareThreshold))
	o.Set("smart_nvme_spare", n.AvailableSpare, spareEv)
	o.Set("smart_nvme_spare_threshold", n.SpareThreshold, spareEv)
	o.Set("smart_nvme_media_errors", n.MediaErrors, f.ev(fmt.Sprintf("media_errors: %d", n.MediaErrors)))
	o.Set("smart_nvme_error_log_entries", n.ErrLogEntries, f.ev(fmt.Sprintf("num_err_log_entries: %d", n.ErrLogEntries)))
	o.Set("smart_nvme_unsafe_shutdowns", n.UnsafeShutdowns, f.ev(fmt.Sprintf("unsafe_shutdowns: %d", n.UnsafeShutdowns)))
	if len(cw) > 0 {
		f.crit = append(f.crit, "NVMe critical warning: "+strings.Join(cw, ", "))
	}
	if n.SpareThreshold > 0 && n.AvailableSpare < n.SpareThreshold && n.CriticalWarning&1 == 0 {
		f.crit = append(f.crit, fmt.Sprintf("available spare %d %% below its threshold %d %%", n.AvailableSpare, n.SpareThreshold))
	}
	if n.MediaErrors > 0 {
		f.warn = append(f.warn, countOf(n.MediaErrors, "media and data integrity error", "media and data integrity errors"))
	}
	if n.PercentUsed > f.wear {
		f.wear, f.wearEv = n.PercentUsed, f.ev(fmt.Sprintf("percentage_used: %d %%", n.PercentUsed))
	}
}

// scsiCounters: the grown defect list and the uncorrected error counters.
func (f *smartFacts) scsiCounters() {
	o := f.o
	o.Set("smart_scsi_grown_defects", nil)
	o.Set("smart_scsi_uncorrected", nil)
	sc := f.s.SCSI
	if sc == nil {
		return
	}
	if sc.GrownDefects != nil {
		o.Set("smart_scsi_grown_defects", *sc.GrownDefects, f.ev(fmt.Sprintf("scsi_grown_defect_list: %d", *sc.GrownDefects)))
		if *sc.GrownDefects > 0 {
			f.warn = append(f.warn, countOf(*sc.GrownDefects, "grown defect", "grown defects"))
		}
	}
	var unc uint64
	var parts []string
	for _, c := range []struct {
		n string
		v *uint64
	}{{"read", sc.ReadUncorrected}, {"write", sc.WriteUncorrected}, {"verify", sc.VerifyUncorrected}} {
		if c.v != nil {
			unc += *c.v
			parts = append(parts, fmt.Sprintf("%s %d", c.n, *c.v))
		}
	}
	if len(parts) > 0 {
		o.Set("smart_scsi_uncorrected", unc, f.ev("total_uncorrected_errors: "+strings.Join(parts, ", ")))
		if unc > 0 {
			f.warn = append(f.warn, countOf(unc, "uncorrected read/write/verify error", "uncorrected read/write/verify errors"))
		}
	}
}

// wearUsed: the endurance used, from the ATA wear attribute or NVMe
// percentage_used, whichever is higher.
func (f *smartFacts) wearUsed() {
	if f.wear < 0 {
		f.o.Set("smart_wear_used_pct", nil)
		return
	}
	f.o.Set("smart_wear_used_pct", f.wear, f.wearEv)
	if f.wear >= 90 {
		f.warn = append(f.warn, fmt.Sprintf("%d %% of rated endurance used", f.wear))
	}
}

// temperatures: the drive's temperature against its own limits, and its
// power-on hours.
func (f *smartFacts) temperatures() {
	s, o := f.s, f.o
	setInt := func(fact string, v *int, what string) {
		if v == nil {
			o.Set(fact, nil)
			return
		}
		o.Set(fact, *v, f.ev(fmt.Sprintf("%s: %d °C", what, *v)))
	}
	setInt("smart_temp_c", s.TempC, "temperature")
	setInt("smart_temp_warn_c", s.TempWarnC, "warning temperature threshold")
	setInt("smart_temp_crit_c", s.TempCritC, "critical temperature threshold")
	if s.PowerOnHours != nil {
		o.Set("smart_power_on_hours", *s.PowerOnHours)
	} else {
		o.Set("smart_power_on_hours", nil)
	}
}

// interfaceAndFeatures: the SATA link speeds and the drive's own view of
// its write cache and TRIM.
func (f *smartFacts) interfaceAndFeatures() {
	s, o := f.s, f.o
	if s.LinkMaxGbps > 0 {
		// A drive behind a USB bridge often reports only its maximum
		// (smartctl's interface_speed without "current").
		cur := s.LinkCur
		if cur == "" {
			cur = "not reported"
		}
		ev := f.ev("interface speed: max " + s.LinkMax + ", current " + cur)
		o.Set("smart_link_max_gbps", s.LinkMaxGbps, ev)
		if s.LinkCurGbps > 0 {
			o.Set("smart_link_cur_gbps", s.LinkCurGbps, ev)
		} else {
			o.Set("smart_link_cur_gbps", nil)
		}
	} else {
		o.Set("smart_link_max_gbps", nil)
		o.Set("smart_link_cur_gbps", nil)
	}
	optBool := func(fact string, v *bool, what string) {
		if v == nil {
			o.Set(fact, nil)
			return
		}
		o.Set(fact, *v, f.ev(what+": "+strconv.FormatBool(*v)))
	}
	optBool("smart_write_cache_enabled", s.WriteCache, "write_cache.enabled")
	optBool("smart_trim_supported", s.TrimSupported, "trim.supported")
}

// recordingAndRecovery: the drive's model family (where smartctl's
// database knows it), whether the database marks it drive-managed SMR,
// and its SCT Error Recovery Control. smart_smr is true or unknown (nil),
// never false: a family without the mark is not proof of CMR (the
// database marks only the families whose SMR is documented).
func (f *smartFacts) recordingAndRecovery() {
	s, o := f.s, f.o
	if s.ModelFamily != "" {
		o.Set("smart_model_family", s.ModelFamily, f.ev("model_family: "+s.ModelFamily))
	} else {
		o.Set("smart_model_family", nil)
	}
	if s.SMR() {
		o.Set("smart_smr", true, f.ev("model_family: "+s.ModelFamily))
	} else {
		o.Set("smart_smr", nil)
	}
	e := s.ERC
	if e == nil {
		o.Set("smart_scterc_state", nil)
		o.Set("smart_scterc_read_ds", nil)
		o.Set("smart_scterc_write_ds", nil)
		return
	}
	state, ev := "unsupported", f.ev("ata_sct_capabilities.error_recovery_control_supported: false")
	if e.Supported {
		// A direction without a limit retries as long as the firmware
		// wants: the drive as a whole is then "disabled".
		state = "disabled"
		if e.ReadEnabled && e.WriteEnabled {
			state = "enabled"
		}
		ev = f.ev(fmt.Sprintf("ata_sct_erc: read %s, write %s", ercText(e.ReadEnabled, e.ReadDS), ercText(e.WriteEnabled, e.WriteDS)))
	}
	o.Set("smart_scterc_state", state, ev)
	setDS := func(fact string, enabled bool, ds int) {
		if enabled {
			o.Set(fact, ds, ev)
		} else {
			o.Set(fact, nil)
		}
	}
	setDS("smart_scterc_read_ds", e.ReadEnabled, e.ReadDS)
	setDS("smart_scterc_write_ds", e.WriteEnabled, e.WriteDS)
}

func ercText(enabled bool, ds int) string {
	if !enabled {
		return "disabled"
	}
	return fmt.Sprintf("%d (%.1f seconds)", ds, float64(ds)/10)
}

func attrLine(a smart.Attr) string {
	s := fmt.Sprintf("%d %s: value %d, worst %d, thresh %d, raw %s", a.ID, a.Name, a.Value, a.Worst, a.Thresh, a.RawString)
	if a.WhenFailed != "" {
		s += ", when_failed " + a.WhenFailed
	}
	return s
}

func isWearName(n string) bool {
	n = strings.ToLower(n)
	// SandForce's 177 Wear_Range_Delta is the spread between the most and
	// least worn blocks, normalized to 0 on a new drive: no endurance.
	if strings.Contains(n, "delta") {
		return false
	}
	return strings.Contains(n, "wear") || strings.Contains(n, "life")
}

func bracketList(s []string) string {
	if len(s) == 0 {
		return ""
	}
	return " (" + strings.Join(s, "; ") + ")"
}

// countOf says n of a counted thing in the number it is: "1 reallocated
// sector", "16 reallocated sectors".
func countOf[N ~int | ~int64 | ~uint64](n N, one, more string) string {
	if n == 1 {
		return "1 " + one
	}
	return fmt.Sprintf("%d %s", n, more)
}
