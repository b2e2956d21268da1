package scsihost

import (
	"context"
	"fmt"
	"regexp"
	"strings"

	"github.com/diskdoctor/diskdoctor/machine"
)

// The policies the kernel accepts and shows, by their names in
// ata_lpm_policy_names (drivers/ata/libata-sata.c); the file holds exactly
// one of them.
const (
	KeepFirmware        = "keep_firmware_settings" // ATA_LPM_UNKNOWN: libata leaves the link as firmware set it
	MaxPerformance      = "max_performance"        // ATA_LPM_MAX_POWER: no link power saving
	MediumPower         = "medium_power"           // ATA_LPM_MED_POWER: host-initiated Partial
	MedPowerWithDIPM    = "med_power_with_dipm"    // ATA_LPM_MED_POWER_WITH_DIPM: Partial plus device-initiated (DIPM)
	MinPowerWithPartial = "min_power_with_partial" // ATA_LPM_MIN_POWER_WITH_PARTIAL: Slumber and Partial, DIPM
	MinPower            = "min_power"              // ATA_LPM_MIN_POWER: Slumber (and DevSleep where supported), DIPM
)

// Saving reports whether a policy lets the link leave the active state
// (Partial, Slumber, DevSleep), and ok false for a value that is not one
// of the kernel's names: then nothing is known. keep_firmware_settings is
// not known to save either: the firmware's choice cannot be read here.
func Saving(policy string) (saving, ok bool) {
	switch policy {
	case MaxPerformance, KeepFirmware:
		return false, true
	case MediumPower, MedPowerWithDIPM, MinPowerWithPartial, MinPower:
		return true, true
	}
	return false, false
}

// hostDir is a SCSI host's directory in a device path: libata registers
// one Scsi_Host per port, hostM under ataN (ata_scsi_add_hosts,
// drivers/ata/libata-scsi.c), so a SATA disk resolves to
// …/ataN/hostM/targetM:0:0/M:0:0:0/block/sdX.
var hostDir = regexp.MustCompile(`^host\d+$`)

// HostOf returns the SCSI host (host3) in a disk's resolved sysfs path,
// "" when the path holds none. The component nearest the disk counts: a
// host further up would be another adapter's.
func HostOf(sysPath string) string {
	parts := strings.Split(sysPath, "/")
	for i := len(parts) - 1; i >= 0; i-- {
		if hostDir.MatchString(parts[i]) {
			return parts[i]
		}
	}
	return ""
}

// PolicyPath is the file that holds a host's policy.
func PolicyPath(host string) string {
	return "/sys/class/scsi_host/" + host + "/link_power_management_policy"
}

// ReadPolicy reads a host's policy. The file is absent on hosts whose
// driver does not offer LPM (an error wrapping fs.ErrNotExist).
func ReadPolicy(ctx context.Context, h *machine.Host, host string) (string, error) {
	if !hostDir.MatchString(host) {
		return "", fmt.Errorf("scsihost: %q is not a SCSI host name", host)
	}
	return h.ReadString(ctx, PolicyPath(host))
}
