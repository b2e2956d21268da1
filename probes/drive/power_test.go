package drive

import (
	"errors"
	"testing"

	"github.com/diskdoctor/diskdoctor/machine"
)

// hdparm -C as printed (two spaces after the colon, hdparm.c
// do_get_powermode): the active/idle and standby answers of one drive
// before and after its timer ran out, as a public blog quotes them
// (blog.bravi.org/?p=134), and a sleeping drive's.
func TestParseHdparmC(t *testing.T) {
	for in, want := range map[string]string{
		"\n/dev/sdb:\n drive state is:  active/idle\n": "active/idle",
		"\n/dev/sdb:\n drive state is:  standby\n":     "standby",
		"/dev/sdc:\n drive state is: sleeping\n":       "sleeping",
		"drive state is:  unknown\n":                   "unknown",
	} {
		got, err := ParseHdparmC([]byte(in))
		if err != nil {
			t.Fatalf("%q: %v", in, err)
		}
		if got.State != want {
			t.Errorf("%q: state %q, want %q", in, got.State, want)
		}
	}
	for _, bad := range []string{"", "\n/dev/sdb:\n drive state is:  \x1b[31mstandby\n", "/dev/sdb:\n SG_IO: bad/missing sense data\n"} {
		if _, err := ParseHdparmC([]byte(bad)); !errors.Is(err, machine.ErrParse) {
			t.Errorf("%q: err %v, want ErrParse", bad, err)
		}
	}
	if !(&PowerMode{State: "standby"}).Asleep() || (&PowerMode{State: "active/idle"}).Asleep() || (*PowerMode)(nil).Asleep() {
		t.Error("Asleep")
	}
}
