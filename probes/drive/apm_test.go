package drive

import (
	"errors"
	"testing"

	"github.com/diskdoctor/diskdoctor/machine"
)

// hdparm -B's three answers (hdparm.c get_apmmode: "APM_level\t= %u",
// "off", "not supported") under its "/dev/sda:" header.
func TestParseHdparmB(t *testing.T) {
	for in, want := range map[string]APM{
		"\n/dev/sda:\n APM_level\t= 128\n":           {Supported: true, Enabled: true, Level: 128},
		"\n/dev/sda:\n APM_level\t= 1\n":             {Supported: true, Enabled: true, Level: 1},
		"\n/dev/sda:\n APM_level\t= off\n":           {Supported: true},
		"\n/dev/sdb:\n APM_level\t= not supported\n": {},
	} {
		got, err := ParseHdparmB([]byte(in))
		if err != nil {
			t.Fatalf("%q: %v", in, err)
		}
		got.Value = ""
		if *got != want {
			t.Errorf("%q: got %+v, want %+v", in, *got, want)
		}
	}
	for _, bad := range []string{"", "\n/dev/sda:\n APM_level\t= 255\n", " APM_level = 0\n", " APM_level = x\n", "/dev/sda:\n SG_IO: bad/missing sense data\n"} {
		if _, err := ParseHdparmB([]byte(bad)); !errors.Is(err, machine.ErrParse) {
			t.Errorf("%q: err %v, want ErrParse", bad, err)
		}
	}
}
