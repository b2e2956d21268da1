package checks

import (
	"strings"
	"testing"

	"github.com/diskdoctor/diskdoctor/probes/block"
	"github.com/diskdoctor/diskdoctor/probes/kernlog"
	"github.com/diskdoctor/diskdoctor/probes/system"
)

// The kernel lines below are real boot logs as published; each names
// where it was found.
func TestWhereItRunsFromKernelLog(t *testing.T) {
	yes, no := true, false
	for _, tt := range []struct {
		name, log                string
		p                        *system.Platform
		provider, machine, hyper string
	}{
		// A Bitnami post on an EC2 t3.micro (`dmesg | egrep 'DMI|Hypervisor'`).
		{"aws-t3", "[    0.000000] DMI: Amazon EC2 t3.micro/, BIOS 1.0 10/16/2017\n[    0.000000] Hypervisor detected: KVM\n", nil, "AWS", "t3.micro", hvNitro},
		// An r5d.xlarge boot log (SMBIOS 2.7).
		{"aws-r5d", "[    0.000000] SMBIOS 2.7 present.\n[    0.000000] DMI: Amazon EC2 r5d.xlarge/, BIOS 1.0 10/16/2017\n[    0.000000] Hypervisor detected: KVM\n", nil, "AWS", "r5d.xlarge", hvNitro},
		// A Graviton c6g.xlarge (arm64: no Hypervisor line, ACPI OEM AMAZON).
		{"aws-graviton", "[    0.000000] ACPI: RSDP 0x00000000786E0014 000024 (v02 AMAZON)\n[    0.000000] DMI: Amazon EC2 c6g.xlarge/, BIOS 1.0 11/1/2018\n", nil, "AWS", "c6g.xlarge", hvNitro},
		// GCE boot logs (kernel test robot reports, Travis CI workers).
		{"gcp", "[    0.000000] SMBIOS 2.4 present.\n[    0.000000] DMI: Google Google Compute Engine/Google Compute Engine, BIOS Google 01/01/2011\n[    0.000000] Hypervisor detected: KVM\n", nil, "GCP", "", hvKVM},
		// A Hyper-V guest's journal (no Azure asset tag: not Azure).
		{"hyperv", "Jun 11 20:15:39 hyperv kernel: DMI: Microsoft Corporation Virtual Machine/Virtual Machine, BIOS Hyper-V UEFI Release v4.0 11/01/2019\nJun 11 20:15:39 hyperv kernel: Hypervisor detected: Microsoft Hyper-V\n", nil, "", "", hvHyperV},
		// This Firecracker microVM (fixtures/firecracker-guest).
		{"firecracker", "[    0.000000] DMI not present or invalid.\n[    0.000000] Hypervisor detected: KVM\n[    0.001061] ACPI: RSDP 0x00000000000E0000 000024 (v02 FIRECK)\n", &system.Platform{CPUHypervisor: &yes}, "", "", hvFirecracker},
		// A KVM guest without DMI or a known ACPI OEM: the kernel's name.
		{"kvm-bare", "[    0.000000] DMI not present or invalid.\n[    0.000000] Hypervisor detected: KVM\n", nil, "", "", hvKVM},
		// No kernel log, the CPU flag alone.
		{"cpu-flag", "", &system.Platform{CPUHypervisor: &yes}, "", "", hvUnidentified},
		{"bare-metal", "", &system.Platform{Vendor: "Dell Inc.", Product: "PowerEdge R630", CPUHypervisor: &no}, "", "", hvNone},
	} {
		t.Run(tt.name, func(t *testing.T) {
			var klog *kernlog.Log
			if tt.log != "" {
				klog = &kernlog.Log{Source: "dmesg", Lines: kernlog.Parse([]byte(tt.log))}
			}
			w := whereItRuns(tt.p, klog, nil)
			if w.Provider != tt.provider || w.MachineType != tt.machine || w.Hypervisor != tt.hyper {
				t.Errorf("got %q %q %q, want %q %q %q", w.Provider, w.MachineType, w.Hypervisor, tt.provider, tt.machine, tt.hyper)
			}
			if w.Hypervisor != "" && len(w.HypervisorEv) == 0 {
				t.Errorf("hypervisor %q without evidence", w.Hypervisor)
			}
		})
	}
}

// DMI as sysfs gives it: the strings cloud-init's ds-identify matches
// (tools/ds-identify: sys_vendor "Amazon EC2", product_name "Google
// Compute Engine", Azure's chassis asset tag, "OpenStack Nova"), Cloud
// Hypervisor's own (arch/src/x86_64/smbios.rs), QEMU's and VMware's.
func TestWhereItRunsFromDMI(t *testing.T) {
	for _, tt := range []struct {
		p                        system.Platform
		provider, machine, hyper string
	}{
		{system.Platform{Vendor: "Amazon EC2", Product: "c5.2xlarge", BIOSVendor: "Amazon EC2"}, "AWS", "c5.2xlarge", hvNitro},
		{system.Platform{Vendor: "Amazon EC2", Product: "c5.metal"}, "AWS", "c5.metal", hvNone},
		{system.Platform{Vendor: "Xen", Product: "HVM domU", BIOSVersion: "4.11.amazon"}, "AWS", "", hvXen},
		{system.Platform{Vendor: "Microsoft Corporation", Product: "Virtual Machine", ChassisAssetTag: azureAssetTag}, "Azure", "", hvHyperV},
		{system.Platform{Vendor: "Google", Product: "Google Compute Engine"}, "GCP", "", hvKVM},
		{system.Platform{Vendor: "OpenStack Foundation", Product: "OpenStack Nova"}, "OpenStack", "", hvQEMUKVM},
		{system.Platform{Vendor: "Cloud Hypervisor", Product: "cloud-hypervisor", BIOSVendor: "cloud-hypervisor"}, "", "", hvCloudHypervisor},
		{system.Platform{Vendor: "QEMU", Product: "Standard PC (Q35 + ICH9, 2009)", ProductVersion: "pc-q35-7.2"}, "", "", hvQEMUKVM},
		{system.Platform{Vendor: "VMware, Inc.", Product: "VMware Virtual Platform"}, "", "", hvVMware},
		{system.Platform{Vendor: "Xen", Product: "HVM domU"}, "", "", hvXen},
		{system.Platform{Vendor: "innotek GmbH", Product: "VirtualBox"}, "", "", hvVirtualBox},
	} {
		w := whereItRuns(&tt.p, nil, nil)
		if w.Provider != tt.provider || w.MachineType != tt.machine || w.Hypervisor != tt.hyper {
			t.Errorf("%s %s: got %q %q %q, want %q %q %q", tt.p.Vendor, tt.p.Product, w.Provider, w.MachineType, w.Hypervisor, tt.provider, tt.machine, tt.hyper)
		}
	}
}

// Without DMI or a kernel log the disks still say something: a cloud's
// volume its cloud, a virtio disk only that the machine is a guest.
func TestWhereItRunsFromDisks(t *testing.T) {
	ebs := &block.Device{Name: "nvme0n1", Hypervisor: "Amazon EBS", HypervisorWhy: "PCI function 1d0f:8061"}
	if w := whereItRuns(nil, nil, []*block.Device{ebs}); w.Provider != "AWS" || w.Hypervisor != hvNitro {
		t.Errorf("EBS disk: %+v", w)
	}
	vda := &block.Device{Name: "vda", Transport: "virtio", Hypervisor: "virtio", SysPath: "/sys/devices/pci0000:00/0000:00:04.0/virtio1/block/vda"}
	if w := whereItRuns(nil, nil, []*block.Device{vda}); w.Provider != "" || w.Hypervisor != hvUnidentified {
		t.Errorf("virtio disk: %+v", w)
	}
}

// The Firecracker guest this doctor was written on: no DMI, the ACPI OEM
// names Firecracker, and the virtio disk's note cites Firecracker's
// cache_type, not QEMU's cache=.
func TestFirecrackerGuestPlatform(t *testing.T) {
	const root = "../fixtures/firecracker-guest"
	host, _ := recordedObservation(t, root, "host", platform)
	want := map[string]any{"provider": nil, "machine_type": nil, "vm_hypervisor": hvFirecracker, "role": "vm"}
	for name, w := range want {
		if got := host.Get(name); got != w {
			t.Errorf("%s = %#v, want %#v", name, got, w)
		}
	}
	vda, _ := recordedObservation(t, root, "vda", inventory)
	if got := vda.Get("hypervisor"); got != hvFirecracker {
		t.Errorf("vda hypervisor = %#v", got)
	}
	if s, _ := vda.Get("hypervisor_cache_setting").(string); !strings.Contains(s, "cache_type") || strings.Contains(s, "QEMU") {
		t.Errorf("vda cache setting = %q", s)
	}
}

// The kernel's ring buffer forgets the boot lines on a busy machine; the
// FADT's header (this Firecracker VM's /sys/firmware/acpi/tables/FACP,
// its first 16 bytes) still names the hypervisor.
func TestWhereItRunsFromACPITable(t *testing.T) {
	fadt := []byte("FACP\x14\x01\x00\x00\x06fFIRECK")
	yes := true
	p := &system.Platform{CPUHypervisor: &yes, ACPIOEM: system.ParseACPIOEM(fadt)}
	if w := whereItRuns(p, &kernlog.Log{}, nil); w.Hypervisor != hvFirecracker || len(w.HypervisorEv) == 0 || w.HypervisorEv[0].Source != system.ACPIFADTPath {
		t.Errorf("got %+v", w)
	}
	if got := system.ParseACPIOEM([]byte("FACP\x14\x01\x00\x00\x06f\x01\x02ABCD")); got != "" {
		t.Errorf("control bytes gave %q", got)
	}
}
