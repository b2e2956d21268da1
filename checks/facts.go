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

// Kinds are the kinds of subject a fact is set on.
type Kinds uint8

// The kinds of subject (KindDevice, …) as Kinds.
const (
	OnDevice Kinds = 1 << iota
	OnHost
	OnPool
	OnController
	OnSample
	OnFilesystem
)

var kindNames = []string{KindDevice, KindHost, KindPool, KindController, KindSample, KindFilesystem}

// Has says whether kind (KindDevice, …) is one of k.
func (k Kinds) Has(kind string) bool {
	i := slices.Index(kindNames, kind)
	return i >= 0 && k&(1<<i) != 0
}

func (k Kinds) String() string {
	var out []string
	for i, n := range kindNames {
		if k&(1<<i) != 0 {
			out = append(out, n)
		}
	}
	return strings.Join(out, ", ")
}

// FactDecl declares one fact: its name, the type of its value, its unit
// where one applies, the subjects it is set on, the one check that sets
// it, and what it means.
type FactDecl struct {
	Name    string
	Type    FactType
	Unit    string // bytes, seconds, %, MB/s, …; "" for none
	On      Kinds
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
	FactCtlFamily            = "ctl_family"
	FactHBAChip              = "hba_chip"
	FactHBAFWVersion         = "hba_fw_version"
	FactHBAName              = "hba_name"
	FactKlogGone             = "klog_gone"
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
	FactTrimRelevant         = "trim_relevant"
	FactZFSTrimState         = "zfs_trim_state"
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
