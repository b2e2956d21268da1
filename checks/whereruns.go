package checks

import (
	"regexp"
	"strconv"
	"strings"

	"github.com/diskdoctor/diskdoctor/probes/block"
	"github.com/diskdoctor/diskdoctor/probes/kernlog"
	"github.com/diskdoctor/diskdoctor/probes/system"
)

// Where is where the machine runs: the cloud provider, the machine type
// it names and the hypervisor, each with what said so. Hypervisor is
// "none" on a machine known to run on bare metal, "unidentified" for a
// guest of a hypervisor nothing names, and "" when nothing tells.
type Where struct {
	Provider, MachineType, Hypervisor string
	ProviderEv, MachineTypeEv         []Evidence
	HypervisorEv                      []Evidence
	// DMIKnown: DMI was read (sysfs or the kernel log's DMI line), so a
	// provider it does not name is none, not unknown.
	DMIKnown bool
}

// Hypervisor names; a virtual disk's cache setting is looked up by them
// (cacheSettings).
const (
	hvNitro           = "AWS Nitro"
	hvHyperV          = "Hyper-V"
	hvVMware          = "VMware"
	hvXen             = "Xen"
	hvQEMUKVM         = "QEMU/KVM"
	hvProxmox         = "Proxmox (QEMU/KVM)"
	hvKVM             = "KVM"
	hvFirecracker     = "Firecracker"
	hvCloudHypervisor = "Cloud Hypervisor"
	hvVirtualBox      = "VirtualBox"
	hvNone            = "none"
	// hvUnidentified: a guest (the CPU flag, a virtio disk) whose
	// hypervisor nothing names.
	hvUnidentified = "unidentified"
)

// azureAssetTag is the chassis asset tag every Azure VM carries (the one
// cloud-init's ds-identify and WALinuxAgent test for Azure).
const azureAssetTag = "7783-7084-3265-9085-8269-3286-77"

var (
	// "Hypervisor detected: KVM" (arch/x86/kernel/cpu/hypervisor.c,
	// init_hypervisor_platform: the hypervisor_x86 name).
	klogHypervisor = regexp.MustCompile(`^Hypervisor detected: (.+)$`)
	// "ACPI: RSDP 0x00000000000E0000 000024 (v02 FIRECK)": the ACPI
	// tables' OEM ID (drivers/acpi/acpica/tbprint.c). Firecracker writes
	// FIRECK (src/vmm/src/acpi/mod.rs), Cloud Hypervisor CLOUDH
	// (vmm/src/acpi.rs).
	klogRSDP = regexp.MustCompile(`^ACPI: RSDP 0x[0-9A-Fa-f]+ [0-9A-Fa-f]+ \(v\d+ (\S+)\s*\)`)
	// "DMI: Amazon EC2 c5.large/, BIOS 1.0 10/16/2017": the DMI strings
	// the kernel prints at boot (drivers/firmware/dmi_scan.c,
	// dmi_format_ids: sys_vendor product_name/board_name, BIOS ...).
	klogDMI = regexp.MustCompile(`^DMI: (.+?)/(.*?), BIOS (.*)$`)
)

// dmiVendors are the sys_vendor strings a kernel log's DMI line is split
// at (the line joins vendor and product with a space).
var dmiVendors = []string{"Amazon EC2", "Microsoft Corporation", "Google", "QEMU", "VMware, Inc.", "Xen", "Cloud Hypervisor", "OpenStack Foundation", "innotek GmbH", "Red Hat"}

// whereItRuns tells the provider, machine type and hypervisor from DMI,
// the kernel log (the hypervisor the kernel detected, the ACPI tables'
// OEM, its own DMI line), the CPU's hypervisor flag and the disks'
// transports. Any of its inputs may be nil.
func whereItRuns(p *system.Platform, klog *kernlog.Log, devs []*block.Device) Where {
	var w Where
	var vendor, product, prodVersion, biosVendor, biosVersion, assetTag string
	dmiEv := func(attr, v string) []Evidence { return []Evidence{{"/sys/class/dmi/id/" + attr, v}} }
	if p != nil {
		vendor, product, prodVersion = p.Vendor, p.Product, p.ProductVersion
		biosVendor, biosVersion, assetTag = p.BIOSVendor, p.BIOSVersion, p.ChassisAssetTag
	}
	var klHV, klOEM, klDMI *kernlog.Line
	var klHVName, oem string
	if klog != nil {
		for i := range klog.Lines {
			l := &klog.Lines[i]
			if l.EarlierBoot {
				continue
			}
			if m := klogHypervisor.FindStringSubmatch(l.Text); m != nil && klHV == nil {
				klHV, klHVName = l, strings.TrimSpace(m[1])
			} else if m := klogRSDP.FindStringSubmatch(l.Text); m != nil && klOEM == nil {
				klOEM, oem = l, m[1]
			} else if klDMI == nil && klogDMI.MatchString(l.Text) {
				klDMI = l
			}
		}
	}
	lineEv := func(l *kernlog.Line) []Evidence {
		return []Evidence{{"dmesg line " + strconv.Itoa(l.Num), l.Raw}}
	}
	// The kernel log's DMI line stands in for a DMI not recorded.
	if vendor == "" && product == "" && klDMI != nil {
		if m := klogDMI.FindStringSubmatch(klDMI.Text); m != nil {
			for _, v := range dmiVendors {
				if rest, ok := strings.CutPrefix(m[1], v+" "); ok {
					vendor, product = v, strings.TrimSpace(rest)
					dmiEv = func(string, string) []Evidence { return lineEv(klDMI) }
					break
				}
			}
		}
	}
	w.DMIKnown = vendor != "" || product != ""
	hv := func(name string, ev []Evidence) {
		w.Hypervisor, w.HypervisorEv = name, ev
	}
	switch {
	case vendor == "Amazon EC2":
		w.Provider, w.ProviderEv = "AWS", dmiEv("sys_vendor", vendor)
		if product != "" {
			w.MachineType, w.MachineTypeEv = product, dmiEv("product_name", product)
		}
		// A .metal instance runs on the Nitro cards without a hypervisor.
		if strings.HasSuffix(product, ".metal") {
			hv(hvNone, dmiEv("product_name", product))
		} else {
			hv(hvNitro, dmiEv("sys_vendor", vendor))
		}
	case vendor == "Xen" && strings.Contains(strings.ToLower(biosVersion), "amazon"):
		// The Xen-based instance types: "4.11.amazon".
		w.Provider, w.ProviderEv = "AWS", dmiEv("bios_version", biosVersion)
		hv(hvXen, dmiEv("sys_vendor", vendor))
	case vendor == "Microsoft Corporation" && (product == "Virtual Machine" || assetTag == azureAssetTag):
		if assetTag == azureAssetTag {
			w.Provider, w.ProviderEv = "Azure", dmiEv("chassis_asset_tag", assetTag)
		}
		hv(hvHyperV, dmiEv("product_name", product))
	case product == "Google Compute Engine" || vendor == "Google":
		w.Provider, w.ProviderEv = "GCP", dmiEv("product_name", product)
		hv(hvKVM, dmiEv("product_name", product))
	case vendor == "OpenStack Foundation" || strings.HasPrefix(product, "OpenStack"):
		w.Provider, w.ProviderEv = "OpenStack", dmiEv("product_name", product)
		hv(hvQEMUKVM, dmiEv("product_name", product))
	case vendor == "Cloud Hypervisor" || biosVendor == "cloud-hypervisor":
		hv(hvCloudHypervisor, dmiEv("sys_vendor", vendor))
	case strings.Contains(strings.ToLower(vendor+" "+product+" "+prodVersion), "proxmox"):
		// Proxmox VE guests show QEMU's DMI unless the VM's smbios1
		// option names Proxmox.
		hv(hvProxmox, dmiEv("sys_vendor", vendor))
	case vendor == "QEMU" || vendor == "Bochs" || strings.HasPrefix(product, "KVM") || vendor == "Red Hat" && strings.Contains(product, "KVM"):
		hv(hvQEMUKVM, dmiEv("sys_vendor", vendor))
	case strings.HasPrefix(vendor, "VMware") || strings.HasPrefix(product, "VMware"):
		hv(hvVMware, dmiEv("sys_vendor", vendor))
	case vendor == "Xen":
		hv(hvXen, dmiEv("sys_vendor", vendor))
	case vendor == "innotek GmbH" || product == "VirtualBox":
		hv(hvVirtualBox, dmiEv("sys_vendor", vendor))
	}
	if w.Hypervisor != "" {
		return w
	}
	// No DMI that names one: the ACPI tables' OEM (the boot log's, else
	// the FADT's own header, which outlives the ring buffer), then the
	// hypervisor the kernel detected.
	oemEv := func() []Evidence { return lineEv(klOEM) }
	if oem == "" && p != nil && p.ACPIOEM != "" {
		oem = p.ACPIOEM
		oemEv = func() []Evidence { return []Evidence{{system.ACPIFADTPath, "OEM ID " + p.ACPIOEM}} }
	}
	switch oem {
	case "FIRECK":
		hv(hvFirecracker, oemEv())
		return w
	case "CLOUDH":
		hv(hvCloudHypervisor, oemEv())
		return w
	}
	if klHV != nil {
		name := klHVName
		switch {
		case name == "KVM":
			name = hvKVM
		case strings.Contains(name, "Hyper-V"):
			name = hvHyperV
		case strings.HasPrefix(name, "VMware"):
			name = hvVMware
		case strings.HasPrefix(name, "Xen"):
			name = hvXen
		}
		hv(name, lineEv(klHV))
		return w
	}
	// The disks: a cloud's volume names its cloud, a paravirtual
	// driver its hypervisor, a virtio disk only that it is a guest's.
	for _, d := range devs {
		ev := []Evidence{{"/sys/block/" + d.Name, d.HypervisorWhy}}
		switch d.Hypervisor {
		case "Amazon EBS", "Amazon EC2 instance store":
			if w.Provider == "" {
				w.Provider, w.ProviderEv = "AWS", ev
			}
			hv(hvNitro, ev)
			return w
		case "Google Persistent Disk", "Google local SSD":
			if w.Provider == "" {
				w.Provider, w.ProviderEv = "GCP", ev
			}
			hv(hvKVM, ev)
			return w
		case "Azure local NVMe", "Azure managed disk (NVMe)":
			if w.Provider == "" {
				w.Provider, w.ProviderEv = "Azure", ev
			}
			hv(hvHyperV, ev)
			return w
		case hvHyperV, hvVMware, hvXen:
			hv(d.Hypervisor, ev)
			return w
		}
	}
	if p != nil && p.CPUHypervisor != nil {
		if *p.CPUHypervisor {
			// A guest, of a hypervisor nothing names.
			hv(hvUnidentified, []Evidence{{"/proc/cpuinfo", "flags: hypervisor"}})
			return w
		}
		// x86 without the flag and no DMI of a VM: bare metal.
		hv(hvNone, []Evidence{{"/proc/cpuinfo", "flags without hypervisor"}})
		return w
	}
	for _, d := range devs {
		if d.Hypervisor == "virtio" || d.Transport == "virtio" {
			// A virtio disk is a guest's; which hypervisor is not said.
			hv(hvUnidentified, []Evidence{{"/sys/block/" + d.Name, d.SysPath}})
			break
		}
	}
	return w
}
