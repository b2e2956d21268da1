package smart

import (
	"fmt"

	"github.com/diskdoctor/diskdoctor/machine"
)

// ATA CHECK POWER MODE (ACS-3 7.3, command E5h) answers in its COUNT
// register without changing the power state: the one question that may be
// asked of a sleeping disk before anything that would spin it up.
const ataCheckPowerMode = 0xe5

// ataPowerMode names the COUNT value of CHECK POWER MODE (ACS-4 table 76):
// 00h standby, 01h Standby_y, 40h/41h NV cache power modes (spun down),
// 80h idle, 81h–83h Idle_a/b/c, FFh active or idle.
func ataPowerMode(count byte) (mode string, asleep bool) {
	switch count {
	case 0x00:
		return "STANDBY", true
	case 0x01:
		return "STANDBY_Y", true
	case 0x40, 0x41:
		return "STANDBY", true
	case 0x80:
		return "IDLE", false
	case 0x81:
		return "IDLE_A", false
	case 0x82:
		return "IDLE_B", false
	case 0x83:
		return "IDLE_C", false
	case 0xff:
		return "ACTIVE or IDLE", false
	}
	return fmt.Sprintf("unknown (COUNT %#02x)", count), false
}

// ataReturnCount takes the COUNT register out of the sense data an ATA
// PASS-THROUGH with CK_COND=1 returns (SAT-4 12.2.2.6): the ATA Status
// Return descriptor (code 09h) of descriptor-format sense (72h), or the
// information field of fixed-format sense (70h), whose fourth byte is
// COUNT(7:0).
func ataReturnCount(sense []byte) (byte, bool) {
	if len(sense) < 8 {
		return 0, false
	}
	switch sense[0] & 0x7f {
	case 0x72, 0x73:
		addl := int(sense[7])
		for i := 8; i+1 < len(sense) && i < 8+addl; {
			code, n := sense[i], int(sense[i+1])
			if code == 0x09 && i+5 < len(sense) && n >= 12 {
				return sense[i+5], true
			}
			i += 2 + n
		}
	case 0x70, 0x71:
		if len(sense) >= 7 {
			return sense[6], true
		}
	}
	return 0, false
}

// ataPassThr16 is ATA PASS-THROUGH (16), SAT-4 12.2.2.
const ataPassThr16 = 0x85

// ataCheckPower sends CHECK POWER MODE as an ATA PASS-THROUGH (16) with
// CK_COND set, so the drive's registers come back in the sense data.
// Non-data, read-only: it neither wakes the drive nor changes a setting.
func ataCheckPower(h *machine.Host, path string) (mode string, asleep bool, err error) {
	cdb := [16]byte{ataPassThr16, 3 << 1, 0x20} // protocol 3 (non-data), CK_COND
	cdb[14] = ataCheckPowerMode
	res, err := h.LiveSGNoData(path, cdb[:])
	if err != nil {
		return "", false, err
	}
	count, ok := ataReturnCount(res.Sense)
	if !ok {
		return "", false, fmt.Errorf("CHECK POWER MODE: no ATA status in the sense data (status %#x, host %#x, driver %#x)", res.Status, res.HostStatus, res.DriverStatus)
	}
	mode, asleep = ataPowerMode(count)
	return mode, asleep, nil
}
