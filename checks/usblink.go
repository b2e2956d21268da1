package checks

import (
	"context"
	"strconv"
	"strings"

	"github.com/diskdoctor/diskdoctor/probes/kernlog"
	"github.com/diskdoctor/diskdoctor/probes/usb"
)

func init() {
	Register(Check{Name: "usb-link", Description: "the USB link of each USB disk: speed, version, BOS SuperSpeed capability, uas or usb-storage, the port's SuperSpeed peer, and the kernel log's enumeration, UAS and reset lines", Run: usbLink})
}

// usbLink records, per disk behind a USB bridge, how its bridge is
// attached: a USB 3 bridge that enumerated at high speed (480 Mbit/s)
// moves 35-40 MB/s instead of 400; a bridge that usb-storage drives
// because UAS was turned off for it queues one command at a time; and a
// bridge whose commands the SCSI error handler aborts, or whose host
// controller died, drops the disk whatever its health.
func usbLink(ctx context.Context, env *Env) []*Observation {
	var out []*Observation
	var klog *usb.Log
	var klogErr error
	logRead := false
	for _, d := range env.Judged(ctx) {
		dir, iface := usb.DeviceOf(d.SysPath)
		if dir == "" {
			continue
		}
		if !logRead {
			logRead = true
			k, err := env.KernelLog(ctx)
			klogErr = err
			if err == nil {
				klog = usb.ScanLog(k)
			}
		}
		l, err := Probe(ctx, env, func(ctx context.Context) (*usb.Link, error) {
			return usb.Read(ctx, env.Host, dir, iface)
		})
		if err != nil {
			env.Skip("usb-link", d.Name, err)
			continue
		}
		o := NewObservation("usb-link", KindDevice, d.Name)
		setUSBSysfs(o, l)
		cmdline, _ := env.CmdLine(ctx)
		setUSBLog(o, l, klog, klogErr, d.Name, d.SCSIAddr, d.SysPath, cmdline)
		out = append(out, o)
	}
	return out
}

// setUSBSysfs sets what sysfs says about the bridge; a file that could not
// be read leaves its fact nil.
func setUSBSysfs(o *Observation, l *usb.Link) {
	o.Set("usb_device", l.Device, Evidence{l.Dir, l.Device + " (interface " + l.Interface + ")"})
	if l.VendorID != "" && l.ProductID != "" {
		o.Set("usb_id", l.VendorID+":"+l.ProductID, Evidence{l.Files["idVendor"], l.VendorID}, Evidence{l.Files["idProduct"], l.ProductID})
	} else {
		o.Set("usb_id", nil)
	}
	if l.Speed != nil {
		o.Set("usb_speed_mbps", *l.Speed, Evidence{l.Files["speed"], l.SpeedRaw})
	} else {
		o.Set("usb_speed_mbps", nil)
	}
	setStr := func(fact, v, file string) {
		if v == "" {
			o.Set(fact, nil)
			return
		}
		o.Set(fact, v, Evidence{l.Files[file], v})
	}
	setStr("usb_version", l.Version, "version")
	setStr("usb_driver", l.Driver, "driver")
	switch {
	case l.BOSRead && l.BOS.Valid:
		ev := "no SuperSpeed USB Device Capability (bDevCapabilityType 0x03)"
		if l.BOS.SuperSpeed {
			ev = "SuperSpeed USB Device Capability: " + l.BOS.Hex
		}
		o.Set("usb_bos_superspeed", l.BOS.SuperSpeed, Evidence{l.Files["bos_descriptors"], ev})
		o.Set("usb_bos_superspeed_plus", l.BOS.SuperSpeedPlus)
	default:
		o.Set("usb_bos_superspeed", nil)
		o.Set("usb_bos_superspeed_plus", nil)
	}
	switch {
	case l.Peer != "" && l.PeerSpeed != nil:
		o.Set("usb_port", l.Port, Evidence{l.Files["port"], l.Port})
		o.Set("usb_port_peer", l.Peer, Evidence{l.Files["peer"], l.Peer})
		o.Set("usb_port_superspeed", *l.PeerSpeed >= usb.SuperSpeedMbps || (l.Speed != nil && *l.Speed >= usb.SuperSpeedMbps))
	case l.PeerRead && l.Peer == "":
		o.Set("usb_port", l.Port, Evidence{l.Files["port"], l.Port})
		o.Set("usb_port_peer", nil)
		// No peer: a USB 2 port, unless the device is on the SuperSpeed
		// half itself (then its port is the SuperSpeed one).
		o.Set("usb_port_superspeed", l.Speed != nil && *l.Speed >= usb.SuperSpeedMbps)
	default:
		o.Set("usb_port", nil)
		o.Set("usb_port_peer", nil)
		o.Set("usb_port_superspeed", nil)
	}
}

// setUSBLog sets what the kernel log says about the bridge, its disk and
// its host controller, and the derived SuperSpeed capability.
func setUSBLog(o *Observation, l *usb.Link, klog *usb.Log, klogErr error, disk, scsiAddr, sysPath, cmdline string) {
	var why []string
	var whyEv []Evidence
	if l.Driver == "uas" {
		why = append(why, "driven by uas")
		whyEv = append(whyEv, Evidence{l.Files["driver"], l.Driver})
	}
	if l.Speed != nil && *l.Speed >= usb.SuperSpeedMbps {
		why = append(why, "attached at "+l.SpeedRaw+" Mbit/s")
		whyEv = append(whyEv, Evidence{l.Files["speed"], l.SpeedRaw})
	}
	if l.BOSRead && l.BOS.SuperSpeed {
		why = append(why, "SuperSpeed USB Device Capability in its BOS descriptor")
		whyEv = append(whyEv, Evidence{l.Files["bos_descriptors"], l.BOS.Hex})
	}
	if klog == nil {
		o.Set("usb_enumerated", nil)
		o.Set("usb_uas_disabled", nil)
		o.Set("usb_uas_disabled_by", nil)
		o.Set("usb_resets", nil)
		o.Set("usb_aborts", nil)
		o.Set("usb_host_died", nil)
		o.Set("usb_reset_summary", nil)
		setUSBCapable(o, l, why, whyEv, klogErr == nil)
		return
	}
	enums := klog.Enumerated[l.Device]
	if n := len(enums); n > 0 {
		last := enums[n-1]
		o.Set("usb_enumerated", last.Speed, klogEv(last.Line))
		for _, e := range enums {
			if e.SuperSpeed() && (l.Speed == nil || *l.Speed < usb.SuperSpeedMbps) {
				why = append(why, "enumerated at "+e.Speed+" earlier in the kernel log")
				whyEv = append(whyEv, klogEv(e.Line))
				break
			}
		}
	} else {
		o.Set("usb_enumerated", nil)
	}
	setUSBCapable(o, l, why, whyEv, true)

	// UAS off: only meaningful for a bridge usb-storage drives.
	line, ignored := klog.UASIgnored[l.Device]
	q, quirked := klog.Quirks[l.Device]
	switch {
	case l.Driver != "usb-storage":
		o.Set("usb_uas_disabled", false)
		o.Set("usb_uas_disabled_by", nil)
	case ignored || (quirked && q.IgnoreUAS):
		var ev []Evidence
		if ignored {
			ev = append(ev, klogEv(line))
		}
		if quirked {
			ev = append(ev, klogEv(q.Line))
		}
		o.Set("usb_uas_disabled", true, ev...)
		by := "the kernel's own list (drivers/usb/storage/unusual_uas.h) or a usb-storage quirks module option"
		if param := quirkParam(cmdline, l.VendorID, l.ProductID); param != "" {
			by = "usb-storage.quirks on the kernel command line (" + param + ")"
			o.AddEvidence("usb_uas_disabled", Evidence{"/proc/cmdline", param})
		}
		o.Set("usb_uas_disabled_by", by)
	default:
		o.Set("usb_uas_disabled", false)
		o.Set("usb_uas_disabled_by", nil)
	}

	// Resets and aborts: the USB device's resets, the SCSI error
	// handler's aborts of this disk's commands and resets of its host,
	// and the death of the host controller the disk hangs off.
	resets := klog.Resets[l.Device]
	aborts := append(append([]kernlog.Line(nil), klog.Aborts[disk]...), klog.Aborts[scsiAddr]...)
	if h, _, ok := strings.Cut(scsiAddr, ":"); ok {
		aborts = append(aborts, klog.DeviceResets["host"+h]...)
	}
	var died []kernlog.Line
	for _, part := range strings.Split(sysPath, "/") {
		died = append(died, klog.HostDied[part]...)
	}
	o.Set("usb_resets", len(resets), klogSampleEv(resets)...)
	o.Set("usb_aborts", len(aborts), klogSampleEv(aborts)...)
	o.Set("usb_host_died", len(died) > 0, klogSampleEv(died)...)
	var parts []string
	if len(died) > 0 {
		parts = append(parts, "host controller died ("+strconv.Itoa(len(died))+" lines)")
	}
	if len(aborts) > 0 {
		parts = append(parts, strconv.Itoa(len(aborts))+" UAS command aborts or device resets")
	}
	if len(resets) > 0 {
		parts = append(parts, strconv.Itoa(len(resets))+" USB device resets")
	}
	o.Set("usb_reset_summary", strings.Join(parts, ", "))
}

// setUSBCapable: a bridge is SuperSpeed-capable when uas drives it (UAS
// bridges are USB 3 bridges), its BOS descriptor carries the SuperSpeed
// USB Device Capability (USB 3.2 specification §9.6.2.2: every
// SuperSpeed device has it, at whatever speed it is attached), or the log
// saw it enumerate at SuperSpeed. A port's SuperSpeed peer alone says
// nothing about the device: a USB 2 stick in a USB 3 port has one too.
func setUSBCapable(o *Observation, l *usb.Link, why []string, ev []Evidence, logKnown bool) {
	switch {
	case len(why) > 0:
		o.Set("usb_superspeed_capable", true, ev...)
		o.Set("usb_superspeed_why", strings.Join(why, "; "))
	case l.Driver != "" && l.BOSRead && l.BOS.Valid && logKnown:
		o.Set("usb_superspeed_capable", false)
		o.Set("usb_superspeed_why", nil)
	case l.Driver != "" && !l.BOSRead && logKnown && (l.Version == "2.00" || strings.HasPrefix(l.Version, "1.")):
		// bcdUSB below 2.01: no BOS at all, so no SuperSpeed capability.
		o.Set("usb_superspeed_capable", false)
		o.Set("usb_superspeed_why", nil)
	default:
		o.Set("usb_superspeed_capable", nil)
		o.Set("usb_superspeed_why", nil)
	}
}

// quirkParam finds a usb-storage.quirks entry for vid:pid with the u
// (US_FL_IGNORE_UAS) flag on the kernel command line
// (Documentation/admin-guide/kernel-parameters.txt, usb-storage.quirks).
func quirkParam(cmdline, vid, pid string) string {
	if vid == "" || pid == "" {
		return ""
	}
	for _, f := range strings.Fields(cmdline) {
		v, ok := strings.CutPrefix(f, "usb-storage.quirks=")
		if !ok {
			continue
		}
		for _, e := range strings.Split(v, ",") {
			p := strings.Split(e, ":")
			if len(p) == 3 && strings.EqualFold(p[0], vid) && strings.EqualFold(p[1], pid) && strings.Contains(p[2], "u") {
				return "usb-storage.quirks=" + e
			}
		}
	}
	return ""
}

func klogEv(l kernlog.Line) Evidence {
	return Evidence{"dmesg line " + strconv.Itoa(l.Num), l.Raw}
}

// klogSampleEv is evidence of a few lines: the first two and the last.
func klogSampleEv(ls []kernlog.Line) []Evidence {
	var ev []Evidence
	for i, l := range ls {
		if i < 2 || i == len(ls)-1 {
			ev = append(ev, klogEv(l))
		}
	}
	return ev
}
