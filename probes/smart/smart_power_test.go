package smart

import (
	"errors"
	"testing"

	"github.com/diskdoctor/diskdoctor/machine"
)

// smartctl -n standby on a sleeping disk (smartmontools ataprint.cpp:
// "Device is in %s mode, exit(%d)", JSON message of severity
// "information", exit status 2): a fact, not an open failure (issue #10
// item 15). A device that is really missing still is one.
func TestSmartctlStandby(t *testing.T) {
	standby := `{"json_format_version":[1,0],"smartctl":{"version":[7,3],"argv":["smartctl","-x","-n","standby","-j","/dev/sdb"],` +
		`"messages":[{"string":"Device is in STANDBY mode, exit(2)","severity":"information"}],"exit_status":2},` +
		`"device":{"name":"/dev/sdb","info_name":"/dev/sdb [SAT]","type":"sat","protocol":"ATA"}}`
	s, err := ParseJSON([]byte(standby))
	if err != nil || s.Standby != "STANDBY" || s.Passed != nil || *s.Exit != 2 {
		t.Fatalf("standby: %+v %v", s, err)
	}
	sleep := `{"smartctl":{"messages":[{"string":"Device is in SLEEP mode, exit(2)","severity":"information"}],"exit_status":2}}`
	if s, err := ParseJSON([]byte(sleep)); err != nil || s.Standby != "SLEEP" {
		t.Errorf("sleep: %+v %v", s, err)
	}
	missing := `{"smartctl":{"messages":[{"string":"Smartctl open device: /dev/sdc failed: No such device","severity":"error"}],"exit_status":2}}`
	if _, err := ParseJSON([]byte(missing)); !errors.Is(err, machine.ErrNotAvailable) {
		t.Errorf("missing device: %v", err)
	}
}

// CHECK POWER MODE's COUNT comes back in the sense data of an ATA
// PASS-THROUGH with CK_COND (SAT-4 12.2.2.6), in either sense format.
func TestATAPowerModeSense(t *testing.T) {
	// Descriptor format: 72h, ATA Status Return descriptor 09h, COUNT at +5.
	desc := []byte{0x72, 0x01, 0x00, 0x1d, 0, 0, 0, 14, 0x09, 0x0c, 0x00, 0x00, 0x00, 0x00, 0, 0, 0, 0, 0, 0, 0x40, 0x50}
	for _, c := range []struct {
		count  byte
		mode   string
		asleep bool
	}{{0x00, "STANDBY", true}, {0x40, "STANDBY", true}, {0x80, "IDLE", false}, {0xff, "ACTIVE or IDLE", false}} {
		desc[13] = c.count
		got, ok := ataReturnCount(desc)
		if !ok || got != c.count {
			t.Fatalf("descriptor sense: %#x %v", got, ok)
		}
		if m, a := ataPowerMode(got); m != c.mode || a != c.asleep {
			t.Errorf("%#x: %s %v, want %s %v", c.count, m, a, c.mode, c.asleep)
		}
	}
	fixed := []byte{0x70, 0, 0x01, 0x00, 0x50, 0x00, 0xff, 10, 0, 0, 0, 0, 0, 0x1d}
	if got, ok := ataReturnCount(fixed); !ok || got != 0xff {
		t.Errorf("fixed sense: %#x %v", got, ok)
	}
	if _, ok := ataReturnCount([]byte{0x72, 0, 0, 0, 0, 0, 0, 0}); ok {
		t.Error("sense without a status descriptor read as a count")
	}
}
