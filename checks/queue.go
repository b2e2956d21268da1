package checks

import (
	"context"
	"runtime"
	"strconv"
	"strings"

	"github.com/diskdoctor/diskdoctor/internal/parallel"
	"github.com/diskdoctor/diskdoctor/probes/block"
	"github.com/diskdoctor/diskdoctor/probes/kernlog"
)

func init() {
	Register(Check{Name: "queue", Description: "the disk's queue: NCQ and queue_depth of SATA disks (with the kernel log's reason), max_sectors_kb against max_hw_sectors_kb, partition alignment to the physical block size, SATA disks on a legacy IDE driver", Run: queueCheck})
}

// legacyIDEDrivers are libata's drivers for controllers in IDE (legacy or
// native PCI IDE) mode: ata_piix for Intel ICH/PCH SATA functions whose
// firmware setting is IDE, ata_generic and pata_* for the others
// (drivers/ata/). None drives AHCI: no NCQ, no hot plug, no link power
// management. ahci and the native SATA drivers (sata_*) are not here.
func legacyIDEDriver(drv string) bool {
	return drv == "ata_piix" || drv == "ata_generic" || strings.HasPrefix(drv, "pata_")
}

// queueCheck records, per judged disk, its queue limits and partition
// starts from sysfs, and for a libata disk what the kernel log says about
// NCQ and the port.
func queueCheck(ctx context.Context, env *Env) []*Observation {
	judged := env.Judged(ctx)
	if len(judged) == 0 {
		return nil
	}
	var (
		ncq   map[string]kernlog.NCQ
		ports map[string]kernlog.PortKind
		ataOf map[string]string // sda -> ata1.00
	)
	if log, err := env.KernelLog(ctx); err == nil && log != nil {
		ncq, ports = log.NCQLines(), log.PortKinds()
		devs, _ := env.Devices(ctx)
		ataOf = map[string]string{}
		for dev, disk := range kernlog.NewTopology(devs, nil).ATADev {
			if disk != "" {
				ataOf[disk] = dev
			}
		}
	}
	out := make([]*Observation, len(judged))
	parallel.Each(len(judged), runtime.GOMAXPROCS(0), func(i int) {
		d := judged[i]
		o := NewObservation("queue", KindDevice, d.Name)
		l, err := Probe(ctx, env, func(ctx context.Context) (block.Limits, error) {
			return block.ReadLimits(ctx, env.Host, d), nil
		})
		if err != nil {
			env.Skip("queue", d.Name, err)
		}
		setValue(o, "queue_depth", l.QueueDepth)
		setValue(o, "queue_max_sectors_kb", l.MaxSectorsKB)
		setValue(o, "queue_max_hw_sectors_kb", l.MaxHWSectorsKB)
		if l.MaxHWSectorsKB != nil {
			// What to write back: the block layer's default request cap
			// (2560 sectors: BLK_DEF_MAX_SECTORS, BLK_DEF_MAX_SECTORS_CAP in
			// current kernels, include/linux/blkdev.h),
			// never above what the hardware allows.
			o.Set("queue_max_sectors_suggested_kb", int(min(l.MaxHWSectorsKB.N, 1280)))
		} else {
			o.Set("queue_max_sectors_suggested_kb", nil)
		}
		setValue(o, "queue_physical_block_size", l.PhysicalBlockSize)
		setMisaligned(o, l, d)
		if d.Transport == "sata" || d.Transport == "pata" {
			setATA(ctx, env, o, d, ncq, ports, ataOf)
		} else {
			setATAUnknown(o)
		}
		out[i] = o
	})
	return out
}

func setValue(o *Observation, fact string, v *block.Value) {
	if v == nil {
		o.Set(fact, nil)
		return
	}
	o.Set(fact, int(min(v.N, 1<<53)), Evidence{v.Path, v.Raw})
}

// setMisaligned lists the partitions whose start is not on a physical
// block boundary; nil when the physical block size is unknown or a
// partition's start could not be read.
func setMisaligned(o *Observation, l block.Limits, d *block.Device) {
	if l.PhysicalBlockSize == nil {
		o.Set("queue_misaligned_partitions", nil)
		o.Set("queue_misaligned_numbers", nil)
		return
	}
	var offset uint64
	var ev []Evidence
	if l.AlignmentOffset != nil {
		offset = l.AlignmentOffset.N
	}
	names, numbers := []string{}, []string{}
	for _, p := range l.Partitions {
		if p.Start == nil {
			o.Set("queue_misaligned_partitions", nil)
			o.Set("queue_misaligned_numbers", nil)
			return
		}
		bad, ok := block.Misaligned(p.Start.N, l.PhysicalBlockSize.N, offset)
		if !ok {
			o.Set("queue_misaligned_partitions", nil)
			o.Set("queue_misaligned_numbers", nil)
			return
		}
		if !bad {
			continue
		}
		names = append(names, p.Name)
		numbers = append(numbers, partitionNumber(p.Name))
		ev = append(ev, Evidence{p.Start.Path, p.Start.Raw})
		if p.AlignmentOffset != nil {
			ev = append(ev, Evidence{p.AlignmentOffset.Path, p.AlignmentOffset.Raw})
		}
	}
	if len(names) > 0 {
		ev = append(ev, Evidence{l.PhysicalBlockSize.Path, l.PhysicalBlockSize.Raw})
		if l.AlignmentOffset != nil && l.AlignmentOffset.N != 0 {
			ev = append(ev, Evidence{l.AlignmentOffset.Path, l.AlignmentOffset.Raw})
		}
	}
	o.Set("queue_misaligned_partitions", names, ev...)
	o.Set("queue_misaligned_numbers", numbers)
	if len(names) > 0 {
		// A misaligned swap holds nothing to copy off: it is
		// re-created, not moved.
		o.Set("queue_misaligned_swap_only", swapOnly(d, names))
	}
}

// swapOnly: every partition named is swap by udev's blkid probe
// (ID_FS_TYPE); nil when one of them has no recorded type.
func swapOnly(d *block.Device, names []string) any {
	fsType := map[string]string{}
	for _, p := range d.Partitions {
		fsType[p.Name] = p.FSType
	}
	for _, n := range names {
		switch fsType[n] {
		case "":
			return nil
		case "swap":
		default:
			return false
		}
	}
	return true
}

// partitionNumber is the number at the end of a partition's name (sda2,
// nvme0n1p2, mmcblk0p1), what parted's align-check asks for.
func partitionNumber(name string) string {
	i := len(name)
	for i > 0 && name[i-1] >= '0' && name[i-1] <= '9' {
		i--
	}
	return name[i:]
}

// setATA records the disk's libata driver, whether it is a SATA device, and
// its NCQ state with the kernel log's cause.
func setATA(ctx context.Context, env *Env, o *Observation, d *block.Device, ncq map[string]kernlog.NCQ, ports map[string]kernlog.PortKind, ataOf map[string]string) {
	dev := ataOf[d.Name]
	port, _, _ := strings.Cut(dev, ".")
	// SATA: the drive says so (udev's ata_id: ID_ATA_SATA from IDENTIFY
	// word 76), or libata registered its port as SATA. A PATA port with no
	// word of the drive's is a parallel disk.
	switch pk, seen := ports[port]; {
	case d.Udev.Prop("ID_ATA_SATA") == "1":
		o.Set("queue_sata", true, Evidence{"udev ID_ATA_SATA", "1"})
	case port != "" && seen:
		o.Set("queue_sata", pk.SATA, klogLine(pk.Line))
	default:
		o.Set("queue_sata", nil)
	}
	// The PCI function's driver: the first bound above the SCSI disk (sd
	// is bound to the disk itself; ata ports, links and hosts have none).
	drv := ""
	for _, x := range d.Drivers {
		if x != "sd" {
			drv = x
			break
		}
	}
	if drv == "" {
		o.Set("queue_ata_driver", nil)
		o.Set("queue_legacy_ide", nil)
	} else {
		o.Set("queue_ata_driver", drv, Evidence{driverLink(env, d.SysPath, drv), drv})
		o.Set("queue_legacy_ide", legacyIDEDriver(drv))
	}

	n, ok := ncq[dev]
	if ncq == nil || dev == "" || !ok || !n.Described {
		// No configure line for the device (a log that starts after
		// boot, or a drive without NCQ): whether it supports NCQ is unknown.
		o.Set("queue_ncq_supported", nil)
		o.Set("queue_ncq_host_depth", nil)
		o.Set("queue_ncq_drive_depth", nil)
		o.Set("queue_ncq_usable_depth", nil)
		o.Set("queue_ncq_off", nil)
		o.Set("queue_ncq_cause", nil)
		return
	}
	o.Set("queue_ncq_supported", true, klogLine(n.Line))
	if n.NotUsed {
		o.Set("queue_ncq_host_depth", nil)
		o.Set("queue_ncq_drive_depth", nil)
		o.Set("queue_ncq_usable_depth", nil)
	} else {
		o.Set("queue_ncq_host_depth", n.HostDepth)
		o.Set("queue_ncq_drive_depth", n.DriveDepth)
		o.Set("queue_ncq_usable_depth", min(n.HostDepth, n.DriveDepth))
	}
	depth, _ := o.Get("queue_depth").(int)
	switch {
	case n.Disabled != nil:
		o.Set("queue_ncq_off", true, klogLine(*n.Disabled))
		o.Set("queue_ncq_cause", "errors", klogLine(*n.Disabled))
	case n.NotUsed && n.Forced != nil:
		o.Set("queue_ncq_off", true, klogLine(n.Line))
		o.Set("queue_ncq_cause", "forced", klogLine(*n.Forced))
	case n.NotUsed:
		o.Set("queue_ncq_off", true, klogLine(n.Line))
		if ev := noncqCmdline(ctx, env); ev != nil {
			o.Set("queue_ncq_cause", "forced", *ev)
		} else {
			// ATA_QUIRK_NONCQ from __ata_dev_quirks (libata-core.c).
			o.Set("queue_ncq_cause", "quirk", klogLine(n.Line))
		}
	case n.HostDepth == 0:
		o.Set("queue_ncq_off", true, klogLine(n.Line))
		o.Set("queue_ncq_cause", "controller", klogLine(n.Line))
	case depth == 1:
		// The kernel uses NCQ, the SCSI device's depth was set to 1
		// (echo 1 > device/queue_depth, a udev rule): one command at a time.
		o.Set("queue_ncq_off", true, o.EvidenceOf("queue_depth")...)
		o.Set("queue_ncq_cause", "queue-depth", o.EvidenceOf("queue_depth")...)
	default:
		o.Set("queue_ncq_off", false)
		o.Set("queue_ncq_cause", "")
	}
}

// driverLink is the driver link of the nearest device above sysPath bound
// to drv (the PCI function's), the disk's path when none is found.
func driverLink(env *Env, sysPath, drv string) string {
	if l := block.DriverLink(env.Host, sysPath, drv); l != "" {
		return l
	}
	return sysPath
}

func setATAUnknown(o *Observation) {
	for _, f := range []string{"queue_sata", "queue_ata_driver", "queue_legacy_ide", "queue_ncq_supported", "queue_ncq_host_depth", "queue_ncq_drive_depth", "queue_ncq_usable_depth", "queue_ncq_off", "queue_ncq_cause"} {
		o.Set(f, nil)
	}
}

// noncqCmdline is /proc/cmdline as evidence when a libata.force= parameter
// on it holds noncq (Documentation/admin-guide/kernel-parameters.txt); nil
// otherwise or when unreadable.
func noncqCmdline(ctx context.Context, env *Env) *Evidence {
	s, err := env.CmdLine(ctx)
	if err != nil {
		return nil
	}
	for _, arg := range strings.Fields(s) {
		k, v, _ := strings.Cut(arg, "=")
		if k == "libata.force" && strings.Contains(v, "noncq") {
			return &Evidence{"/proc/cmdline", s}
		}
	}
	return nil
}

func klogLine(l kernlog.Line) Evidence {
	return Evidence{"dmesg line " + strconv.Itoa(l.Num), l.Raw}
}
