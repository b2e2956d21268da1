package checks

import (
	"regexp"

	"github.com/diskdoctor/diskdoctor/probes/system"
)

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
	// The SMBIOS System Enclosure type (DMTF DSP0134, "System Enclosure or
	// Chassis Types"), /sys/class/dmi/id/chassis_type.
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
