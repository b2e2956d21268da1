package block

import (
	"context"
	"path"
	"regexp"
	"slices"
	"strings"

	"github.com/diskdoctor/diskdoctor/machine"
)

// How a disk is attached: its transport, its SCSI address, its NVMe
// controllers and the hypervisor of a virtual disk, from the resolved
// sysfs path and the drivers along it.

// neverBound names the sysfs nodes on a disk's path that the kernel never
// binds a driver to: class directories (block, nvme), class devices (the
// nvme0 controller node), ATA ports, SCSI hosts and targets, SAS and FC
// transport nodes, and PCI root buses (the link is made when a driver
// binds a device, drivers/base/dd.c driver_sysfs_add; none binds these).
// Asking each for its driver link would be a failed lookup per node.
var neverBound = regexp.MustCompile(`^(block|nvme|nvme-subsystem|nvme\d+|ata\d+|link\d+(\.\d+)?|dev\d+\.\d+(\.\d+)?|host\d+|target\d+:\d+:\d+|port-\d+:\d+(:\d+)?|end_device-\d+:\d+(:\d+)?|expander-\d+:\d+|phy-\d+:\d+(:\d+)?|rport-\d+:\d+-\d+|session\d+|pci[0-9a-f]{4}:[0-9a-f]{2})$`)

func isNeverBound(name string) bool { return neverBound.MatchString(name) }

// scsiDiskAddr is the H:C:T:L of a disk whose device (the directory above
// block/<name>) is a SCSI device bound to sd: that binding is what makes
// the kernel add device/scsi_disk/H:C:T:L, so it needs no listing (one
// directory fewer per disk).
func scsiDiskAddr(d *Device) (string, bool) {
	dev := path.Dir(path.Dir(d.SysPath))
	if len(d.Drivers) == 0 || d.Drivers[0] != "sd" || path.Base(path.Dir(d.SysPath)) != "block" || !scsiAddr.MatchString(path.Base(dev)) {
		return "", false
	}
	return path.Base(dev), true
}

var scsiAddr = regexp.MustCompile(`^\d+:\d+:\d+:\d+$`)

// raidDrivers own a hardware RAID controller: its disks are the
// controller's logical drives (or drives it passes through), and its own
// cache, often battery-backed, sits in front of them. mpt3sas is an HBA.
var raidDrivers = map[string]bool{"cciss": true, "hpsa": true, "smartpqi": true, "megaraid_sas": true, "aacraid": true, "mpt3sas": false}

// RAIDDriver reports whether drv owns a hardware RAID controller.
func RAIDDriver(drv string) bool { return raidDrivers[drv] }

func transport(d *Device) string {
	p := d.SysPath
	has := func(drv string) bool {
		for _, x := range d.Drivers {
			if x == drv {
				return true
			}
		}
		return false
	}
	bus := d.Udev.Prop("ID_BUS")
	switch {
	case d.Virtual:
		return "virtual"
	case strings.Contains(p, "/nvme/") || strings.Contains(p, "/nvme-subsystem/") || strings.HasPrefix(d.Name, "nvme"):
		return "nvme"
	case strings.Contains(p, "/usb") || bus == "usb" || has("usb-storage") || has("uas"):
		return "usb"
	case strings.Contains(p, "/virtio") || has("virtio_blk"):
		return "virtio"
	case strings.Contains(p, "/mmc") || strings.HasPrefix(d.Name, "mmcblk"):
		return "mmc"
	}
	for _, drv := range d.Drivers {
		if raidDrivers[drv] {
			return "raid"
		}
	}
	for _, drv := range d.Drivers {
		if strings.HasPrefix(drv, "pata_") {
			return "pata"
		}
	}
	switch {
	case strings.Contains(p, "/ata") || bus == "ata":
		return "sata"
	case iscsiSession.MatchString(p):
		// An iSCSI LUN sits under its session (drivers/scsi/
		// scsi_transport_iscsi.c: hostN/sessionM/targetN:C:T).
		return "iscsi"
	case strings.Contains(p, "/rport-"):
		// A Fibre Channel LUN sits under its remote port
		// (drivers/scsi/scsi_transport_fc.c: rport-H:C-N/targetH:C:T).
		return "fc"
	case strings.Contains(p, "/end_device-") || strings.Contains(p, "/sas_") || slices.ContainsFunc(d.Drivers, isSASDriver):
		return "sas"
	case strings.HasPrefix(d.Name, "sd"):
		return "scsi"
	}
	return "unknown"
}

var iscsiSession = regexp.MustCompile(`/session\d+/`)

// sasDrivers drive SAS host bus adapters. Those on the SAS transport
// class put an end_device- node on the disk's path; the list covers the
// disks whose path lacks one.
var sasDrivers = map[string]bool{"mpt3sas": true, "mpt2sas": true, "mpi3mr": true, "mvsas": true, "pm80xx": true, "isci": true, "aic94xx": true}

func isSASDriver(drv string) bool { return sasDrivers[drv] || strings.HasPrefix(drv, "hisi_sas") }

// nvmeControllers maps a namespace to its controllers: the per-path links
// under multipath/ (native multipath) or the nvme<N> directory above it.
func nvmeControllers(ctx context.Context, h *machine.Host, ix *shared, d *Device) []string {
	parent := path.Base(path.Dir(d.SysPath))
	if strings.HasPrefix(parent, "nvme") && !strings.HasPrefix(parent, "nvme-subsys") {
		// A namespace under its controller: no multipath/ to list (only a
		// multipath head, under its subsystem, has one).
		return []string{parent}
	}
	var out []string
	for _, n := range names(ctx, h, "/sys/block/"+d.Name+"/multipath") {
		if ctrl, ok := nvmePathController(n); ok {
			out = append(out, "nvme"+ctrl)
		}
	}
	if len(out) > 0 {
		return out
	}
	if strings.HasPrefix(parent, "nvme-subsys") {
		for _, n := range ix.subsystemNames(ctx, path.Dir(d.SysPath)) {
			if isNVMeControllerName(n) {
				out = append(out, n)
			}
		}
	}
	return out
}

// ControllerFunction is the PCI function directory of controller ctrl
// when the namespace sits under it (<function>/nvme/<ctrl>/<namespace>):
// what the controller's device link resolves to, without walking it.
func (d *Device) ControllerFunction(ctrl string) (string, bool) {
	ns := path.Dir(d.SysPath)
	if path.Base(ns) != ctrl || path.Base(path.Dir(ns)) != "nvme" {
		return "", false
	}
	fn := path.Dir(path.Dir(ns))
	return fn, pciAddr.MatchString(path.Base(fn))
}

func (d *Device) hasDriver(drv string) bool {
	for _, x := range d.Drivers {
		if x == drv {
			return true
		}
	}
	return false
}

// hypervisorOf recognises a guest's virtual disk by what the emulated or
// paravirtual device says about itself: its driver, SCSI vendor and model,
// NVMe model, kernel name or device path.
// virtualPCI are PCI functions that only hypervisors present (pci.ids).
var virtualPCI = map[string]string{
	"1d0f:8061": "Amazon EBS",                // Amazon.com NVMe EBS Controller
	"1d0f:cd01": "Amazon EC2 instance store", // Amazon.com NVMe SSD Controller
	"15ad:07f0": "VMware",                    // VMware virtual NVMe controller
	"15ad:07c0": "VMware",                    // VMware PVSCSI
}

// pciIDAbove reads vendor:device of the nearest PCI function on the
// device's path (an NVMe controller, a SCSI HBA).
func pciIDAbove(ctx context.Context, h *machine.Host, sysPath string) string {
	for p := path.Dir(sysPath); strings.HasPrefix(p, "/sys/devices/pci"); p = path.Dir(p) {
		if !pciAddr.MatchString(path.Base(p)) {
			continue
		}
		return h.PCIID(ctx, p)
	}
	return ""
}

var pciAddr = regexp.MustCompile(`^[0-9a-f]{4}:[0-9a-f]{2}:[0-9a-f]{2}\.[0-7]$`)

func hypervisorOf(d *Device) (string, string) {
	if hv, ok := virtualPCI[d.PCIID]; ok {
		return hv, "PCI function " + d.PCIID
	}
	model := strings.ToUpper(NormalizeSpaces(d.Model))
	vendor := strings.ToUpper(strings.TrimSpace(d.Vendor))
	// A cloud's disks name themselves whatever the transport (a GCP
	// Persistent Disk sits on virtio-scsi or NVMe).
	switch {
	case strings.Contains(model, "AMAZON ELASTIC BLOCK STORE"):
		return "Amazon EBS", "model " + d.Model
	case strings.Contains(model, "AMAZON EC2 NVME INSTANCE STORAGE"):
		return "Amazon EC2 instance store", "model " + d.Model
	case strings.Contains(model, "PERSISTENTDISK") || model == "NVME_CARD-PD" || model == "NVME CARD-PD":
		return "Google Persistent Disk", "model " + d.Model
	case model == "EPHEMERALDISK" || model == "NVME_CARD" || model == "NVME CARD":
		return "Google local SSD", "model " + d.Model
	case strings.HasPrefix(model, "MICROSOFT NVME DIRECT DISK"):
		return "Azure local NVMe", "model " + d.Model
	case strings.HasPrefix(model, "MSFT NVME ACCELERATOR"):
		return "Azure managed disk (NVMe)", "model " + d.Model
	}
	for _, c := range []struct{ drv, name string }{
		{"vmw_pvscsi", "VMware"}, {"hv_storvsc", "Hyper-V"}, {"xen-blkfront", "Xen"}, {"xen_blkfront", "Xen"},
		{"virtio_blk", "virtio"}, {"virtio_scsi", "virtio"},
	} {
		if d.hasDriver(c.drv) {
			return c.name, "driver " + c.drv
		}
	}
	switch {
	case vendor == "VMWARE" || strings.HasPrefix(model, "VMWARE VIRTUAL") || vendor == "VMWARE,":
		return "VMware", "vendor " + d.Vendor + ", model " + d.Model
	case vendor == "MSFT" || strings.Contains(model, "MSFT VIRTUAL DISK") || model == "VIRTUAL DISK" && vendor == "MSFT":
		return "Hyper-V", "vendor " + d.Vendor + ", model " + d.Model
	case strings.HasPrefix(model, "QEMU") || vendor == "QEMU":
		return "QEMU", "model " + d.Model
	case strings.HasPrefix(model, "VBOX") || vendor == "VBOX":
		return "VirtualBox", "model " + d.Model
	case vendor == "GOOGLE":
		return "Google Persistent Disk", "vendor " + d.Vendor
	case strings.HasPrefix(d.Name, "xvd") || strings.Contains(d.SysPath, "/xen/") || strings.Contains(d.SysPath, "/vbd-"):
		return "Xen", "device " + d.SysPath
	case strings.Contains(d.SysPath, "/virtio"):
		// The transport, not a hypervisor: QEMU, Firecracker, Cloud
		// Hypervisor and others all offer virtio disks; the platform
		// check names the hypervisor.
		return "virtio", "device " + d.SysPath
	}
	return "", ""
}
