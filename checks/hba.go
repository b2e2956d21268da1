package checks

import (
	"context"
	"strconv"
	"strings"

	"github.com/diskdoctor/diskdoctor/probes/block"
	"github.com/diskdoctor/diskdoctor/probes/hba"
	"github.com/diskdoctor/diskdoctor/probes/kernlog"
)

// FactBehindHBA names the SAS HBA a disk is behind: a controller rule
// judges such a disk too (rules/rule.go appliesTo).
const FactBehindHBA = "hba_name"

func init() {
	Register(Check{Name: "hba", Description: "each mpt2sas/mpt3sas SAS HBA the kernel log names: firmware version and IR or IT firmware, faults, dead controller, failed resets, temperature and link-layer log_info bursts, with the disks behind it", Run: hbaCheck})
}

// hbaCheck records, per LSI/Broadcom Fusion-MPT HBA, what its driver
// logged: the firmware (IR firmware, whose "Raid" capability puts the
// controller's RAID layer between ZFS or md and the disks; a release with
// a vendor advisory) and its faults (a controller that went
// non-operational drops every disk behind it at once). The subject is
// the controller's name in the log (mpt2sas_cm0), and each disk behind it
// carries the same facts, so that the HBA is named as the cause of the
// disks' errors.
func hbaCheck(ctx context.Context, env *Env) []*Observation {
	k, err := env.KernelLog(ctx)
	if err != nil {
		return nil // the kernel-log probe recorded its skipped entry
	}
	iocs := hba.Scan(k)
	if len(iocs) == 0 {
		return nil
	}
	devs, _ := env.Devices(ctx)
	var out []*Observation
	for _, c := range iocs {
		behind := disksBehind(c, iocs, devs)
		var names, inArray []string
		for _, d := range behind {
			names = append(names, d.Name)
			if inRedundancyLayer(d) {
				inArray = append(inArray, d.Name)
			}
		}
		o := NewObservation("hba", KindController, c.Name)
		setHBA(o, c, names, inArray)
		out = append(out, o)
		seen := map[string]bool{}
		for _, d := range behind {
			seen[d.Name] = true
			do := NewObservation("hba", KindDevice, d.Name)
			setHBA(do, c, names, inArray)
			do.Set("hba_disk_in_array", contains(inArray, d.Name))
			out = append(out, do)
		}
		// Disks the dead controller took with it are gone from sysfs; the
		// kernel-log check reports them gone, and the HBA is their cause.
		for _, name := range c.Lost {
			if seen[name] {
				continue
			}
			do := NewObservation("hba", KindDevice, name)
			setHBA(do, c, names, inArray)
			do.Set("hba_disk_in_array", nil)
			out = append(out, do)
		}
	}
	return out
}

// disksBehind are the inventory's disks on the controller: those whose
// resolved path runs through its SCSI host (the "scsi hostN: Fusion MPT
// SAS Host" line after its capabilities), or, when the log names one
// controller only and no host line, every disk below an mpt2sas or
// mpt3sas PCI function.
func disksBehind(c *hba.IOC, all []*hba.IOC, devs []*block.Device) []*block.Device {
	var out []*block.Device
	for _, d := range devs {
		if d.Virtual || d.NVMePath {
			continue
		}
		switch {
		case c.Host >= 0:
			if strings.Contains(d.SysPath+"/", "/host"+strconv.Itoa(c.Host)+"/") && (hasDriver(d, "mpt3sas") || hasDriver(d, "mpt2sas")) {
				out = append(out, d)
			}
		case len(all) == 1:
			if hasDriver(d, "mpt3sas") || hasDriver(d, "mpt2sas") {
				out = append(out, d)
			}
		}
	}
	return out
}

func hasDriver(d *block.Device, drv string) bool { return contains(d.Drivers, drv) }

// inRedundancyLayer: the disk (or a partition of it) is a ZFS pool member
// or an md array member, by its udev filesystem type (zfs_member,
// linux_raid_member) or an md holder.
func inRedundancyLayer(d *block.Device) bool {
	member := func(fs string) bool { return fs == "zfs_member" || fs == "linux_raid_member" }
	if d.Udev != nil && member(d.Udev.Prop("ID_FS_TYPE")) {
		return true
	}
	for _, h := range d.Holders {
		if strings.HasPrefix(h, "md") {
			return true
		}
	}
	for _, p := range d.Partitions {
		if member(p.FSType) {
			return true
		}
		for _, h := range p.Holders {
			if strings.HasPrefix(h, "md") {
				return true
			}
		}
	}
	return false
}

// setHBA sets the controller's facts on o (the controller or a disk
// behind it).
func setHBA(o *Observation, c *hba.IOC, disks, inArray []string) {
	o.Set(FactBehindHBA, c.Name)
	if c.FWLine != nil {
		o.Set("hba_chip", c.Chip, klogEv(*c.FWLine))
		o.Set("hba_fw_version", c.FWVersion, klogEv(*c.FWLine))
	} else {
		o.Set("hba_chip", nil)
		o.Set("hba_fw_version", nil)
	}
	if ir, ok := c.IR(); ok {
		o.Set("hba_ir", ir, klogEv(*c.CapLine))
		o.Set("hba_capabilities", strings.Join(c.Capabilities, ","))
	} else {
		o.Set("hba_ir", nil)
		o.Set("hba_capabilities", nil)
	}
	o.Set("hba_disks", nonNil(disks))
	o.Set("hba_array_disks", nonNil(inArray))
	o.Set("hba_lost_disks", nonNil(c.Lost))
	o.Set("hba_disk_in_array", nil)

	o.Set("hba_dead", len(c.Dead) > 0, klogSampleEv(c.Dead)...)
	o.Set("hba_non_operational", len(c.NonOperational), klogSampleEv(c.NonOperational)...)
	o.Set("hba_reset_failed", len(c.DiagResetFailed), klogSampleEv(c.DiagResetFailed)...)
	o.Set("hba_fault_states", len(c.FaultStates), klogSampleEv(c.FaultStates)...)
	o.Set("hba_resets", len(c.Resets), klogSampleEv(c.Resets)...)
	o.Set("hba_temperature_alarms", len(c.Temperature), klogSampleEv(c.Temperature)...)
	o.Set("hba_loginfo_pl", c.LogInfo["PL"], klogSampleEv(c.LogInfoPL)...)

	var parts []string
	count := func(n int, one, many string) {
		if n > 0 {
			parts = append(parts, countOf(n, one, many))
		}
	}
	if len(c.Dead) > 0 {
		parts = append(parts, "the driver gave the controller up (dead IOC)")
	}
	count(len(c.NonOperational), "'SAS host is non-operational'", "'SAS host is non-operational'")
	count(len(c.DiagResetFailed), "failed diag/hard reset", "failed diag/hard resets")
	count(len(c.FaultStates), "firmware fault state", "firmware fault states")
	count(len(c.Resets), "controller reset", "controller resets")
	count(len(c.Temperature), "temperature alarm", "temperature alarms")
	count(c.LogInfo["PL"], "link-layer (PL) log_info line", "link-layer (PL) log_info lines")
	if len(c.Lost) > 0 {
		parts = append(parts, "disks lost: "+strings.Join(c.Lost, ", "))
	}
	o.Set("hba_fault_summary", strings.Join(parts, "; "))
}

// hbaLines is every kernel line the HBA reader recognises, for the
// kernel-log check's list of lines it understands.
func hbaLines(k *kernlog.Log) []kernlog.Line {
	var out []kernlog.Line
	for _, c := range hba.Scan(k) {
		out = append(out, c.Lines()...)
	}
	return out
}
