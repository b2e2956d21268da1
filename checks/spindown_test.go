package checks

import (
	"os"
	"path/filepath"
	"testing"
)

// The spindown facts of two hard disks, one named by an hdparm.conf
// stanza by its by-id link (a stanza of the form of a public hdparm
// note), one by none, and of an SSD (not observed).
func TestSpindownStanzas(t *testing.T) {
	root := t.TempDir()
	write := func(p, s string) {
		t.Helper()
		if err := os.MkdirAll(filepath.Dir(filepath.Join(root, p)), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(root, p), []byte(s), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	link := func(p, target string) {
		t.Helper()
		if err := os.MkdirAll(filepath.Dir(filepath.Join(root, p)), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.Symlink(target, filepath.Join(root, p)); err != nil {
			t.Fatal(err)
		}
	}
	for i, d := range []struct{ name, devno, rot string }{{"sda", "8:0", "1"}, {"sdb", "8:16", "1"}, {"sdc", "8:32", "0"}} {
		blk := "devices/pci0000:00/0000:00:17.0/ata" + string(rune('1'+i)) + "/host" + string(rune('0'+i)) + "/target" + string(rune('0'+i)) + ":0:0/" + string(rune('0'+i)) + ":0:0:0/block/" + d.name
		write("sys/"+blk+"/dev", d.devno+"\n")
		write("sys/"+blk+"/size", "7814037168\n")
		write("sys/"+blk+"/queue/rotational", d.rot+"\n")
		link("sys/block/"+d.name, "../"+blk)
	}
	write("run/udev/data/b8:0", "S:disk/by-id/ata-TOSHIBA_MD04ABA400V_2818KRSKFMYB\nE:ID_TYPE=disk\n")
	link("dev/disk/by-id/ata-TOSHIBA_MD04ABA400V_2818KRSKFMYB", "../../sda")
	write("etc/hdparm.conf", "quiet\n/dev/disk/by-id/ata-TOSHIBA_MD04ABA400V_2818KRSKFMYB {\n    spindown_time = 60\n}\n/dev/sdc {\n    spindown_time = 24\n}\n")

	o, _ := recordedObservation(t, root, "sda", spindown)
	if o.Get("spindown_conf_s") != 300 || o.Get("spindown_conf_value") != 60 {
		t.Errorf("sda: %v %v", o.Get("spindown_conf_s"), o.Get("spindown_conf_value"))
	}
	if ev := o.EvidenceOf("spindown_conf_s"); len(ev) != 1 || ev[0].Source != "/etc/hdparm.conf:3" {
		t.Errorf("evidence %+v", ev)
	}
	if o, _ := recordedObservation(t, root, "sdb", spindown); o.Get("spindown_conf_s") != 0 {
		t.Errorf("sdb: %v", o.Get("spindown_conf_s"))
	}
	_, env := recordedObservation(t, root, "sda", spindown)
	for _, x := range spindown(t.Context(), env) {
		if x.Subject == "sdc" {
			t.Error("an SSD observed")
		}
	}
}
