package checks

import (
	"context"
	"fmt"
	"regexp"
	"sort"
	"strconv"
	"strings"

	"github.com/diskdoctor/diskdoctor/machine"
	"github.com/diskdoctor/diskdoctor/probes/block"
	"github.com/diskdoctor/diskdoctor/probes/system"
)

func init() {
	Register(Check{Name: "inventory", Description: "every block device: identity, bus, size, partitions, mounts, stable names", Run: inventory})
	Register(Check{Name: "platform", Description: "vendor, product, BIOS, kernel, distribution, storage controllers and their drivers", Run: platform})
}

// controllerDrivers are the drivers that own a storage controller; the
// rest of a device path (sd, scsi hosts, PCI bridges) is plumbing.
var controllerDrivers = map[string]bool{
	"ahci": true, "ata_piix": true, "nvme": true, "hpsa": true, "smartpqi": true, "megaraid_sas": true,
	"mpt3sas": true, "mpt2sas": true, "aacraid": true, "usb-storage": true, "uas": true,
	"virtio_blk": true, "virtio_scsi": true, "sdhci-pci": true, "mmc_block": true, "isci": true, "mvsas": true, "pm80xx": true,
}

// RAIDControllers carry their own (often battery-backed) cache and manage
// the drive caches behind them.
var RAIDControllers = map[string]bool{"hpsa": true, "smartpqi": true, "megaraid_sas": true, "aacraid": true}

func controllerDriver(d *block.Device) string {
	for _, drv := range d.Drivers {
		if controllerDrivers[drv] {
			return drv
		}
	}
	return ""
}

// cacheSettings says where a virtual disk's write cache is decided: the
// guest sees what the hypervisor chose and cannot change it.
var cacheSettings = map[string]string{
	"VMware":                 "the ESXi host decides (virtual disks carry no guest-settable cache; the datastore and the host's storage controller cache decide); nothing to change in the guest",
	"Hyper-V":                "the Hyper-V host decides (VHDX on the host's storage); nothing to change in the guest",
	"Xen":                    "the Xen backend (blkback or qdisk) decides whether the guest sees a flush-capable disk; nothing to change in the guest",
	"QEMU":                   "QEMU's -drive cache= (libvirt <driver cache=...>): writeback or none show write back in the guest, writethrough or directsync show write through",
	"virtio (KVM/QEMU)":      "QEMU's -drive cache= (libvirt <driver cache=...>): writeback or none show write back in the guest, writethrough or directsync show write through",
	"VirtualBox":             "VirtualBox's host I/O cache: VBoxManage storagectl VM --name CONTROLLER --hostiocache on|off",
	"Amazon EBS":             "Amazon EBS volumes are replicated block storage; there is no guest setting for their cache",
	"Google Persistent Disk": "Google Persistent Disk is replicated block storage; there is no guest setting for its cache",
}

func inventory(ctx context.Context, env *Env) []*Observation {
	devs, _ := env.Devices(ctx)
	byDevNo := env.MountsByDevNo(ctx)
	if bad := block.RefusedNames(ctx, env.Host); len(bad) > 0 {
		var quoted []string
		for _, b := range bad {
			quoted = append(quoted, strconv.Quote(b))
		}
		env.Skip("inventory", "", withHint(fmt.Errorf("refused %d entries of /sys/block whose names no kernel creates: %s", len(bad), strings.Join(quoted, ", ")), "a recording with such names was altered; they are not judged and never printed into a command"))
	}
	// On a virtual machine (DMI), an emulated SATA/SCSI disk that does not
	// name its hypervisor is still the hypervisor's disk.
	plat, _ := env.Platform(ctx)
	vmVendor := ""
	if Role(plat, "") == "vm" {
		vmVendor = strings.TrimSpace(plat.Vendor + " " + plat.Product)
	}
	var out []*Observation
	for _, d := range devs {
		o := newObservationSized("inventory", KindDevice, d.Name, 32)
		hv, why := d.Hypervisor, d.HypervisorWhy
		if hv == "" && vmVendor != "" && (d.Transport == "sata" || d.Transport == "pata" || d.Transport == "scsi" || d.Transport == "unknown") {
			hv, why = "the hypervisor of "+vmVendor, "DMI: "+vmVendor
		}
		if hv != "" {
			o.Set("virtual_disk", true, Evidence{"/sys/block/" + d.Name, why})
			o.Set("hypervisor", hv)
			setting := cacheSettings[hv]
			if setting == "" {
				setting = "the hypervisor's disk settings decide; nothing to change in the guest"
			}
			o.Set("hypervisor_cache_setting", setting)
		} else {
			o.Set("virtual_disk", false)
			o.Set("hypervisor", "")
		}
		link := "/sys/block/" + d.Name
		o.Set("sysfs_path", d.SysPath, Evidence{link, d.SysPath})
		o.Set("transport", d.Transport, Evidence{link, d.SysPath})
		o.Set("drivers", nonNil(d.Drivers))
		o.Set("controller_driver", controllerDriver(d))
		o.Set("behind_raid_controller", RAIDControllers[controllerDriver(d)])
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
		o.Set("size_bytes", d.SizeBytes)
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
		out = append(out, o)
	}
	return out
}

var (
	serverProducts = regexp.MustCompile(`(?i)ProLiant|PowerEdge|ThinkSystem|PRIMERGY|SuperServer|SuperMicro|TrueNAS|Synology|System x|UCS|Apollo`)
	vmVendors      = regexp.MustCompile(`(?i)^(QEMU|KVM|VMware|Xen|innotek|Microsoft Corporation|Amazon EC2|Google|Parallels|Bochs|OpenStack)`)
)

// Role is what the machine is for, which decides how much a power-saving
// CPU governor matters: "server", "desktop", "laptop", "vm" or "unknown".
func Role(p *system.Platform, override string) string {
	if override != "" && override != "auto" {
		return override
	}
	if p == nil {
		return "unknown"
	}
	switch {
	case vmVendors.MatchString(p.Vendor) || vmVendors.MatchString(p.Product):
		return "vm"
	case serverProducts.MatchString(p.Product) || serverProducts.MatchString(p.Vendor):
		return "server"
	}
	switch p.ChassisType {
	case 17, 23, 25, 28, 29:
		return "server"
	case 8, 9, 10, 14, 30, 31, 32:
		return "laptop"
	case 3, 4, 5, 6, 7, 13, 15, 16, 35, 36:
		return "desktop"
	}
	return "unknown"
}

func platform(ctx context.Context, env *Env) []*Observation {
	o := NewObservation("platform", KindHost, "host")
	p, err := env.Platform(ctx)
	if err != nil {
		env.Skip("platform", "", err)
	}
	if p != nil {
		dmi := func(fact, attr, v string) {
			if f := p.Files[attr]; f != "" {
				o.Set(fact, v, Evidence{f, v})
			} else {
				o.Set(fact, v)
			}
		}
		dmi("vendor", "sys_vendor", p.Vendor)
		dmi("product", "product_name", p.Product)
		dmi("bios_version", "bios_version", p.BIOSVersion)
		dmi("bios_date", "bios_date", p.BIOSDate)
		dmi("board", "board_name", p.Board)
		o.Set("chassis_type", p.ChassisType)
		o.Set("kernel", p.Kernel, Evidence{"/proc/sys/kernel/osrelease", p.Kernel})
		// major*1000+minor (6.11 -> 6011): what a kernel-dependent remedy
		// compares with; nil when the release cannot be parsed.
		if code := kernelCode(p.Kernel); code > 0 {
			o.Set("kernel_code", code)
		} else {
			o.Set("kernel_code", nil)
		}
		o.Set("distro", p.Distro)
		o.Set("hostname", p.Hostname)
		o.Set("platform", strings.TrimSpace(p.Vendor+" "+p.Product))
		if p.Vendor == "" && p.Product == "" {
			env.Skip("platform", "", fmt.Errorf("/sys/class/dmi/id: %w", machine.ErrNotAvailable))
		}
	}
	o.Set("role", Role(p, env.Opts.Context))
	o.Set("context", env.Opts.Context)

	devs, _ := env.Devices(ctx)
	ctrls := map[string][]string{}
	for _, d := range devs {
		if d.NVMePath {
			continue
		}
		if drv := controllerDriver(d); drv != "" {
			ctrls[drv] = append(ctrls[drv], d.Name)
		}
	}
	var list []string
	for _, drv := range sortedKeys(ctrls) {
		list = append(list, drv+": "+strings.Join(ctrls[drv], " "))
	}
	o.Set("controllers", nonNil(list))
	return []*Observation{o}
}

func sortedKeys[V any](m map[string]V) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// nonNil keeps empty lists as [] in JSON, not null.
func nonNil(s []string) []string {
	if s == nil {
		return []string{}
	}
	return s
}

func boolDigit(b bool) string {
	if b {
		return "1"
	}
	return "0"
}

var kernelRelease = regexp.MustCompile(`^(\d+)\.(\d+)`)

func kernelCode(release string) int {
	m := kernelRelease.FindStringSubmatch(release)
	if m == nil {
		return 0
	}
	major, _ := strconv.Atoi(m[1])
	minor, _ := strconv.Atoi(m[2])
	if minor >= 1000 {
		return 0
	}
	return major*1000 + minor
}
