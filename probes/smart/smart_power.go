package smart

import "fmt"

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
