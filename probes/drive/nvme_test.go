package drive

import (
	"testing"

	"github.com/diskdoctor/diskdoctor/machine"
)

func TestParseNVMeGetFeatureVWC(t *testing.T) {
	on, err := ParseNVMeGetFeatureVWC(machine.CmdResult{Argv: []string{"nvme"}, Stdout: []byte("get-feature:0x06 (Volatile Write Cache), Current value:0x00000001\n")})
	if err != nil || !*on.Enabled || !*on.Supported {
		t.Errorf("on: %+v %v", on, err)
	}
	off, err := ParseNVMeGetFeatureVWC(machine.CmdResult{Argv: []string{"nvme"}, Stdout: []byte("get-feature:0x6 (Volatile Write Cache), Current value:0x000000\n")})
	if err != nil || *off.Enabled || !*off.Supported {
		t.Errorf("off: %+v %v", off, err)
	}
	none, err := ParseNVMeGetFeatureVWC(machine.CmdResult{Argv: []string{"nvme"}, Exit: 2, Stderr: []byte("NVMe status: INVALID_FIELD: A reserved coded value or an unsupported value in a defined field(0x2)\n")})
	if err != nil || *none.Supported {
		t.Errorf("absent: %+v %v", none, err)
	}
	if _, err := ParseNVMeGetFeatureVWC(machine.CmdResult{Argv: []string{"nvme"}, Exit: 1, Stderr: []byte("open: Permission denied")}); err == nil {
		t.Error("an error output must not parse")
	}
}
