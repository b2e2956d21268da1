package checks_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/diskdoctor/diskdoctor/checks"
	"github.com/diskdoctor/diskdoctor/machine"
)

// A disk behind an HPE Smart Array (hpsa) with LUKS and LVM between its
// partition and the root filesystem: sda2 → dm-0 (crypt) → dm-1 (LVM) → /.
func TestStackCryptLVMAndRAIDController(t *testing.T) {
	root := t.TempDir()
	file := func(p, s string) {
		t.Helper()
		p = filepath.Join(root, p)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(s), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	link := func(p, target string) {
		t.Helper()
		p = filepath.Join(root, p)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.Symlink(target, p); err != nil {
			t.Fatal(err)
		}
	}
	ctrl := "sys/devices/pci0000:00/0000:00:1c.0/0000:02:00.0"
	disk := ctrl + "/host0/target0:1:0/0:1:0:0/block/sda"
	file(ctrl+"/host0/target0:1:0/0:1:0:0/model", "LOGICAL VOLUME\n")
	link(ctrl+"/driver", "../../../../bus/pci/drivers/hpsa")
	file(disk+"/dev", "8:0\n")
	file(disk+"/size", "1172058032\n")
	file(disk+"/queue/rotational", "0\n")
	file(disk+"/sda2/partition", "2\n")
	file(disk+"/sda2/dev", "8:2\n")
	link(disk+"/sda2/holders/dm-0", "../../../../../../../../../../virtual/block/dm-0")
	link("sys/block/sda", "../devices/pci0000:00/0000:00:1c.0/0000:02:00.0/host0/target0:1:0/0:1:0:0/block/sda")
	for _, dm := range []struct{ name, dev, uuid, dmName, holder string }{
		{"dm-0", "254:0", "CRYPT-LUKS2-3f9a0e5c2b8d4e61a7c09d1e5f2b3a4c-luks-3f9a0e5c", "luks-3f9a0e5c", "dm-1"},
		{"dm-1", "254:1", "LVM-q5Wd1XyZ2vB3nM4kL5jH6gF7dS8aP9oIuYt0rEwQ1aS2dF3gH4jK5lZ6xC7vB8nM", "vg0-root", ""},
	} {
		d := "sys/devices/virtual/block/" + dm.name
		file(d+"/dev", dm.dev+"\n")
		file(d+"/dm/uuid", dm.uuid+"\n")
		file(d+"/dm/name", dm.dmName+"\n")
		if err := os.MkdirAll(filepath.Join(root, d, "holders"), 0o755); err != nil {
			t.Fatal(err)
		}
		if dm.holder != "" {
			link(d+"/holders/"+dm.holder, "../../"+dm.holder)
		}
		link("sys/block/"+dm.name, "../devices/virtual/block/"+dm.name)
	}
	file("proc/1/mountinfo", "28 1 254:1 / / rw,relatime shared:1 - ext4 /dev/mapper/vg0-root rw,errors=remount-ro\n")
	link("proc/self", "1")
	file("proc/sys/vm/dirty_ratio", "20\n")
	file("proc/sys/vm/dirty_background_ratio", "10\n")
	file("proc/meminfo", "MemTotal:       131891320 kB\nMemFree:         2609435 kB\n")

	h, err := machine.Recorded(root)
	if err != nil {
		t.Fatal(err)
	}
	res, err := checks.Run(t.Context(), h, checks.Options{ProbeTimeout: time.Second})
	if err != nil {
		t.Fatal(err)
	}
	facts := map[string]map[string]any{}
	for _, o := range res.Observations {
		if o.Check != "stack" {
			continue
		}
		facts[o.Subject] = checks.FactMap(o)
	}
	sda := facts["sda"]
	if sda == nil {
		t.Fatalf("no stack facts for sda: %v", facts)
	}
	layers, _ := sda["stack_layers"].([]string)
	if strings.Join(layers, "|") != "sda2 → dm-0 (dm-crypt luks-3f9a0e5c) → dm-1 (LVM vg0-root) → / ext4" {
		t.Errorf("layers = %q", layers)
	}
	if sda["dm_crypt"] != true || sda["lvm"] != true || sda["md_stacked"] != false {
		t.Errorf("crypt %v lvm %v md %v", sda["dm_crypt"], sda["lvm"], sda["md_stacked"])
	}
	if sda["controller_kind"] != "raid" || sda["raid_controller_driver"] != "hpsa" {
		t.Errorf("controller %v %v", sda["controller_kind"], sda["raid_controller_driver"])
	}
	host := facts["host"]
	if host["vm_dirty_ratio"] != 20.0 || host["vm_dirty_limit_gib"] != 25.2 || strings.Join(host["pagecache_filesystems"].([]string), ",") != "/" {
		t.Errorf("host: %v %v %v", host["vm_dirty_ratio"], host["vm_dirty_limit_gib"], host["pagecache_filesystems"])
	}
}
