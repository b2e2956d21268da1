package udev

import (
	"reflect"
	"strings"
	"testing"
)

func TestParseUdev(t *testing.T) {
	in := "S:disk/by-id/ata-WDC_WDS200T1R0A-68A4W0_21234A800001\nS:disk/by-id/wwn-0x5001b448b9a1c2d3\nI:123\nE:ID_BUS=ata\nE:ID_ATA_WRITE_CACHE=1\nE:ID_ATA_WRITE_CACHE_ENABLED=0\nE:EMPTY=\nE:=novalue\nE:NOEQUALS\nG:systemd\nX\n\n"
	rec := Parse([]byte(in))
	want := []udevProp{{"ID_BUS", "ata"}, {"ID_ATA_WRITE_CACHE", "1"}, {"ID_ATA_WRITE_CACHE_ENABLED", "0"}, {"EMPTY", ""}}
	if !reflect.DeepEqual(rec.props, want) {
		t.Errorf("props = %v, want %v", rec.props, want)
	}
	for _, p := range want {
		if got := rec.Prop(p.name); got != p.value {
			t.Errorf("Prop(%s) = %q, want %q", p.name, got, p.value)
		}
	}
	if got := rec.Prop("ID_MISSING"); got != "" {
		t.Errorf("Prop of a missing name = %q", got)
	}
	// A name given twice: the later value, as before.
	if twice := Parse([]byte("E:ID_BUS=ata\nE:ID_BUS=usb\n")); twice.Prop("ID_BUS") != "usb" {
		t.Errorf("Prop of a name given twice = %q, want the later", twice.Prop("ID_BUS"))
	}
	if len(rec.Links) != 2 || rec.Links[0] != "disk/by-id/ata-WDC_WDS200T1R0A-68A4W0_21234A800001" {
		t.Errorf("links = %v", rec.Links)
	}
	for _, bad := range []string{"", "\x00\x01\x02", "E", strings.Repeat("E:K=", 10000)} {
		if rec := Parse([]byte(bad)); rec == nil || len(rec.props) > 0 && bad != strings.Repeat("E:K=", 10000) {
			t.Errorf("parseUdev(%q) = %+v; malformed lines are skipped", bad[:min(len(bad), 10)], rec)
		}
	}
	var nilRec *Record
	if nilRec.Prop("ID_BUS") != "" {
		t.Error("Prop on nil record must be empty")
	}
}
