// Package raidctl reads hardware RAID controllers through their vendors'
// command-line tools: HPE Smart Array (ssacli, hpssacli, hpacucli: "ctrl
// all show config detail"), Broadcom MegaRAID and Dell PERC (storcli and
// perccli JSON: "/call show all J", "/call/vall show all J",
// "/call/eall/sall show all J"), the older MegaCli (-LDInfo,
// -AdpBbuCmd -GetBbuStatus, -PDList) and Microchip Adaptec (arcconf
// "GETCONFIG 1 AL"). Each parser turns one tool's output
// into the same model: controllers with their cache and energy pack,
// logical drives with their policies and OS device, physical drives with
// their state and error counts, and background tasks. Every field keeps
// the line (or JSON key) it was read from, for evidence.
package raidctl

// Line is where a value was read: the 1-based line of a text output (0
// for JSON) and the raw text ("Cache Status: OK", or "key: value" of a
// JSON member).
type Line struct {
	N    int
	Text string
}

// Value is one field as the tool printed it, with where it came from. An
// empty Value (Set false) is a field the tool did not print.
type Value struct {
	Text string
	Line Line
	Set  bool
}

// Inventory is what one tool reported: the program that answered and its
// controllers. Cmds are the argv that produced it, in the order they ran.
type Inventory struct {
	Tool        string // ssacli, storcli64, perccli, MegaCli64, ...
	Family      string // FamilySmartArray, FamilyStorcli, FamilyMegaCli or FamilyArcconf
	Cmds        [][]string
	Controllers []*Controller
	// Found is how many controllers the tool says there are, where it
	// says so and reads one at a time (arcconf "Controllers found: 2").
	Found Value
}

// Tool families.
const (
	FamilySmartArray = "smartarray"
	FamilyStorcli    = "storcli"
	FamilyMegaCli    = "megacli"
	FamilyArcconf    = "arcconf"
)

// Controller is one RAID controller.
type Controller struct {
	// ID names the controller as its tool addresses it: "slot=0"
	// (ssacli), "/c0" (storcli, perccli), "a0" (MegaCli), "1" (arcconf).
	ID       string
	Model    Value
	Serial   Value
	Firmware Value
	Slot     Value
	Status   Value // "OK", "Optimal", ...

	CacheBoardPresent Value // "True"/"False" (ssacli), "Present"/"Absent"
	CacheSize         Value // as printed: "2.0 GB", "512MB", "0.2"
	CacheStatus       Value // "OK", "Temporarily Disabled", "Permanently Disabled", "Not Configured"
	CacheStatusDetail Value // "Cache disabled; low batteries."
	CacheRatio        Value // "10% Read / 90% Write"
	NoBatteryWrite    Value // ssacli "No-Battery Write Cache: Enabled"; storcli "Cache When BBU Bad: On"
	DriveWriteCache   Value // ssacli "Drive Write Cache" or "Configured Drive Write Cache Policy"

	// EnergyPack is the cache's backup power: BBU or CacheVault on
	// MegaRAID, batteries or capacitors on Smart Array.
	EnergyPack EnergyPack

	Volumes []*Volume
	Drives  []*Drive // every physical drive, assigned or not
	Tasks   []Task   // controller-wide background work (surface scan, patrol read)
}

// EnergyPack is a controller's battery or capacitor.
type EnergyPack struct {
	Kind    string // "battery", "capacitor", "" unknown
	Present Value  // "Present"/"Absent", "Yes"/"No", Battery/Capacitor Count
	Status  Value  // "OK", "Optimal", "Failed (Replace Batteries)", "Recharging", "Learning", ...
	Charge  Value  // "Relative State of Charge: 98 %"
	// Details are further lines that explain Status (MegaCli's "Learn
	// Cycle Active: Yes", "Battery Replacement required: Yes").
	Details []Value
}

// Volume is one logical (virtual) drive.
type Volume struct {
	ID              string // "1" (ssacli logical drive), "v0" (storcli), "0" (MegaCli target id)
	RAID            Value
	Status          Value // "OK", "Optl", "Interim Recovery Mode", "Dgrd", ...
	Size            Value
	ConfiguredWrite Value // "WriteBack", "WriteThrough", "Always WriteBack"
	CurrentWrite    Value
	ReadPolicy      Value
	DiskCache       Value // "Disabled", "Enabled", "Disk's Default"
	Caching         Value // ssacli "Caching: Enabled"
	Acceleration    Value // ssacli "LD Acceleration Method: Controller Cache" / "SSD Smart Path"
	CacheBadBBU     Value // MegaCli "Write Cache OK if Bad BBU" in the current policy
	OSName          Value // "/dev/sda", "/dev/cciss/c0d0"
	WWN             Value // ssacli "Unique Identifier", storcli "SCSI NAA Id"
	TargetID        Value // MegaCli "Target Id", storcli VD number: the SCSI target of the volume
	Drives          []string
	Tasks           []Task
}

// Drive is one physical drive behind the controller.
type Drive struct {
	ID          string // "1I:1:1" (port:box:bay), "252:0" (enclosure:slot)
	Model       Value
	Serial      Value
	WWN         Value
	Status      Value // "OK", "Failed", "Predictive Failure", "Onln", "UBad", "Online, Spun Up"
	Media       Value // "HDD", "SSD", "SATA HDD", "Solid State SATA"
	Interface   Value // "SATA", "SAS"
	MediaErrors Value
	OtherErrors Value
	Predictive  Value // predictive failure count or flag
	DeviceID    Value // storcli DID / MegaCli "Device Id": the N of smartctl -d megaraid,N
	Volume      string
}

// Task is background work in progress.
type Task struct {
	Kind     string // TaskRebuild, ...
	Progress Value  // "45%" when printed
	Line     Line
}

// Kinds of background task.
const (
	TaskRebuild          = "rebuild"
	TaskPatrolRead       = "patrol-read"
	TaskConsistencyCheck = "consistency-check"
	TaskSurfaceScan      = "surface-scan"
	TaskExpansion        = "expansion"
	TaskInitialization   = "initialization"
)
