package checks

import (
	"slices"
	"strings"
)

// FactType is the Go type of a fact's value when it is known; a fact a
// rule reads is nil when unknown, whatever its type.
type FactType string

// The types a fact may have.
const (
	TypeString  FactType = "string"
	TypeBool    FactType = "bool"
	TypeInt     FactType = "int"
	TypeInt64   FactType = "int64"
	TypeUint64  FactType = "uint64"
	TypeFloat   FactType = "float"
	TypeStrings FactType = "list of strings"
	// TypeRecords is a list of records, each a map of named values.
	TypeRecords FactType = "list of records"
	// TypeWindow is the sampling window's summary (*Sample).
	TypeWindow FactType = "window summary"
)

// Holds says whether v is a value of type t: nil (unknown) always is.
func (t FactType) Holds(v any) bool {
	if v == nil {
		return true
	}
	switch v.(type) {
	case string:
		return t == TypeString
	case bool:
		return t == TypeBool
	case int:
		return t == TypeInt
	case int64:
		return t == TypeInt64
	case uint64:
		return t == TypeUint64
	case float64:
		return t == TypeFloat
	case []string:
		return t == TypeStrings
	case []any:
		return t == TypeRecords
	case *Sample:
		return t == TypeWindow
	}
	return false
}

// SetByEngine is the SetBy of a fact the rule engine derives from other
// facts and its tables (datasheets, firmware advisories), not a check.
const SetByEngine = "engine"

// FactDecl declares one fact: its name, the type of its value, its unit
// where one applies, the one check that sets it, and what it means.
type FactDecl struct {
	Name    string
	Type    FactType
	Unit    string // bytes, seconds, %, MB/s, …; "" for none
	SetBy   string // a check's name, or SetByEngine
	Meaning string
}

// The facts read by Go code outside the check that sets them (report/
// renderers, rules/): code names them by these constants.
const (
	FactByID                 = "by_id"
	FactClass                = "class"
	FactControllerVolume     = "controller_volume"
	FactCtlCacheReason       = "ctl_cache_reason"
	FactCtlCacheSize         = "ctl_cache_size"
	FactCtlCacheState        = "ctl_cache_state"
	FactCtlCacheStatus       = "ctl_cache_status"
	FactCtlController        = "ctl_controller"
	FactCtlControllerModel   = "ctl_controller_model"
	FactCtlDriveModels       = "ctl_drive_models"
	FactCtlDrivesPLP         = "ctl_drives_plp"
	FactCtlDSCacheMB         = "ctl_ds_cache_mb"
	FactCtlDSEnergyPack      = "ctl_ds_energy_pack"
	FactCtlDSProduct         = "ctl_ds_product"
	FactCtlDSSource          = "ctl_ds_source"
	FactCtlEnergyPack        = "ctl_energy_pack"
	FactCtlEnergyStatus      = "ctl_energy_status"
	FactCtlMedia             = "ctl_media"
	FactCtlPolicyConfigured  = "ctl_policy_configured"
	FactCtlPolicyCurrent     = "ctl_policy_current"
	FactBIOSDate             = "bios_date"
	FactBIOSVersion          = "bios_version"
	FactContext              = "context"
	FactDistro               = "distro"
	FactFirmware             = "firmware"
	FactFWAdvisory           = "fw_advisory"
	FactFWAdvisoryBug        = "fw_advisory_bug"
	FactFWAdvisorySeverity   = "fw_advisory_severity"
	FactFWAdvisorySource     = "fw_advisory_source"
	FactFWCurrent            = "fw_current"
	FactFWFixedVersion       = "fw_fixed_version"
	FactFWQuirks             = "fw_quirks"
	FactFWUpdateTool         = "fw_update_tool"
	FactHolders              = "holders"
	FactHostname             = "hostname"
	FactInUse                = "in_use"
	FactJudged               = "judged"
	FactKernel               = "kernel"
	FactModel                = "model"
	FactMountpoints          = "mountpoints"
	FactMultipathName        = "multipath_name"
	FactNVMePath             = "nvme_path"
	FactPCIeMaxGTs           = "pcie_max_gts"
	FactPlatform             = "platform"
	FactProduct              = "product"
	FactRole                 = "role"
	FactRotational           = "rotational"
	FactSampleRMBs           = "sample_r_mbs"
	FactSampleUtilPct        = "sample_util_pct"
	FactSampleWMBs           = "sample_w_mbs"
	FactScheduler            = "scheduler"
	FactSerial               = "serial"
	FactSizeBytes            = "size_bytes"
	FactSmartFirmware        = "smart_firmware"
	FactSmartModel           = "smart_model"
	FactSysVendor            = "sys_vendor"
	FactTransport            = "transport"
	FactTrimCovered          = "trim_covered"
	FactTrimSupported        = "trim_supported"
	FactVirtualDisk          = "virtual_disk"
	FactWCNoCachePage        = "wc_no_cache_page"
	FactWCNVMeVWC            = "wc_nvme_vwc"
	FactWCOn                 = "wc_on"
	FactWWN                  = "wwn"
	FactZFSPools             = "zfs_pools"
	FactZFSReadIOPS          = "zfs_read_iops"
	FactZFSWriteIOPS         = "zfs_write_iops"
	FactPCIeCurGTs           = "pcie_cur_gts"
	FactPCIeCurWidth         = "pcie_cur_width"
	FactPCIeMaxWidth         = "pcie_max_width"
	FactSmartPassed          = "smart_passed"
	FactWCSupported          = "wc_supported"
	factPressureWindowSuffix = "_window_pct"
)

// LookupFact is the declaration of a fact, false for an undeclared name.
func LookupFact(name string) (FactDecl, bool) {
	i, ok := slices.BinarySearchFunc(factDecls, name, func(d FactDecl, n string) int { return strings.Compare(d.Name, n) })
	if !ok {
		return FactDecl{}, false
	}
	return factDecls[i], true
}

// Facts are every declared fact, in name order.
func Facts() []FactDecl { return slices.Clone(factDecls) }

// factDecls is sorted by name once, at init: LookupFact searches it.
func init() {
	slices.SortFunc(factDecls, func(a, b FactDecl) int { return strings.Compare(a.Name, b.Name) })
}

// pressureFacts declares the PSI averages of /proc/pressure/<res> (psi.rst).
func pressureFacts(res, what string) []FactDecl {
	var out []FactDecl
	for _, k := range []string{"some", "full"} {
		who := "some task"
		if k == "full" {
			who = "all non-idle tasks at once"
		}
		for _, w := range []string{"10", "60", "300"} {
			out = append(out, FactDecl{res + "_" + k + "_avg" + w, TypeFloat, "%", "pressure",
				"share of the last " + w + " s that " + who + " stalled on " + what + " (PSI " + k + " avg" + w + ")"})
		}
		out = append(out, FactDecl{res + "_" + k + factPressureWindowSuffix, TypeFloat, "%", "sample",
			"share of the sampling window that " + who + " stalled on " + what + " (growth of the PSI " + k + " total)"})
	}
	return out
}

// factDecls is every fact a check sets or the engine derives.
var factDecls = slices.Concat(pressureFacts("io", "I/O"), pressureFacts("cpu", "CPU"), pressureFacts("memory", "memory"), []FactDecl{
	// cpu-power
	{"cpu_max_mhz", TypeFloat, "MHz", "cpu-power", "CPU 0's highest frequency (cpuinfo_max_freq)"},
	{"cpu_mhz_avg", TypeFloat, "MHz", "cpu-power", "mean clock of the CPUs in /proc/cpuinfo"},
	{"cpu_min_mhz", TypeFloat, "MHz", "cpu-power", "CPU 0's lowest frequency (cpuinfo_min_freq)"},
	{"cpu_model", TypeString, "", "cpu-power", "CPU model name from /proc/cpuinfo"},
	{"cpus", TypeInt, "", "cpu-power", "CPUs the cpufreq probe lists"},
	{"cpus_at_min", TypeInt, "", "cpu-power", "CPUs whose current frequency is within 5 % of their minimum"},
	{"cpus_at_min_fraction", TypeFloat, "", "cpu-power", "cpus_at_min over cpus_sampled (0 to 1)"},
	{"cpus_sampled", TypeInt, "", "cpu-power", "CPUs whose current and minimum frequency could be read"},
	{"cstate_limits", TypeStrings, "", "cpu-power", "C-state limits on the kernel command line (intel_idle.max_cstate=, processor.max_cstate=, idle=)"},
	{"governor", TypeString, "", "cpu-power", "the scaling governor most CPUs run"},
	{"pstate_status", TypeString, "", "cpu-power", "intel_pstate's status (active, passive, off)"},
	{"scaling_driver", TypeString, "", "cpu-power", "CPU 0's cpufreq scaling driver"},

	// platform
	{"bios_date", TypeString, "", "platform", "DMI bios_date"},
	{"bios_version", TypeString, "", "platform", "DMI bios_version"},
	{"board", TypeString, "", "platform", "DMI board_name"},
	{"chassis_type", TypeInt, "", "platform", "DMI chassis_type (the SMBIOS chassis code)"},
	{"context", TypeString, "", "platform", "the --context the run was given (auto, server, desktop, laptop, vm, benchmark)"},
	{"controllers", TypeStrings, "", "platform", "each storage controller driver with the disks behind it (\"ahci: sda sdb\")"},
	{"distro", TypeString, "", "platform", "the distribution (/etc/os-release PRETTY_NAME)"},
	{"hostname", TypeString, "", "platform", "the host's name"},
	{"kernel", TypeString, "", "platform", "kernel release (/proc/sys/kernel/osrelease)"},
	{"kernel_code", TypeInt, "", "platform", "kernel release as major*1000+minor (6.11 is 6011); nil when unparsable"},
	{"platform", TypeString, "", "platform", "DMI vendor and product joined (in a condition, platform is the matched platforms.yaml entry: read host.platform)"},
	{"product", TypeString, "", "platform", "DMI product_name"},
	{"role", TypeString, "", "platform", "what the machine is for: server, desktop, laptop, vm or unknown (from DMI), or the --context given"},
	{"sys_vendor", TypeString, "", "platform", "DMI sys_vendor"},

	// pcie-link
	{"pcie_address", TypeString, "", "pcie-link", "PCI address of the disk's slowest controller link (of a multipath namespace's controllers, the one at the smallest fraction of its bandwidth)"},
	{"pcie_cur_gbs", TypeFloat, "GB/s", "pcie-link", "that link's bandwidth as trained: lanes times the lane rate less line encoding (8b/10b to 5 GT/s, 128b/130b above)"},
	{"pcie_cur_gts", TypeFloat, "GT/s", "pcie-link", "that link's current_link_speed"},
	{"pcie_cur_width", TypeInt, "lanes", "pcie-link", "that link's current_link_width"},
	{"pcie_degraded", TypeBool, "", "pcie-link", "that link trained below its maximum speed or width"},
	{"pcie_fraction", TypeFloat, "", "pcie-link", "that link's bandwidth as trained over its maximum (0 to 1)"},
	{"pcie_link", TypeString, "", "pcie-link", "that link as text: current speed and width of the maximum ones"},
	{"pcie_max_gbs", TypeFloat, "GB/s", "pcie-link", "that link's bandwidth at its maximum speed and width"},
	{"pcie_max_gts", TypeFloat, "GT/s", "pcie-link", "that link's max_link_speed"},
	{"pcie_max_width", TypeInt, "lanes", "pcie-link", "that link's max_link_width"},

	// scheduler
	{"scheduler", TypeString, "", "scheduler", "the disk's I/O scheduler (queue/scheduler, the bracketed one)"},
	{"schedulers_available", TypeStrings, "", "scheduler", "the I/O schedulers the kernel offers for the disk"},

	// inventory
	{"behind_raid_controller", TypeBool, "", "inventory", "a RAID controller driver (hpsa, smartpqi, megaraid_sas, aacraid) is above the disk"},
	{"by_id", TypeStrings, "", "inventory", "the disk's /dev/disk/by-id links"},
	{"controller_driver", TypeString, "", "inventory", "driver of the controller the disk hangs off"},
	{"dev_path", TypeString, "", "inventory", "the disk's /dev path"},
	{"drive_read_through", TypeString, "", "inventory", "the multipath path the drive's own state (SMART) is read through"},
	{"drivers", TypeStrings, "", "inventory", "the drivers bound along the disk's sysfs path, nearest first"},
	{"filesystems", TypeStrings, "", "inventory", "filesystem types on the disk and its partitions (udev, mounts)"},
	{"firmware", TypeString, "", "inventory", "firmware revision from udev ID_REVISION or sysfs rev/firmware_rev"},
	{"holders", TypeStrings, "", "inventory", "the devices stacked directly on the disk (holders/)"},
	{"hypervisor", TypeString, "", "inventory", "the hypervisor a guest's disk comes from (\"\" for a real disk)"},
	{"hypervisor_cache_setting", TypeString, "", "inventory", "where the hypervisor's disk cache is set, for a guest's disk"},
	{"in_use", TypeBool, "", "inventory", "the disk holds something: holders, a partition with a filesystem or holders, a filesystem signature, or a mount"},
	{"judged", TypeBool, "", "inventory", "the doctor judges the disk (a disk, or one named with --device): false for virtual block devices, NVMe per-path nodes and disks gone from sysfs"},
	{"model", TypeString, "", "inventory", "the disk's model (udev, sysfs)"},
	{"mountpoints", TypeStrings, "", "inventory", "where the disk and its partitions are mounted"},
	{"multipath_map", TypeString, "", "inventory", "the dm device of the multipath map the disk is a path of"},
	{"multipath_name", TypeString, "", "inventory", "the name (alias) of that multipath map"},
	{"multipath_paths", TypeStrings, "", "inventory", "every path of that multipath map"},
	{"nvme_controllers", TypeStrings, "", "inventory", "the NVMe controllers (nvmeN) that reach the namespace"},
	{"nvme_path", TypeBool, "", "inventory", "the disk is one path (nvmeXcYnZ) of a multipath NVMe namespace, not the namespace"},
	{"partitions", TypeStrings, "", "inventory", "each partition with its filesystem type and mountpoint"},
	{"removable", TypeBool, "", "inventory", "sysfs removable"},
	{"rotational", TypeBool, "", "inventory", "queue/rotational: a spinning disk"},
	{"scsi_address", TypeString, "", "inventory", "the SCSI host:channel:target:lun of the disk"},
	{"serial", TypeString, "", "inventory", "the disk's serial number (udev, sysfs)"},
	{"size_bytes", TypeUint64, "bytes", "inventory", "the disk's size"},
	{"sysfs_path", TypeString, "", "inventory", "the resolved /sys/block/<dev> path"},
	{"transport", TypeString, "", "inventory", "the bus: sata, sas, nvme, usb, virtio, mmc, scsi, raid, virtual or unknown"},
	{"udev_serial", TypeString, "", "inventory", "udev ID_SERIAL (what udev rules match on)"},
	{"vendor", TypeString, "", "inventory", "the disk's vendor (udev, sysfs)"},
	{"virtual", TypeBool, "", "inventory", "a virtual block device (loop, zram, ram, dm, md): inventoried, not judged unless named"},
	{"virtual_disk", TypeBool, "", "inventory", "a guest's disk: driver, vendor/model, path or DMI say a hypervisor provides it"},
	{"wwn", TypeString, "", "inventory", "the disk's World Wide Name"},
	{"zfs_pools", TypeStrings, "", "inventory", "ZFS pools whose members are on the disk (zfs_member labels)"},

	// controller
	{"controller_volume", TypeBool, "", "controller", "the disk is a logical drive of a RAID controller"},
	{"ctl_cache_present", TypeBool, "", "controller", "the controller has a cache module"},
	{"ctl_cache_reason", TypeString, "", "controller", "why the cache is in ctl_cache_state"},
	{"ctl_cache_size", TypeString, "", "controller", "the cache module's size as the tool prints it"},
	{"ctl_cache_state", TypeString, "", "controller", "the write cache's state: ok, write-through, degraded, disabled or unknown"},
	{"ctl_cache_status", TypeString, "", "controller", "the cache module's status as the tool prints it"},
	{"ctl_controller", TypeString, "", "controller", "the controller's id in its tool (slot=0, /c0, a0)"},
	{"ctl_controller_model", TypeString, "", "controller", "the controller's model"},
	{"ctl_controller_status", TypeString, "", "controller", "the controller's status as the tool prints it"},
	{"ctl_drive_cache", TypeBool, "", "controller", "the drives' own write caches are on (the volume's disk cache policy, else the controller's drive write cache setting)"},
	{"ctl_drive_models", TypeStrings, "", "controller", "the models of the drives behind the volume"},
	{"ctl_drives", TypeStrings, "", "controller", "the drives behind the volume, by their tool's id"},
	{"ctl_energy_pack", TypeString, "", "controller", "the cache's power-loss protection: battery, capacitor (as the tool names it) or none"},
	{"ctl_energy_state", TypeString, "", "controller", "the energy pack's state: ok, charging or failed"},
	{"ctl_energy_status", TypeString, "", "controller", "the energy pack's status as the tool prints it"},
	{"ctl_failing_drives", TypeStrings, "", "controller", "the volume's drives (or a controller's unassigned ones) failed, predicted to fail or with media errors, with why"},
	{"ctl_family", TypeString, "", "controller", "the tool family: smartarray (ssacli), storcli, megacli or arcconf"},
	{"ctl_has_os_volumes", TypeBool, "", "controller", "the OS sees at least one of the controller's volumes as a disk"},
	{"ctl_media", TypeString, "", "controller", "the media of the volume's drives: hdd, sata-ssd, sas-ssd, nvme or mixed"},
	{"ctl_nbwc", TypeBool, "", "controller", "write caching without a battery (No-Battery Write Cache) is on"},
	{"ctl_no_cache_by_design", TypeBool, "", "controller", "the volume goes without the controller's cache by design (no cache module, or HPE SSD Smart Path)"},
	{"ctl_no_write_cache", TypeBool, "", "controller", "writes to the volume are cached nowhere: the controller writes through (or gives writes none of its cache) and the drives' caches are off"},
	{"ctl_policy_configured", TypeString, "", "controller", "the volume's configured write policy"},
	{"ctl_policy_current", TypeString, "", "controller", "the volume's write policy in force"},
	{"ctl_raid", TypeString, "", "controller", "the volume's RAID level"},
	{"ctl_read_policy", TypeString, "", "controller", "the volume's read policy"},
	{"ctl_selector", TypeString, "", "controller", "the controller in its tool's syntax, for commands (ctrl slot=0, /c0, -a0, 1)"},
	{"ctl_tasks", TypeStrings, "", "controller", "background tasks running on the volume, its drives or the controller (rebuild, patrol read, consistency check), with progress"},
	{"ctl_tool", TypeString, "", "controller", "the tool the controller was read with (ssacli, storcli64, perccli, MegaCli64, …)"},
	{"ctl_unprotected", TypeStrings, "", "controller", "settings that cache writes without power-loss protection (no-battery write cache, always write-back)"},
	{"ctl_volume", TypeString, "", "controller", "the volume's id in its tool"},
	{"ctl_volume_count", TypeFloat, "", "controller", "volumes of the controller the OS sees as disks"},
	{"ctl_volume_degraded", TypeBool, "", "controller", "the volume's status is not a healthy one (OK, Optl, Optimal; arcconf's Impacted counts as healthy)"},
	{"ctl_volume_ref", TypeString, "", "controller", "the volume in its tool's syntax (/c0/v0, -L0, ld 1)"},
	{"ctl_volume_status", TypeString, "", "controller", "the volume's status as the tool prints it"},
	{"ctl_write_ratio", TypeFloat, "%", "controller", "share of the cache given to writes (the write half of the tool's read/write ratio)"},
	{"kind_controller", TypeBool, "", "controller", "the subject is a controller itself, not a volume"},

	// kernel-log
	{"klog_boot_only", TypeBool, "", "kernel-log", "every message about the disk was logged during boot"},
	{"klog_categories", TypeStrings, "", "kernel-log", "the kinds of message logged about the disk (io-error, timeout, link-reset, …)"},
	{"klog_critical_events", TypeInt, "", "kernel-log", "incidents about the disk of a critical kind"},
	{"klog_device_failed", TypeBool, "", "kernel-log", "the log says the device failed"},
	{"klog_events", TypeInt, "", "kernel-log", "incidents logged about the disk, each counted once however many layers logged it"},
	{"klog_fs_errors", TypeInt, "", "kernel-log", "filesystem error incidents on the disk"},
	{"klog_fs_readonly", TypeBool, "", "kernel-log", "a filesystem on the disk was remounted read-only"},
	{"klog_gone", TypeBool, "", "kernel-log", "the log names the disk and sysfs no longer lists it"},
	{"klog_gone_since", TypeString, "", "kernel-log", "when the gone disk was last logged (wall clock, or seconds after boot and how long ago)"},
	{"klog_hung_tasks", TypeInt, "", "kernel-log", "'task … blocked for more than N seconds' messages"},
	{"klog_io_errors", TypeInt, "", "kernel-log", "I/O error incidents about the disk"},
	{"klog_last_age_h", TypeFloat, "hours", "kernel-log", "age of the newest message about the disk"},
	{"klog_last_age_s", TypeFloat, "seconds", "kernel-log", "age of the newest message about the disk"},
	{"klog_link_downgraded", TypeBool, "", "kernel-log", "the disk's SATA link runs slower than it did: libata limited it after errors, or it last came up slower than before"},
	{"klog_link_errors", TypeInt, "", "kernel-log", "SATA link error incidents about the disk"},
	{"klog_link_gbps", TypeFloat, "Gb/s", "kernel-log", "the speed the disk's SATA link last came up at"},
	{"klog_medium_errors", TypeInt, "", "kernel-log", "medium error incidents about the disk"},
	{"klog_member_of", TypeStrings, "", "kernel-log", "arrays md says the gone disk was a member of (failed by md)"},
	{"klog_ncq_disabled", TypeBool, "", "kernel-log", "the kernel disabled NCQ on the disk"},
	{"klog_ports_disabled", TypeStrings, "", "kernel-log", "devices libata disabled (or SCSI took offline) that no disk is attributed to, with when"},
	{"klog_ports_recovered", TypeStrings, "", "kernel-log", "such devices that were configured again later"},
	{"klog_resets", TypeInt, "", "kernel-log", "link and controller reset incidents about the disk"},
	{"klog_summary", TypeString, "", "kernel-log", "the incidents about the disk counted by kind, as text"},
	{"klog_thermal_throttle", TypeInt, "", "kernel-log", "'temperature above threshold, cpu clock throttled' messages"},
	{"klog_timeouts", TypeInt, "", "kernel-log", "command timeout incidents about the disk"},
	{"uptime_s", TypeFloat, "seconds", "kernel-log", "time since boot (/proc/uptime)"},

	// link-power
	{"lpm_host", TypeString, "", "link-power", "the SCSI host of the disk's libata port"},
	{"lpm_policy", TypeString, "", "link-power", "that host's link_power_management_policy"},
	{"lpm_saving", TypeBool, "", "link-power", "the policy saves power (not max_performance, not keep_firmware_settings)"},

	// nvme-power
	{"aspm_cmdline", TypeString, "", "nvme-power", "pcie_aspm= on the kernel command line"},
	{"aspm_link_states", TypeStrings, "", "nvme-power", "ASPM link states enabled on the disk's controllers' links (l0s, l1, l1_1, …)"},
	{"aspm_policy", TypeString, "", "nvme-power", "the pcie_aspm module's policy (default, performance, powersave, powersupersave)"},
	{"aspm_policy_saves", TypeBool, "", "nvme-power", "that policy saves power"},
	{"nvme_pm_apst_allowed", TypeBool, "", "nvme-power", "a controller of the disk may enter APST low-power states (pm_qos_latency_tolerance_us not 0); false when every one is known not to"},
	{"nvme_pm_cmdline_latency", TypeString, "", "nvme-power", "nvme_core.default_ps_max_latency_us= on the kernel command line"},
	{"nvme_pm_controller", TypeString, "", "nvme-power", "the disk's controller the power facts name: one the log shows down, else the first"},
	{"nvme_pm_controller_down", TypeInt, "", "nvme-power", "'controller is down; will reset: CSTS=0xffffffff' messages for the disk's controllers"},
	{"nvme_pm_default_latency_us", TypeInt64, "µs", "nvme-power", "nvme_core's default_ps_max_latency_us"},
	{"nvme_pm_latency_us", TypeString, "", "nvme-power", "each controller's APST latency limit (pm_qos_latency_tolerance_us), joined"},
	{"nvme_pm_power_hint", TypeBool, "", "nvme-power", "the driver asked 'Does your device have a faulty power saving mode enabled?' for one of them"},

	// queue
	{"queue_ata_driver", TypeString, "", "queue", "the driver of the ATA disk's host controller (PCI function)"},
	{"queue_depth", TypeInt, "", "queue", "device/queue_depth"},
	{"queue_legacy_ide", TypeBool, "", "queue", "that driver runs the controller as legacy IDE (ata_piix, pata_*), not AHCI"},
	{"queue_max_hw_sectors_kb", TypeInt, "KiB", "queue", "queue/max_hw_sectors_kb: the largest request the hardware takes"},
	{"queue_max_sectors_kb", TypeInt, "KiB", "queue", "queue/max_sectors_kb: the largest request the kernel sends"},
	{"queue_max_sectors_suggested_kb", TypeInt, "KiB", "queue", "the block layer's default request cap, never above the hardware's"},
	{"queue_misaligned_numbers", TypeStrings, "", "queue", "the numbers of the partitions not aligned to the physical block"},
	{"queue_misaligned_partitions", TypeStrings, "", "queue", "the partitions whose start is not on a physical block"},
	{"queue_ncq_cause", TypeString, "", "queue", "why NCQ is off: errors, forced, quirk, controller, queue-depth (\"\" when on)"},
	{"queue_ncq_drive_depth", TypeInt, "", "queue", "the NCQ depth the drive offers (kernel log)"},
	{"queue_ncq_host_depth", TypeInt, "", "queue", "the NCQ depth the host offers (kernel log)"},
	{"queue_ncq_off", TypeBool, "", "queue", "NCQ is not in use on a drive that supports it (disabled after errors, forced off, a quirk, the controller, or a queue depth of 1)"},
	{"queue_ncq_supported", TypeBool, "", "queue", "the drive supports NCQ (the kernel log's configure line)"},
	{"queue_ncq_usable_depth", TypeInt, "", "queue", "the lower of the host's and the drive's NCQ depth"},
	{"queue_physical_block_size", TypeInt, "bytes", "queue", "queue/physical_block_size"},
	{"queue_sata", TypeBool, "", "queue", "the ATA disk is SATA (udev ID_ATA_SATA, or libata registered its port as SATA), not parallel ATA"},

	// md
	{"md_action", TypeString, "", "md", "the sync line's action: resync, recovery, check, repair or reshape (\"\" when idle)"},
	{"md_active", TypeInt64, "", "md", "active member devices"},
	{"md_array", TypeString, "", "md", "the array's name"},
	{"md_container", TypeBool, "", "md", "the array is an external-metadata container (imsm, ddf)"},
	{"md_container_arrays", TypeStrings, "", "md", "the arrays inside the container"},
	{"md_container_of", TypeString, "", "md", "the container the array is inside"},
	{"md_degraded", TypeBool, "", "md", "the array runs with fewer active members than raid disks"},
	{"md_disks", TypeInt64, "", "md", "raid disks the array should have"},
	{"md_failed_members", TypeStrings, "", "md", "members marked faulty (F)"},
	{"md_inactive", TypeBool, "", "md", "md assembled the members but does not run the array (not a container)"},
	{"md_last_sync_action", TypeString, "", "md", "md/last_sync_action"},
	{"md_level", TypeString, "", "md", "RAID level (raid1, raid5, …)"},
	{"md_member_devices", TypeStrings, "", "md", "the disks holding the members"},
	{"md_member_of", TypeStrings, "", "md", "the arrays the disk holds a member of (md0 (sda1 of raid1))"},
	{"md_member_rebuilding", TypeStrings, "", "md", "the disk's redundant arrays with a recovery, resync or reshape running"},
	{"md_member_redundant", TypeBool, "", "md", "the disk holds a member of a redundant array (raid1/4/5/6/10)"},
	{"md_members", TypeStrings, "", "md", "the member devices"},
	{"md_metadata", TypeString, "", "md", "the superblock format"},
	{"md_mismatch_cnt", TypeInt64, "sectors", "md", "md/mismatch_cnt after the last check or repair"},
	{"md_missing", TypeInt64, "", "md", "raid disks less active members"},
	{"md_no_redundancy", TypeBool, "", "md", "a degraded array has no redundancy left (raid1 on one member, raid4/5 one missing, raid6 two); nil for other levels"},
	{"md_read_only", TypeString, "", "md", "auto-read-only or read-only (\"\" when writable)"},
	{"md_spares", TypeStrings, "", "md", "spare members (S)"},
	{"md_state", TypeString, "", "md", "active, inactive, or what the array is doing (resyncing, recovering, checking, reshaping)"},
	{"md_sync_action", TypeString, "", "md", "md/sync_action"},
	{"md_sync_finish_min", TypeFloat, "minutes", "md", "mdstat's estimate of the running pass's end"},
	{"md_sync_percent", TypeFloat, "%", "md", "progress of the running pass"},
	{"md_sync_speed_mbs", TypeFloat, "MB/s", "md", "speed of the running pass"},
	{"md_sync_waiting", TypeString, "", "md", "pending or delayed when the sync has not started (resync=PENDING, resync=DELAYED)"},

	// lvm
	{"lvm_active", TypeBool, "", "lvm", "the thin pool is active"},
	{"lvm_attr", TypeString, "", "lvm", "lvs lv_attr"},
	{"lvm_data_percent", TypeFloat, "%", "lvm", "share of the pool's data space used"},
	{"lvm_health", TypeString, "", "lvm", "lv_attr's health character (\"-\" for none)"},
	{"lvm_lv", TypeString, "", "lvm", "the pool's logical volume name"},
	{"lvm_metadata_percent", TypeFloat, "%", "lvm", "share of the pool's metadata space used"},
	{"lvm_size_bytes", TypeFloat, "bytes", "lvm", "the pool's size"},
	{"lvm_thin_volumes", TypeStrings, "", "lvm", "the thin volumes in the pool"},
	{"lvm_vg", TypeString, "", "lvm", "the pool's volume group"},

	// multipath
	{"multipath_dm", TypeString, "", "multipath", "the map's dm device"},
	{"multipath_failed_paths", TypeStrings, "", "multipath", "paths failed by the kernel, faulty to the checker, or offline"},
	{"multipath_paths_active", TypeInt, "", "multipath", "paths active and ready"},
	{"multipath_paths_total", TypeInt, "", "multipath", "the map's paths"},
	{"multipath_reinstatable_paths", TypeStrings, "", "multipath", "failed paths the checker finds ready again"},
	{"multipath_wwid", TypeString, "", "multipath", "the map's WWID"},

	// filesystems
	{"fs_fullest_mount", TypeString, "", "filesystems", "mountpoint of the disk's fullest filesystem"},
	{"fs_nobarrier", TypeStrings, "", "filesystems", "writable filesystems on the disk mounted with nobarrier or barrier=0"},
	{"fs_online_discard", TypeStrings, "", "filesystems", "writable filesystems on the disk mounted with discard"},
	{"fs_space", TypeRecords, "", "filesystems", "each filesystem on the disk: mount, device, fstype, size, used and available bytes, use percent (df)"},
	{"fs_ssd_used_bytes", TypeUint64, "bytes", "filesystems", "bytes used by the filesystems on this disk alone"},
	{"fs_ssd_used_percent", TypeFloat, "%", "filesystems", "fs_ssd_used_bytes as a share of the disk's size"},
	{"fs_swap_zvols", TypeStrings, "", "filesystems", "swap areas on ZFS zvols"},
	{"fs_use_percent_max", TypeFloat, "%", "filesystems", "use of the disk's fullest filesystem"},

	// sample
	{"background_processes", TypeStrings, "", "sample", "storage-heavy tools (fstrim, backups, scrubs) that ran in the window"},
	{"sample_aqu_sz", TypeFloat, "", "sample", "average request queue length over the window (iostat aqu-sz)"},
	{"sample_r_await_ms", TypeFloat, "ms", "sample", "average read latency over the window"},
	{"sample_r_mbs", TypeFloat, "MB/s", "sample", "read throughput over the window"},
	{"sample_r_s", TypeFloat, "1/s", "sample", "reads completed per second over the window"},
	{"sample_rareq_kib", TypeFloat, "KiB", "sample", "average read request size over the window"},
	{"sample_seconds", TypeFloat, "seconds", "sample", "the sampling window's length"},
	{"sample_util_pct", TypeFloat, "%", "sample", "share of the window the disk was busy (iostat %util)"},
	{"sample_w_await_ms", TypeFloat, "ms", "sample", "average write latency over the window"},
	{"sample_w_mbs", TypeFloat, "MB/s", "sample", "write throughput over the window"},
	{"sample_w_s", TypeFloat, "1/s", "sample", "writes completed per second over the window"},
	{"sample_wareq_kib", TypeFloat, "KiB", "sample", "average write request size over the window"},
	{"summary", TypeWindow, "", "sample", "the whole window (the sample subject): every device's rates, top processes, pressure"},
	{"top_process", TypeString, "", "sample", "the process that did most I/O in the window, with its rates"},

	// smart
	{"dev_timeout_s", TypeInt, "seconds", "smart", "the SCSI command timer (device/timeout)"},
	{"smart_crc_errors", TypeUint64, "", "smart", "ATA attribute 199, UDMA CRC errors (raw)"},
	{"smart_critical", TypeStrings, "", "smart", "the drive's critical concerns, as text (health FAILED, failing pre-failure attribute, NVMe critical warning, spare below threshold)"},
	{"smart_exit_status", TypeInt, "", "smart", "smartctl's exit status (a bit mask, smartctl(8))"},
	{"smart_failing_attrs", TypeStrings, "", "smart", "ATA attributes at or below their threshold now"},
	{"smart_firmware", TypeString, "", "smart", "the firmware revision smartctl reports"},
	{"smart_link_cur_gbps", TypeFloat, "Gb/s", "smart", "the SATA link's current speed"},
	{"smart_link_max_gbps", TypeFloat, "Gb/s", "smart", "the SATA link's maximum speed"},
	{"smart_model", TypeString, "", "smart", "the model smartctl reports"},
	{"smart_model_family", TypeString, "", "smart", "smartctl's model_family (its drive database)"},
	{"smart_notes", TypeStrings, "", "smart", "smartctl's own messages"},
	{"smart_nvme_critical_temp_min", TypeUint64, "minutes", "smart", "NVMe critical composite temperature time"},
	{"smart_nvme_critical_warning", TypeInt, "", "smart", "NVMe critical_warning bits"},
	{"smart_nvme_error_log_entries", TypeUint64, "", "smart", "NVMe num_err_log_entries"},
	{"smart_nvme_media_errors", TypeUint64, "", "smart", "NVMe media_errors"},
	{"smart_nvme_spare", TypeInt, "%", "smart", "NVMe available_spare"},
	{"smart_nvme_spare_threshold", TypeInt, "%", "smart", "NVMe available_spare_threshold"},
	{"smart_nvme_unsafe_shutdowns", TypeUint64, "", "smart", "NVMe unsafe_shutdowns"},
	{"smart_nvme_warning_temp_min", TypeUint64, "minutes", "smart", "NVMe warning composite temperature time"},
	{"smart_nvme_warnings", TypeStrings, "", "smart", "the critical_warning bits set, by name"},
	{"smart_offline_uncorrectable", TypeUint64, "", "smart", "ATA attribute 198, offline uncorrectable sectors (raw)"},
	{"smart_passed", TypeBool, "", "smart", "the drive's overall health self-assessment passed"},
	{"smart_past_failing_attrs", TypeStrings, "", "smart", "ATA attributes that were at or below their threshold in the past"},
	{"smart_pending", TypeUint64, "", "smart", "ATA attribute 197, current pending sectors (raw)"},
	{"smart_pending_only", TypeBool, "", "smart", "pending sectors are the drive's only concern"},
	{"smart_power_on_hours", TypeUint64, "hours", "smart", "power-on time"},
	{"smart_protocol", TypeString, "", "smart", "ATA, NVMe or SCSI"},
	{"smart_reallocated", TypeUint64, "", "smart", "ATA attribute 5, reallocated sectors (raw)"},
	{"smart_reallocated_events", TypeUint64, "", "smart", "ATA attribute 196, reallocation events (raw)"},
	{"smart_reported_uncorrectable", TypeUint64, "", "smart", "ATA attribute 187, reported uncorrectable errors (raw)"},
	{"smart_scsi_grown_defects", TypeUint64, "", "smart", "SCSI grown defect list length"},
	{"smart_scsi_uncorrected", TypeUint64, "", "smart", "SCSI uncorrected read, write and verify errors added up"},
	{"smart_scterc_read_ds", TypeInt, "deciseconds", "smart", "SCT error recovery control read limit"},
	{"smart_scterc_state", TypeString, "", "smart", "SCT error recovery control: enabled, disabled or unsupported"},
	{"smart_scterc_write_ds", TypeInt, "deciseconds", "smart", "SCT error recovery control write limit"},
	{"smart_smr", TypeBool, "", "smart", "smartctl's drive database marks the family drive-managed SMR"},
	{"smart_standby", TypeString, "", "smart", "the power mode the drive was left in, not woken (STANDBY, SLEEP)"},
	{"smart_temp_c", TypeInt, "°C", "smart", "the drive's temperature"},
	{"smart_temp_crit_c", TypeInt, "°C", "smart", "the drive's critical temperature threshold"},
	{"smart_temp_warn_c", TypeInt, "°C", "smart", "the drive's warning temperature threshold"},
	{"smart_trim_supported", TypeBool, "", "smart", "the drive says it supports TRIM"},
	{"smart_warnings", TypeStrings, "", "smart", "the drive's lesser concerns, as text (reallocated or pending sectors, media errors, grown defects, endurance 90 % used)"},
	{"smart_wear_used_pct", TypeInt, "%", "smart", "endurance used: the higher of the ATA wear attribute and NVMe percentage_used"},
	{"smart_write_cache_enabled", TypeBool, "", "smart", "the drive's write cache is on (ATA IDENTIFY, SCSI caching page)"},

	// stack
	{"controller_kind", TypeString, "", "stack", "what the disk's controller is: raid (a RAID driver), hba (mpt3sas, isci, …), direct (any other driver), \"\" unknown"},
	{"dm_crypt", TypeBool, "", "stack", "a dm-crypt device is stacked on the disk"},
	{"lvm", TypeBool, "", "stack", "an LVM logical volume is stacked on the disk"},
	{"md_stacked", TypeBool, "", "stack", "an md array is stacked on the disk"},
	{"mem_total_bytes", TypeFloat, "bytes", "stack", "MemTotal of /proc/meminfo"},
	{"pagecache_filesystems", TypeStrings, "", "stack", "mounted filesystems that write through the page cache"},
	{"raid_controller_driver", TypeString, "", "stack", "the RAID controller driver above the disk (\"\" when none)"},
	{"stack_layers", TypeStrings, "", "stack", "each chain of devices stacked on the disk, from a partition up to its top and mounts (sda1 → dm-0 (crypt) → /home ext4)"},
	{"vm_dirty_background_bytes", TypeFloat, "bytes", "stack", "/proc/sys/vm/dirty_background_bytes"},
	{"vm_dirty_background_ratio", TypeFloat, "%", "stack", "/proc/sys/vm/dirty_background_ratio"},
	{"vm_dirty_bytes", TypeFloat, "bytes", "stack", "/proc/sys/vm/dirty_bytes"},
	{"vm_dirty_limit_gib", TypeFloat, "GiB", "stack", "dirty data the page cache may hold before writers block (dirty_bytes, else dirty_ratio of memory)"},
	{"vm_dirty_ratio", TypeFloat, "%", "stack", "/proc/sys/vm/dirty_ratio"},

	// trim
	{"discard_granularity", TypeUint64, "bytes", "trim", "queue/discard_granularity"},
	{"trim_blocked_by", TypeStrings, "", "trim", "dm or md devices stacked on the disk whose discard_max_bytes is 0 (they pass no discard)"},
	{"trim_covered", TypeBool, "", "trim", "everything on the disk that wants trimming is trimmed on a schedule, by mount option or autotrim"},
	{"trim_regimes", TypeStrings, "", "trim", "what trims each of the disk's filesystems and pools (fstrim.timer, cron fstrim, discard option, autotrim)"},
	{"trim_relevant", TypeBool, "", "trim", "the disk holds mounted filesystems or ZFS pools"},
	{"trim_supported", TypeBool, "", "trim", "the disk accepts discards (queue/discard_max_bytes above 0)"},
	{"trim_uncovered", TypeStrings, "", "trim", "filesystems and pools on the disk that nothing trims"},

	// write-cache
	{"ata", TypeBool, "", "write-cache", "the disk speaks ATA (hdparm applies)"},
	{"wc_boot_disabled", TypeBool, "", "write-cache", "the kernel log says the write cache was off when the disk was attached"},
	{"wc_boot_enabled", TypeBool, "", "write-cache", "the kernel log's attach line for the disk says 'Write cache: enabled' (false: disabled)"},
	{"wc_drive_enabled", TypeBool, "", "write-cache", "the drive's own write cache is on (hdparm -W, IDENTIFY, nvme get-feature 0x06)"},
	{"wc_drive_supported", TypeBool, "", "write-cache", "the drive has a write cache it can switch"},
	{"wc_kernel_on", TypeBool, "", "write-cache", "queue/write_cache is write back"},
	{"wc_kernel_only_rules", TypeStrings, "", "write-cache", "udev rules matching the disk that set only queue/write_cache (the kernel's belief), not the drive's cache"},
	{"wc_no_cache_page", TypeBool, "", "write-cache", "the kernel log says 'No Caching mode page found' for the disk"},
	{"wc_nvme_vwc", TypeBool, "", "write-cache", "the NVMe controller has a volatile write cache (the kernel's view)"},
	{"wc_on", TypeBool, "", "write-cache", "the write cache is on: the drive's own state, else the kernel's"},
	{"wc_own_rule_covers", TypeBool, "", "write-cache", "a line of the doctor's own udev rules file turns the disk's write cache on at boot"},
	{"wc_own_rule_serials", TypeStrings, "", "write-cache", "ID_SERIAL of every disk the doctor's own udev rules file covers (kept when the file is rewritten)"},
	{"wc_persistence", TypeStrings, "", "write-cache", "configuration lines (file:line) that turn the disk's write cache on at boot"},
	{"wc_persistence_verdict", TypeString, "", "write-cache", "what re-enables the write cache at boot, as a sentence"},
	{"wc_persistent", TypeBool, "", "write-cache", "something re-enables the write cache at boot"},
	{"wc_scsi_cache_type", TypeString, "", "write-cache", "the SCSI disk's scsi_disk cache_type"},
	{"wc_supported", TypeBool, "", "write-cache", "the disk has a write cache (drive, udev or kernel)"},
	{"wc_udev_enabled", TypeBool, "", "write-cache", "udev ID_ATA_WRITE_CACHE_ENABLED"},
	{"wc_udev_supported", TypeBool, "", "write-cache", "udev ID_ATA_WRITE_CACHE"},

	// zfs
	{"zfs_above_device_write", TypeString, "", "zfs", "write latency spent above the disk (total less disk wait), as text"},
	{"zfs_above_device_write_us", TypeFloat, "µs", "zfs", "write latency spent above the disk (total less disk wait)"},
	{"zfs_allocated_bytes", TypeFloat, "bytes", "zfs", "the pool's allocated space (zpool list)"},
	{"zfs_arc_max_bytes", TypeFloat, "bytes", "zfs", "the ARC's ceiling (arcstats c_max, else zfs_arc_max)"},
	{"zfs_autotrim", TypeString, "", "zfs", "the pool's autotrim property"},
	{"zfs_background", TypeStrings, "", "zfs", "the pool's background work in progress: a scrub or resilver, trims"},
	{"zfs_block_size_configured", TypeFloat, "bytes", "zfs", "the member's configured block size (ashift)"},
	{"zfs_block_size_native", TypeFloat, "bytes", "zfs", "the member's native block size"},
	{"zfs_capacity_percent", TypeFloat, "%", "zfs", "the pool's capacity used"},
	{"zfs_class_devices", TypeStrings, "", "zfs", "disks of the same pool and vdev class as the member"},
	{"zfs_class_member_count", TypeInt, "", "zfs", "how many those are"},
	{"zfs_data_errors", TypeInt, "", "zfs", "files with permanent errors (errors:)"},
	{"zfs_data_redundant", TypeBool, "", "zfs", "every data vdev of the pool is redundant"},
	{"zfs_ddt_arc_percent", TypeFloat, "%", "zfs", "the dedup table's in-core size as a share of the ARC's ceiling"},
	{"zfs_ddt_entries", TypeFloat, "", "zfs", "dedup table entries"},
	{"zfs_ddt_in_core_bytes", TypeFloat, "bytes", "zfs", "the dedup table's in-core size"},
	{"zfs_ddt_on_disk_bytes", TypeFloat, "bytes", "zfs", "the dedup table's on-disk size"},
	{"zfs_ddt_ram_percent", TypeFloat, "%", "zfs", "the dedup table's in-core size as a share of memory"},
	{"zfs_disk_wait_read", TypeString, "", "zfs", "the member's read disk wait, as text"},
	{"zfs_disk_wait_read_us", TypeFloat, "µs", "zfs", "read disk wait (zpool iostat -vl)"},
	{"zfs_disk_wait_write", TypeString, "", "zfs", "the member's write disk wait, as text"},
	{"zfs_disk_wait_write_us", TypeFloat, "µs", "zfs", "write disk wait (zpool iostat -vl)"},
	{"zfs_effective_write", TypeString, "", "zfs", "the member's time per write, as text"},
	{"zfs_effective_write_us", TypeFloat, "µs", "zfs", "the member's time per write: its write disk wait, or the time between completions when requests queue inside it, whichever is less"},
	{"zfs_fragmentation_percent", TypeFloat, "%", "zfs", "the pool's free-space fragmentation"},
	{"zfs_free_bytes", TypeFloat, "bytes", "zfs", "the pool's free space"},
	{"zfs_hung_commands", TypeStrings, "", "zfs", "zpool and zfs commands that did not finish"},
	{"zfs_immediate_write_sz", TypeFloat, "bytes", "zfs", "the zfs_immediate_write_sz module parameter"},
	{"zfs_log_devices", TypeStrings, "", "zfs", "the pool's log (SLOG) disks"},
	{"zfs_log_media", TypeString, "", "zfs", "media of the disk holding the pool's log vdev: nvme, ssd or hdd"},
	{"zfs_log_slower_than_data", TypeBool, "", "zfs", "the log disk is slower media than every data disk of its pool"},
	{"zfs_logbias_throughput_datasets", TypeStrings, "", "zfs", "datasets with logbias=throughput"},
	{"zfs_max_recordsize", TypeFloat, "bytes", "zfs", "the largest recordsize among the pool's datasets"},
	{"zfs_mem_total_bytes", TypeFloat, "bytes", "zfs", "MemTotal the dedup table's share of memory was taken of"},
	{"zfs_member_devices", TypeStrings, "", "zfs", "the pool's member disks"},
	{"zfs_member_name", TypeString, "", "zfs", "the member's name in zpool status"},
	{"zfs_member_of", TypeString, "", "zfs", "the pool of the disk's slowest member (a disk may hold several)"},
	{"zfs_nonnative_block_members", TypeStrings, "", "zfs", "members whose configured block size is below their native one"},
	{"zfs_nonnative_block_size", TypeBool, "", "zfs", "the pool has such members"},
	{"zfs_nonredundant_alloc_devices", TypeStrings, "", "zfs", "disks of special or dedup vdevs that are a single disk"},
	{"zfs_nonredundant_alloc_vdevs", TypeStrings, "", "zfs", "special or dedup vdevs that are a single disk"},
	{"zfs_peer_count", TypeInt, "", "zfs", "peers (same pool and class) with a write sample"},
	{"zfs_peer_disk_wait_read", TypeString, "", "zfs", "median read disk wait of the member's peers, as text"},
	{"zfs_peer_disk_wait_write", TypeString, "", "zfs", "median write disk wait of the member's peers, as text"},
	{"zfs_peer_disk_wait_write_us", TypeFloat, "µs", "zfs", "median write disk wait of the member's peers"},
	{"zfs_pool", TypeString, "", "zfs", "the pool's name"},
	{"zfs_pool_data_disks_media", TypeStrings, "", "zfs", "each data disk of the pool with its media"},
	{"zfs_pool_data_media", TypeString, "", "zfs", "the slowest media among the pool's data disks (nvme, ssd, hdd)"},
	{"zfs_pool_devices", TypeStrings, "", "zfs", "every disk of the member's pool"},
	{"zfs_pool_member_count", TypeInt, "", "zfs", "how many those are"},
	{"zfs_pool_resilvering", TypeBool, "", "zfs", "the member's pool has a resilver or rebuild in progress"},
	{"zfs_read_iops", TypeFloat, "1/s", "zfs", "the member's read operations per second (zpool iostat)"},
	{"zfs_roles", TypeStrings, "", "zfs", "each pool, vdev class and top-level vdev the disk is a member of"},
	{"zfs_scan_function", TypeString, "", "zfs", "the pool's last or running scan: scrub or resilver"},
	{"zfs_scan_in_progress", TypeBool, "", "zfs", "a scan is running"},
	{"zfs_scan_percent", TypeFloat, "%", "zfs", "progress of the running scan"},
	{"zfs_size_bytes", TypeFloat, "bytes", "zfs", "the pool's size"},
	{"zfs_slow_read_vs_peers", TypeBool, "", "zfs", "the member's read disk wait is at least 4 times its peers' median and 0.5 ms more, over at least 10 reads/s"},
	{"zfs_slow_vs_peers", TypeBool, "", "zfs", "the member's write disk wait is at least 4 times its peers' median and 0.5 ms more, over at least 10 writes/s"},
	{"zfs_state", TypeString, "", "zfs", "the pool's state (ONLINE, DEGRADED, …)"},
	{"zfs_status", TypeString, "", "zfs", "zpool status's status: text"},
	{"zfs_sync_always_datasets", TypeStrings, "", "zfs", "datasets with sync=always"},
	{"zfs_sync_disabled_datasets", TypeStrings, "", "zfs", "datasets with sync=disabled"},
	{"zfs_sync_disabled_roots", TypeStrings, "", "zfs", "the topmost of those (the ones to change)"},
	{"zfs_total_wait_read_us", TypeFloat, "µs", "zfs", "total read wait (zpool iostat -vl)"},
	{"zfs_total_wait_write", TypeString, "", "zfs", "the member's total write wait, as text"},
	{"zfs_total_wait_write_us", TypeFloat, "µs", "zfs", "total write wait (zpool iostat -vl)"},
	{"zfs_trim_active", TypeBool, "", "zfs", "a vdev of the pool is being trimmed"},
	{"zfs_trim_percent", TypeFloat, "%", "zfs", "progress of the least advanced trim"},
	{"zfs_trim_state", TypeString, "", "zfs", "the member's trim state in zpool status -t"},
	{"zfs_unresolved_members", TypeStrings, "", "zfs", "leaf vdevs zpool status names that match no disk"},
	{"zfs_vdev", TypeString, "", "zfs", "the member's top-level vdev"},
	{"zfs_vdev_class", TypeString, "", "zfs", "that vdev's class: data, logs, cache, special, dedup"},
	{"zfs_vdev_errors", TypeStrings, "", "zfs", "leaf vdevs with read, write or checksum errors"},
	{"zfs_vdev_problems", TypeStrings, "", "zfs", "leaf vdevs not ONLINE, AVAIL or INUSE, with their state"},
	{"zfs_vdev_redundant", TypeBool, "", "zfs", "the member's top-level vdev is a mirror, raidz or draid"},
	{"zfs_vdev_state", TypeString, "", "zfs", "the member's state"},
	{"zfs_write_iops", TypeFloat, "1/s", "zfs", "the member's write operations per second"},
	{"zfs_write_mbs", TypeFloat, "MB/s", "zfs", "the member's write throughput"},
	{"zfs_write_size_bytes", TypeFloat, "bytes", "zfs", "the member's average write size"},
	{"zfs_write_size_kib", TypeFloat, "KiB", "zfs", "the member's average write size"},

	// engine
	{"class", TypeString, "", SetByEngine, "the device's datasheet class (nvme-gen4, sata-ssd, hdd, virtual, …)"},
	{"ctl_drives_plp", TypeBool, "", SetByEngine, "every drive behind the volume protects its cache against power loss (their datasheets)"},
	{"ctl_ds_cache_mb", TypeFloat, "MB", SetByEngine, "the controller datasheet's cache size"},
	{"ctl_ds_energy_pack", TypeString, "", SetByEngine, "the controller datasheet's energy pack"},
	{"ctl_ds_product", TypeString, "", SetByEngine, "the controller datasheet's product"},
	{"ctl_ds_source", TypeString, "", SetByEngine, "the controller datasheet's source"},
	{"fw_advisory", TypeString, "", SetByEngine, "title of the vendor advisory about the drive's model and firmware"},
	{"fw_advisory_bug", TypeString, "", SetByEngine, "the advisory's bug"},
	{"fw_advisory_severity", TypeString, "", SetByEngine, "the advisory's severity"},
	{"fw_advisory_source", TypeString, "", SetByEngine, "the advisory's source"},
	{"fw_current", TypeString, "", SetByEngine, "the drive's firmware: smart_firmware, else firmware"},
	{"fw_fixed_version", TypeString, "", SetByEngine, "the first firmware the vendor says fixes the bug"},
	{"fw_quirks", TypeStrings, "", SetByEngine, "quirks of every firmware entry about the drive"},
	{"fw_update_tool", TypeString, "", SetByEngine, "the vendor's firmware update tool"},
})
