package checks

import (
	"os"
	"path/filepath"
	"slices"
	"testing"
)

// The hba facts of the recorded HBA machines.
func TestHBAFixtures(t *testing.T) {
	tests := []struct {
		root, subject string
		want          map[string]any
	}{
		{"../fixtures/hba-sas2308-ir-workstation", "sda", map[string]any{
			"hba_name": "mpt2sas_cm0", "hba_chip": "LSISAS2308", "hba_fw_version": "12.00.02.00", "hba_ir": true,
			"hba_disk_in_array": false, "hba_dead": false, "hba_fault_states": 0, "hba_resets": 1, "hba_fault_summary": "1 controller reset"}},
		{"../fixtures/hba-sas2308-ir-workstation", "mpt2sas_cm0", map[string]any{
			"hba_ir": true, "hba_disk_in_array": nil, "hba_capabilities": "Raid,TLR,EEDP,Snapshot Buffer,Diag Trace Buffer,Task Set Full,NCQ"}},
		{"../fixtures/hba-sas3-dead-ioc", "mpt3sas_cm0", map[string]any{
			"hba_dead": true, "hba_non_operational": 6, "hba_ir": nil, "hba_fw_version": nil,
			"hba_fault_summary": "the driver gave the controller up (dead IOC); 6 'SAS host is non-operational'; disks lost: sdh, sdg"}},
		{"../fixtures/hba-sas3-dead-ioc", "sdg", map[string]any{"hba_name": "mpt3sas_cm0", "hba_dead": true}},
	}
	for _, tt := range tests {
		t.Run(filepath.Base(tt.root)+"/"+tt.subject, func(t *testing.T) {
			o, _ := recordedObservation(t, tt.root, tt.subject, hbaCheck)
			for name, want := range tt.want {
				if got := o.Get(name); got != want {
					t.Errorf("%s = %#v, want %#v", name, got, want)
				}
			}
		})
	}
}

// sasTree builds a recorded machine with an mpt3sas HBA at 0000:01:00.0
// (SCSI host 0) and, per disk, its end device directly on an HBA phy or
// behind an expander, laid out as the SAS transport class does
// (drivers/scsi/scsi_transport_sas.c: host0/port-0:N/end_device-0:N, the
// port's phy-0:N links, /sys/class/sas_phy and sas_device).
type sasTree struct {
	t    *testing.T
	root string
}

func newSASTree(t *testing.T, dmesg string) *sasTree {
	s := &sasTree{t, t.TempDir()}
	s.link("sys/devices/pci0000:00/0000:00:01.0/0000:01:00.0/driver", "../../../../bus/pci/drivers/mpt3sas")
	s.write("sys/bus/pci/drivers/mpt3sas/.keep", "")
	s.write("commands/dmesg.txt", dmesg)
	s.write("commands/manifest.yaml", "- argv: [dmesg]\n  stdout: dmesg.txt\n")
	return s
}

func (s *sasTree) write(p, v string) {
	s.t.Helper()
	if err := os.MkdirAll(filepath.Dir(filepath.Join(s.root, p)), 0o755); err != nil {
		s.t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(s.root, p), []byte(v), 0o644); err != nil {
		s.t.Fatal(err)
	}
}

func (s *sasTree) link(p, target string) {
	s.t.Helper()
	if err := os.MkdirAll(filepath.Dir(filepath.Join(s.root, p)), 0o755); err != nil {
		s.t.Fatal(err)
	}
	if err := os.Symlink(target, filepath.Join(s.root, p)); err != nil {
		s.t.Fatal(err)
	}
}

// disk adds disk name (device number devno) on phy n of the HBA, the
// phy's rates and counters, the end device's protocol and udev's
// filesystem type of the whole disk.
func (s *sasTree) disk(name, devno string, n int, negotiated, maximum, protocol, fsType string, counters map[string]string) {
	fn := "devices/pci0000:00/0000:00:01.0/0000:01:00.0"
	id := "0:" + string(rune('0'+n))
	port := fn + "/host0/port-" + id
	end := "end_device-" + id
	blk := port + "/" + end + "/target0:0:" + string(rune('0'+n)) + "/0:0:" + string(rune('0'+n)) + ":0/block/" + name
	phy := fn + "/host0/phy-" + id
	s.write("sys/"+blk+"/dev", devno+"\n")
	s.write("sys/"+blk+"/size", "23437770752\n")
	s.link("sys/block/"+name, "../"+blk)
	s.write("sys/"+phy+"/sas_phy/phy-"+id+"/negotiated_linkrate", negotiated+"\n")
	s.write("sys/"+phy+"/sas_phy/phy-"+id+"/maximum_linkrate", maximum+"\n")
	for c, v := range counters {
		s.write("sys/"+phy+"/sas_phy/phy-"+id+"/"+c, v+"\n")
	}
	s.link("sys/"+port+"/phy-"+id, "../phy-"+id)
	s.link("sys/class/sas_phy/phy-"+id, "../../"+phy+"/sas_phy/phy-"+id)
	s.write("sys/"+port+"/"+end+"/sas_device/"+end+"/target_port_protocols", protocol+"\n")
	s.link("sys/class/sas_device/"+end, "../../"+port+"/"+end+"/sas_device/"+end)
	if fsType != "" {
		s.write("run/udev/data/b"+devno, "E:ID_FS_TYPE="+fsType+"\nE:ID_TYPE=disk\n")
	}
}

// IR firmware (the HP Z820's real capability line) with two disks behind
// it, one a ZFS member: the HBA and the member carry the array, the other
// disk does not. No public capture holds IR firmware and ZFS together.
func TestHBAIRUnderZFS(t *testing.T) {
	s := newSASTree(t, `[    3.714692] mpt2sas_cm0: LSISAS2308: FWVersion(12.00.02.00), ChipRevision(0x03), BiosVersion(07.23.02.00)
[    3.714693] mpt2sas_cm0: Protocol=(Initiator), Capabilities=(Raid,TLR,EEDP,Snapshot Buffer,Diag Trace Buffer,Task Set Full,NCQ)
[    3.714738] scsi host0: Fusion MPT SAS Host
`)
	s.disk("sda", "8:0", 0, "6.0 Gbit", "6.0 Gbit", "sata", "zfs_member", nil)
	s.disk("sdb", "8:16", 1, "6.0 Gbit", "6.0 Gbit", "sata", "", nil)
	ctl, _ := recordedObservation(t, s.root, "mpt2sas_cm0", hbaCheck)
	if got := ctl.Get("hba_array_disks"); !slices.Equal(got.([]string), []string{"sda"}) {
		t.Errorf("array disks %v", got)
	}
	if got := ctl.Get("hba_disks"); !slices.Equal(got.([]string), []string{"sda", "sdb"}) {
		t.Errorf("disks %v", got)
	}
	if o, _ := recordedObservation(t, s.root, "sda", hbaCheck); o.Get("hba_disk_in_array") != true || o.Get("hba_ir") != true {
		t.Errorf("sda %v %v", o.Get("hba_disk_in_array"), o.Get("hba_ir"))
	}
	if o, _ := recordedObservation(t, s.root, "sdb", hbaCheck); o.Get("hba_disk_in_array") != false {
		t.Errorf("sdb %v", o.Get("hba_disk_in_array"))
	}
}

// The SAS link of disks laid out as the transport class does: a SATA disk
// at 3.0 of 6.0 Gbit with invalid dwords (slow), a SATA disk at 6.0 below
// a 12.0 Gbit phy (its maximum), a SAS disk at 6.0 below 12.0 (its own
// maximum unknown) and one at 3.0 below 12.0. No public capture of a slow
// phy's sysfs files was found; the rates and counters are the transport
// class's formats.
func TestSASLinkTree(t *testing.T) {
	s := newSASTree(t, "")
	s.disk("sda", "8:0", 0, "3.0 Gbit", "6.0 Gbit", "sata", "", map[string]string{"invalid_dword_count": "1523", "running_disparity_error_count": "1498", "loss_of_dword_sync_count": "3", "phy_reset_problem_count": "0"})
	s.disk("sdb", "8:16", 1, "6.0 Gbit", "12.0 Gbit", "sata", "", map[string]string{"invalid_dword_count": "0"})
	s.disk("sdc", "8:32", 2, "6.0 Gbit", "12.0 Gbit", "ssp", "", nil)
	s.disk("sdd", "8:48", 3, "3.0 Gbit", "12.0 Gbit", "ssp", "", nil)
	tests := map[string]map[string]any{
		"sda": {"sas_end_device": "end_device-0:0", "sas_protocol": "sata", "sas_link_gbps": 3.0, "sas_link_max_gbps": 6.0, "sas_link_cap_gbps": 6.0,
			"sas_phy_errors": int64(3024), "sas_phys": "phy-0:0 3.0 Gbit of 6.0 Gbit",
			"sas_phy_error_summary": "phy-0:0 invalid_dword_count 1523, phy-0:0 running_disparity_error_count 1498, phy-0:0 loss_of_dword_sync_count 3"},
		"sdb": {"sas_link_gbps": 6.0, "sas_link_cap_gbps": 6.0, "sas_phy_errors": int64(0)},
		"sdc": {"sas_link_gbps": 6.0, "sas_link_max_gbps": 12.0, "sas_link_cap_gbps": nil},
		"sdd": {"sas_link_gbps": 3.0, "sas_link_cap_gbps": 6.0},
	}
	for dev, want := range tests {
		o, _ := recordedObservation(t, s.root, dev, sasLink)
		for name, w := range want {
			if got := o.Get(name); got != w {
				t.Errorf("%s: %s = %#v, want %#v", dev, name, got, w)
			}
		}
	}
}
