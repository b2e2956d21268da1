package bootcfg

import "testing"

// Real hdparm.conf stanzas: DietPi issue 3420's corrected file (apm and
// spindown_time for an SD card and a disk), its broken form (the brace on
// the next line, which Debian's helper does not read either), xbian issue
// 212's stanza and a by-id stanza from a public hdparm note.
func TestParseSpindowns(t *testing.T) {
	got := ParseSpindowns([]byte(`quiet
/dev/mmcblk0 {
   apm = 127
   spindown_time = 24
}
/dev/sda {
   apm = 127
   spindown_time = 24
}
/dev/sdb
{
   spindown_time = 24
}
/dev/sdc {
    spindown_time = 60
}
/dev/disk/by-id/ata-TOSHIBA_MD04ABA400V_2818KRSKFMYB {
    # see value meaning below
    spindown_time = 60
}
#/dev/sdd {
#	spindown_time = 1
#}
`))
	want := []struct {
		dev string
		v   int
	}{{"/dev/mmcblk0", 24}, {"/dev/sda", 24}, {"/dev/sdc", 60}, {"/dev/disk/by-id/ata-TOSHIBA_MD04ABA400V_2818KRSKFMYB", 60}}
	if len(got) != len(want) {
		t.Fatalf("got %+v", got)
	}
	for i, w := range want {
		if got[i].Dev != w.dev || got[i].Value != w.v {
			t.Errorf("%d: %+v, want %+v", i, got[i], w)
		}
	}
	if got[1].Line.Num != 8 || got[1].Line.File != "/etc/hdparm.conf" {
		t.Errorf("line %+v", got[1].Line)
	}
}

func TestSpindownSeconds(t *testing.T) {
	for v, want := range map[int]int{0: 0, 24: 120, 60: 300, 240: 1200, 241: 1800, 242: 3600, 251: 19800, 252: 1260, 253: 28800, 255: 1275} {
		if s, ok := SpindownSeconds(v); !ok || s != want {
			t.Errorf("%d: %d %v, want %d", v, s, ok, want)
		}
	}
	if _, ok := SpindownSeconds(254); ok {
		t.Error("254 is reserved")
	}
}
