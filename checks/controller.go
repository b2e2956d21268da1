package checks

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/diskdoctor/diskdoctor/internal/shellquote"
	"github.com/diskdoctor/diskdoctor/machine"
	"github.com/diskdoctor/diskdoctor/probes/block"
	"github.com/diskdoctor/diskdoctor/probes/raidctl"
)

func init() {
	Register(Check{Name: "controller", Description: "hardware RAID controllers (HPE Smart Array through ssacli, MegaRAID and PERC through storcli/perccli or MegaCli, Adaptec through arcconf): cache module, battery or capacitor, each volume's configured and current write policy, drive caches, background work, logical and physical drive states, matched to the OS block devices", Run: controllerCheck})
}

// Where each controller family's tool comes from, for the skipped entry of
// a machine that lacks it.
var controllerToolHints = map[string]string{
	raidctl.FamilySmartArray: "install ssacli from HPE's Management Component Pack repository (https://downloads.linux.hpe.com/SDR/project/mcp/, package ssacli) and run the doctor again",
	raidctl.FamilyStorcli:    "install storcli from Broadcom (https://www.broadcom.com/support/download-search, \"StorCLI\") or, on a Dell PowerEdge, perccli from Dell's support site, and run the doctor again",
	raidctl.FamilyArcconf:    "install arcconf from Microchip (https://www.microchip.com, \"ARCCONF Command Line Utility\" of the controller's downloads) and run the doctor again",
}

// controllerFamily is the tool family that manages a RAID driver's
// controllers: hpsa, smartpqi and the older cciss are Smart Array;
// megaraid_sas is MegaRAID and PERC; aacraid is Adaptec's series 2 to 8
// (arcconf).
func controllerFamily(driver string) string {
	switch driver {
	case "hpsa", "smartpqi", "cciss":
		return raidctl.FamilySmartArray
	case "megaraid_sas":
		return raidctl.FamilyStorcli
	case "aacraid":
		return raidctl.FamilyArcconf
	}
	return ""
}

func controllerCheck(ctx context.Context, env *Env) []*Observation {
	byFamily := map[string][]*block.Device{}
	var families []string
	for _, d := range env.Judged(ctx) {
		drv := controllerDriver(d)
		if !block.RAIDDriver(drv) {
			continue
		}
		fam := controllerFamily(drv)
		if fam == "" {
			env.Skip("controller", d.Name, withHint(fmt.Errorf("behind a %s controller, which the doctor does not read: %w", drv, machine.ErrNotAvailable), "read its cache and battery with the vendor's tool"))
			continue
		}
		if byFamily[fam] == nil {
			families = append(families, fam)
		}
		byFamily[fam] = append(byFamily[fam], d)
	}
	var out []*Observation
	for _, fam := range families {
		devs := byFamily[fam]
		inv, err := readControllers(ctx, env, fam)
		if err != nil {
			out = append(out, unknownVolumes(env, fam, devs, err)...)
			continue
		}
		out = append(out, controllerObservations(ctx, env, inv, devs)...)
	}
	return out
}

// readControllers runs the family's tool; MegaRAID is read with storcli
// (or perccli), and with MegaCli only where neither is installed.
func readControllers(ctx context.Context, env *Env, fam string) (*raidctl.Inventory, error) {
	timeout := env.Opts.ProbeTimeout
	switch fam {
	case raidctl.FamilySmartArray:
		return raidctl.ReadSmartArray(ctx, env.Host, timeout)
	case raidctl.FamilyArcconf:
		inv, err := raidctl.ReadArcconf(ctx, env.Host, timeout)
		if err == nil {
			unreadArcconf(env, inv)
		}
		return inv, err
	}
	inv, errs, err := raidctl.ReadStorcli(ctx, env.Host, timeout)
	if errors.Is(err, machine.ErrToolMissing) {
		inv, errs, err = raidctl.ReadMegaCli(ctx, env.Host, timeout)
		if errors.Is(err, machine.ErrToolMissing) {
			err = fmt.Errorf("%s; %w", strings.Join(raidctl.ToolsOf(raidctl.FamilyStorcli), ", "), err)
		}
	}
	for _, e := range errs {
		env.Skip("controller", "", withHint(e, "the tool's other commands answered; run this one by hand to see why it did not, since what it reports (volume policies, drive error counts, the energy pack, a running patrol read) is unknown until it does"))
	}
	return inv, err
}

// unreadArcconf: arcconf reads one controller a command; the doctor
// reads controller 1, and says which others the tool found.
func unreadArcconf(env *Env, inv *raidctl.Inventory) {
	n, err := strconv.Atoi(inv.Found.Text)
	if err != nil || n <= len(inv.Controllers) {
		return
	}
	env.Skip("controller", "", withHint(fmt.Errorf("%s: %s controllers found, controller 1 read: %w", inv.Found.Line.Text, inv.Found.Text, machine.ErrNotAvailable),
		"run "+shellquote.Join([]string{inv.Tool, "GETCONFIG", "2", "AL"})+" (and so on to "+inv.Found.Text+") to read the others' caches and batteries"))
}

// unknownVolumes: the controller could not be read, so its volumes' caches
// are unknown, which is said once per volume (and never judged).
func unknownVolumes(env *Env, fam string, devs []*block.Device, err error) []*Observation {
	hint := controllerToolHints[fam]
	if errors.Is(err, machine.ErrTimeout) {
		hint = "the controller's tool did not answer: a hung controller (or one busy with a reset) hangs its tool; look at the kernel log for " + controllerDriver(devs[0]) + " resets, and run the tool by hand to see whether it returns"
	}
	var out []*Observation
	for _, d := range devs {
		env.Skip("controller", d.Name, withHint(fmt.Errorf("the %s controller's cache, battery and write policy: %w", controllerDriver(d), err), hint))
		o := NewObservation("controller", KindDevice, d.Name)
		o.Set("controller_volume", isControllerVolume(d, nil))
		o.Set("ctl_cache_state", "unknown")
		out = append(out, o)
	}
	return out
}

// isControllerVolume: a logical drive of the controller rather than a
// drive it passes through (HBA or JBOD mode). The tool's match decides
// where there is one; otherwise the names the drivers give volumes: every
// cciss device, Smart Array's "LOGICAL VOLUME" (hpsa, smartpqi), and
// megaraid_sas's logical drives on SCSI channel 2 and up (its physical
// drives are channels 0 and 1: MEGASAS_MAX_PD_CHANNELS, Linux
// drivers/scsi/megaraid/megaraid_sas.h), and aacraid's containers on
// channel 0 (its physical drives are channel 1 and up: CONTAINER_CHANNEL
// and aac_phys_to_logical, drivers/scsi/aacraid/aacraid.h).
func isControllerVolume(d *block.Device, vol *raidctl.Volume) bool {
	if vol != nil {
		return true
	}
	switch controllerDriver(d) {
	case "cciss":
		return true
	case "hpsa", "smartpqi":
		return strings.Contains(strings.ToUpper(d.Model), "LOGICAL VOLUME")
	case "megaraid_sas":
		parts := strings.Split(d.SCSIAddr, ":")
		return len(parts) == 4 && parts[1] != "0" && parts[1] != "1"
	case "aacraid":
		parts := strings.Split(d.SCSIAddr, ":")
		return len(parts) == 4 && parts[1] == "0"
	}
	return false
}

// volumeMatch finds the OS device of a logical drive: by its WWN (ssacli's
// Unique Identifier, storcli's SCSI NAA Id against the disk's wwid), by the
// name the tool gives it (/dev/sda; /dev/cciss/c0d0 is cciss!c0d0 in
// /sys/block), or, on MegaRAID and aacraid, by SCSI target (logical drive
// T is target T on channel 2 of megaraid_sas, storcli's VD number its
// target id; arcconf's logical device N is target N on channel 0 of
// aacraid), never by position in a list. The evidence is the tool's line with what it matched.
func (r *ctlRun) volumeMatch(v *raidctl.Volume, devs []*block.Device) (*block.Device, Evidence) {
	matched := func(tool raidctl.Value, d *block.Device, what string) (*block.Device, Evidence) {
		ev := r.ev(outVolumes, tool)[0]
		ev.Value += " = " + d.Name + what
		return d, ev
	}
	if w := normWWN(v.WWN.Text); w != "" {
		for _, d := range devs {
			if normWWN(d.WWN) == w {
				return matched(v.WWN, d, " wwid "+d.WWN)
			}
		}
	}
	if name := strings.TrimPrefix(v.OSName.Text, "/dev/"); v.OSName.Set && name != v.OSName.Text {
		name = strings.ReplaceAll(name, "/", "!")
		for _, d := range devs {
			if d.Name == name {
				return matched(v.OSName, d, "")
			}
		}
	}
	channel := "2"
	if r.inv.Family == raidctl.FamilyArcconf {
		channel = "0"
	}
	if r.inv.Family != raidctl.FamilySmartArray && v.TargetID.Set && len(megaraidHosts(devs)) == 1 {
		for _, d := range devs {
			if p := strings.Split(d.SCSIAddr, ":"); len(p) == 4 && p[1] == channel && p[2] == v.TargetID.Text {
				return matched(v.TargetID, d, " SCSI "+d.SCSIAddr)
			}
		}
	}
	return nil, Evidence{}
}

// megaraidHosts are the SCSI hosts of the devices: a target id names a
// volume only when one controller's devices are present.
func megaraidHosts(devs []*block.Device) map[string]bool {
	hosts := map[string]bool{}
	for _, d := range devs {
		if p := strings.Split(d.SCSIAddr, ":"); len(p) == 4 {
			hosts[p[0]] = true
		}
	}
	return hosts
}

// normWWN reduces the forms of one identifier to its hex digits: udev's
// "0x600508b1001c158b69c0104da29e6ff7", sysfs "naa.600508B1...", the
// tools' upper-case form.
func normWWN(s string) string {
	s = strings.ToLower(strings.TrimSpace(s))
	s = strings.TrimPrefix(strings.TrimPrefix(s, "naa."), "0x")
	if len(s) < 16 {
		return ""
	}
	for _, c := range s {
		if !(c >= '0' && c <= '9' || c >= 'a' && c <= 'f') {
			return ""
		}
	}
	return s
}
