package checks

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/diskdoctor/diskdoctor/probes/block"
	"github.com/diskdoctor/diskdoctor/probes/mount"
)

func init() {
	Register(Check{Name: "inventory", Description: "every block device: identity, bus, size, partitions, mounts, stable names", Run: inventory})
}

// cacheSettings says where a virtual disk's write cache is decided, by
// hypervisor (whereruns.go's names, or the disk's own): the guest sees
// what the hypervisor chose and cannot change it. Each names only its
// own hypervisor's setting.
var cacheSettings = map[string]string{
	hvVMware:  "the ESXi host decides (virtual disks carry no guest-settable cache; the datastore and the host's storage controller cache decide); nothing to change in the guest",
	hvHyperV:  "the Hyper-V host decides (VHDX on the host's storage); nothing to change in the guest",
	hvXen:     "the Xen backend (blkback or qdisk) decides whether the guest sees a flush-capable disk; nothing to change in the guest",
	"QEMU":    "QEMU's -drive cache= (libvirt <driver cache=...>): writeback or none show write back in the guest, writethrough or directsync show write through",
	hvQEMUKVM: "QEMU's -drive cache= (libvirt <driver cache=...>): writeback or none show write back in the guest, writethrough or directsync show write through",
	hvProxmox: "the VM's disk Cache option on the Proxmox host (QEMU's cache=): No cache and Write back show write back in the guest, Write through and Direct sync show write through",
	// Firecracker's docs/api_requests/block-caching.md.
	hvFirecracker: "the drive's cache_type on the Firecracker host (PUT /drives): both modes show write back in the guest; Unsafe, the default, acknowledges flushes without syncing the host's file, Writeback syncs it (fsync)",
	// Cloud Hypervisor's docs/api.md (DiskConfig direct).
	hvCloudHypervisor:           "the --disk option direct= on the Cloud Hypervisor host: on opens the image with O_DIRECT, off goes through the host's page cache",
	hvKVM:                       "the host's virtual machine monitor decides (the kernel names KVM, not the program that emulates the disk); nothing to change in the guest",
	hvVirtualBox:                "VirtualBox's host I/O cache: VBoxManage storagectl VM --name CONTROLLER --hostiocache on|off",
	"virtio":                    "the hypervisor's disk cache setting on the host (the guest cannot tell which program provides its virtio disk); nothing to change in the guest",
	"Amazon EBS":                "Amazon EBS volumes are replicated block storage; there is no guest setting for their cache",
	"Amazon EC2 instance store": "an instance-store volume is the host's local NVMe SSD, passed to the guest through the Nitro card; there is no guest setting for its cache",
	"Google Persistent Disk":    "Google Persistent Disk is replicated block storage; there is no guest setting for its cache",
	"Google local SSD":          "a Google local SSD is the host's local SSD; there is no guest setting for its cache",
	"Azure local NVMe":          "an Azure local NVMe disk is the host's SSD; there is no guest setting for its cache",
	"Azure managed disk (NVMe)": "the managed disk's host caching (None, ReadOnly, ReadWrite) is set on the disk in Azure, not in the guest",
}

func inventory(ctx context.Context, env *Env) []*Observation {
	devs, _ := env.Devices(ctx)
	byDevNo := env.MountsByDevNo(ctx)
	skipRefusedNames(ctx, env)
	// On a virtual machine (DMI), an emulated SATA/SCSI disk that does not
	// name its hypervisor is still the hypervisor's disk.
	plat, _ := env.Platform(ctx)
	vmVendor := ""
	if Role(plat, "") == "vm" {
		vmVendor = strings.TrimSpace(plat.Vendor + " " + plat.Product)
	}
	klog, _ := env.KernelLog(ctx)
	host := whereItRuns(plat, klog, devs)
	rootUnseen := rootNotMounted(ctx, env)
	var out []*Observation
	for _, d := range devs {
		if d.PathOnly {
			// An NVMe per-path disk the run does not judge, read by
			// name only: nothing else of it is known.
			o := NewObservation("inventory", KindDevice, d.Name)
			link := "/sys/block/" + d.Name
			o.Set("sysfs_path", d.SysPath, Evidence{link, d.SysPath})
			o.Set("transport", d.Transport, Evidence{link, d.SysPath})
			o.Set("nvme_path", true, Evidence{link, d.Name})
			o.Set("judged", false)
			out = append(out, o)
			continue
		}
		o := NewObservation("inventory", KindDevice, d.Name)
		setHypervisor(o, d, vmVendor, host)
		setIdentity(env, o, d)
		setUsage(o, d, byDevNo)
		if rootUnseen && o.Get("in_use") == false {
			// Not known to hold nothing: what is mounted outside the
			// doctor's root is not in its mount table.
			o.Set("in_use", nil)
			env.Skip("inventory", d.Name, withHint(errors.New("/ is in init's mount table (/proc/1/mountinfo) but not in the doctor's (/proc/self/mountinfo): it runs in a chroot or a container whose root is not a mount point, so the disk under / and what is mounted outside it are unknown, and no disk is called unused"),
				"run the doctor on the host, or in a container with the host mounted (--host-root)"))
		}
		out = append(out, o)
	}
	return out
}

// rootNotMounted: the doctor's mount table has no mount at / while init's
// has (mount.InitHasRoot): the doctor runs in a chroot, or a container
// whose root is a directory, and the kernel leaves out of its table every
// mount its root does not reach, the filesystem under / first. Both tables
// are recorded in a snapshot, so a replay says what the live run said.
func rootNotMounted(ctx context.Context, env *Env) bool {
	mounts, err := env.Mounts(ctx)
	if err != nil {
		return false // the mounts' own skipped entry says why
	}
	for _, m := range mounts {
		if m.MountPoint == "/" {
			return false
		}
	}
	initSees, err := mount.InitHasRoot(ctx, env.Host)
	return err == nil && initSees
}

// skipRefusedNames reports the entries of /sys/block the inventory did not
// take: names the kernel never creates, so never printed into a command.
func skipRefusedNames(ctx context.Context, env *Env) {
	bad := block.RefusedNames(ctx, env.Host)
	if len(bad) == 0 {
		return
	}
	var quoted []string
	for _, b := range bad {
		quoted = append(quoted, strconv.Quote(b))
	}
	what := countOf(len(bad), "entry of /sys/block whose name", "entries of /sys/block whose names")
	env.Skip("inventory", "", withHint(fmt.Errorf("refused %s no kernel creates: %s", what, strings.Join(quoted, ", ")), "a recording with such names was altered; they are not judged and never printed into a command"))
}

// setHypervisor: whether the disk is a hypervisor's, and where its write
// cache is then decided. vmVendor is the DMI vendor of a virtual machine.
func setHypervisor(o *Observation, d *block.Device, vmVendor string, host Where) {
	hv, why := d.Hypervisor, d.HypervisorWhy
	named := host.Hypervisor != "" && host.Hypervisor != hvNone && host.Hypervisor != hvUnidentified
	if hv == "" && (vmVendor != "" || named) && (d.Transport == "sata" || d.Transport == "pata" || d.Transport == "scsi" || d.Transport == "unknown") {
		if named {
			hv, why = host.Hypervisor, "an emulated disk of a "+host.Hypervisor+" guest"
		} else {
			hv, why = "the hypervisor of "+vmVendor, "DMI: "+vmVendor
		}
	}
	// A virtio disk (or QEMU's emulated one) is the named hypervisor's:
	// the transport alone does not say which program provides it.
	if named && (hv == "virtio" || hv == "QEMU" && (host.Hypervisor == hvQEMUKVM || host.Hypervisor == hvProxmox)) {
		why += "; " + host.Hypervisor + " guest (" + evidenceSources(host.HypervisorEv) + ")"
		hv = host.Hypervisor
	}
	if hv == "" {
		o.Set("virtual_disk", false)
		o.Set("hypervisor", "")
		return
	}
	o.Set("virtual_disk", true, Evidence{"/sys/block/" + d.Name, why})
	o.Set("hypervisor", hv)
	setting := cacheSettings[hv]
	if setting == "" {
		setting = "the hypervisor's disk settings decide; nothing to change in the guest"
	}
	o.Set("hypervisor_cache_setting", setting)
	if ds := discardSettings[hv]; ds != "" {
		o.Set("hypervisor_discard_setting", ds)
	}
}

// evidenceSources lists where evidence came from.
func evidenceSources(evs []Evidence) string {
	var out []string
	for _, e := range evs {
		out = append(out, e.Source)
	}
	return strings.Join(out, ", ")
}

// setIdentity: where the disk sits (bus, drivers, controller) and what it
// is (model, serial, firmware, size, stable names).
func setIdentity(env *Env, o *Observation, d *block.Device) {
	link := "/sys/block/" + d.Name
	o.Set("sysfs_path", d.SysPath, Evidence{link, d.SysPath})
	o.Set("transport", d.Transport, Evidence{link, d.SysPath})
	o.Set("drivers", nonNil(d.Drivers))
	o.Set("controller_driver", controllerDriver(d))
	o.Set("behind_raid_controller", block.RAIDDriver(controllerDriver(d)))
	o.Set("virtual", d.Virtual)
	o.Set("nvme_path", d.NVMePath)
	o.Set("judged", env.IsJudged(d))
	modelEv := []Evidence{}
	if d.Udev != nil && d.Udev.Prop("ID_MODEL") != "" {
		modelEv = append(modelEv, Evidence{d.Udev.Path, "ID_MODEL=" + d.Udev.Prop("ID_MODEL")})
	} else if f := d.Files["model"]; f != "" {
		modelEv = append(modelEv, Evidence{f, d.Model})
	}
	o.Set("model", d.Model, modelEv...)
	o.Set("vendor", d.Vendor)
	o.Set("serial", d.Serial)
	o.Set("udev_serial", strings.Clone(d.Udev.Prop("ID_SERIAL"))) // not the whole record's memory
	o.Set("firmware", d.Firmware)
	o.Set("wwn", d.WWN)
	if d.SizeBytes != nil {
		o.Set("size_bytes", *d.SizeBytes)
	} else {
		o.Set("size_bytes", nil) // unreadable, or more than 64 bits hold
	}
	o.Set("removable", d.Removable)
	if d.Rotational != nil {
		o.Set("rotational", *d.Rotational, Evidence{d.Files["rotational"], boolDigit(*d.Rotational)})
	} else {
		o.Set("rotational", nil)
	}
	o.Set("by_id", nonNil(d.ByID))
	o.Set("dev_path", d.DevPath())
	o.Set("holders", nonNil(d.Holders))
	o.Set("scsi_address", d.SCSIAddr)
	o.Set("nvme_controllers", nonNil(d.Controllers))
	setMultipath(o, d)
}

// setMultipath: the multipath map a disk is a path of, its other paths,
// and the path the drive's own state is read through (every path reaches
// the same drive: its SMART is read once). Set on paths only.
func setMultipath(o *Observation, d *block.Device) {
	m := d.Multipath
	if m == nil {
		return
	}
	ev := []Evidence{{"/sys/block/" + d.Name + "/holders/" + m.Map, m.Map}, {m.UUIDSource, "DM_UUID=" + m.UUID}}
	o.Set("multipath_map", m.Map, ev...)
	o.Set("multipath_name", m.Name)
	o.Set("multipath_paths", m.Paths, ev...)
	o.Set("drive_read_through", m.Primary())
}

// setUsage: what the disk holds (partitions, filesystems, mounts, ZFS
// pools) and whether anything uses it.
func setUsage(o *Observation, d *block.Device, byDevNo map[string][]mount.Mount) {
	var parts, mps, fstypes []string
	pools := map[string]bool{}
	for _, p := range d.Partitions {
		mp, fsType := "", p.FSType
		if ms := byDevNo[p.DevNo]; len(ms) > 0 {
			mp = ms[0].MountPoint
			if fsType == "" {
				// Without udev's record, the mount says what it is.
				fsType = ms[0].FSType
			}
		}
		parts = append(parts, strings.TrimSpace(joinNonEmpty(" ", p.Name, fsType, mp)))
		if mp != "" {
			mps = append(mps, mp)
		}
		if fsType != "" {
			fstypes = append(fstypes, fsType)
		}
		if p.FSType == "zfs_member" && p.Label != "" {
			pools[p.Label] = true
		}
	}
	for _, m := range byDevNo[d.DevNo] {
		mps = append(mps, m.MountPoint)
		fstypes = append(fstypes, m.FSType)
	}
	if fs := d.Udev.Prop("ID_FS_TYPE"); fs != "" {
		fstypes = append(fstypes, fs)
		if fs == "zfs_member" && d.Udev.Prop("ID_FS_LABEL") != "" {
			pools[d.Udev.Prop("ID_FS_LABEL")] = true
		}
	}
	o.Set("partitions", nonNil(parts))
	o.Set("mountpoints", nonNil(mps))
	o.Set("filesystems", nonNil(fstypes))
	o.Set("zfs_pools", sortedKeys(pools))
	o.Set("in_use", d.InUse() || len(mps) > 0)
}

func boolDigit(b bool) string {
	if b {
		return "1"
	}
	return "0"
}
