package checks_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/diskdoctor/diskdoctor/checks"
	"github.com/diskdoctor/diskdoctor/probes/dmtable"
)

// A 512-bit key as `dmsetup table --showkeys` prints it.
const dmcryptHexKey = "a0b1c2d3e4f5061728394a5b6c7d8e9fa0b1c2d3e4f5061728394a5b6c7d8e9fa0b1c2d3e4f5061728394a5b6c7d8e9fa0b1c2d3e4f5061728394a5b6c7d8e9f"

// The Goodram capture's crypt target, opened with allow_discards only, is
// set on the SSD under its partition: it uses both workqueues and
// 512-byte sectors; its twin opened with both no_*_workqueue options uses
// neither queue.
func TestDMCryptFixtures(t *testing.T) {
	facts, _ := observeRoot(t, filepath.Join("..", "fixtures", "dmcrypt-ssd-workqueues"))
	sda := facts["device/sda"]
	if got := sda["dmcrypt_workqueue_targets"]; !slices.Equal(got.([]string), []string{"debian_crypt"}) {
		t.Errorf("dmcrypt_workqueue_targets = %v", got)
	}
	if got := sda["dmcrypt_small_sector_targets"]; !slices.Equal(got.([]string), []string{"debian_crypt"}) {
		t.Errorf("dmcrypt_small_sector_targets = %v", got)
	}
	if got := sda["dmcrypt_targets"]; !slices.Equal(got.([]string), []string{"debian_crypt on sda1: 512-byte sectors, allow_discards"}) {
		t.Errorf("dmcrypt_targets = %v", got)
	}
	for _, d := range []string{"device/sdb", "device/nvme0n1"} {
		if v, ok := facts[d]["dmcrypt_targets"]; ok {
			t.Errorf("%s: dmcrypt_targets = %v, no crypt target is on it", d, v)
		}
	}
	twin, _ := observeRoot(t, filepath.Join("..", "fixtures", "dmcrypt-ssd-workqueues-bypassed"))
	if got := twin["device/sda"]["dmcrypt_workqueue_targets"]; len(got.([]string)) != 0 {
		t.Errorf("twin: dmcrypt_workqueue_targets = %v, want none", got)
	}
}

// Unknown is not absent: a recording without dmsetup table sets no
// dmcrypt fact and says what to record.
func TestDMCryptNotRecorded(t *testing.T) {
	root := copyFixture(t, "dmcrypt-ssd-workqueues")
	man := filepath.Join(root, "commands", "manifest.yaml")
	b, err := os.ReadFile(man)
	if err != nil {
		t.Fatal(err)
	}
	s := strings.Replace(string(b), "- argv: [dmsetup, table]\n  stdout: dmsetup-table.txt\n", "", 1)
	if s == string(b) {
		t.Fatal("the fixture's manifest has no dmsetup table entry")
	}
	writeFile(t, man, s)
	facts, skipped := observeRoot(t, root)
	for k, f := range facts {
		for name := range f {
			if strings.HasPrefix(name, "dmcrypt_") {
				t.Errorf("%s: %s set without dmsetup table", k, name)
			}
		}
	}
	i := slices.IndexFunc(skipped, func(s checks.Skipped) bool { return s.Check == "dmsetup table" })
	if i < 0 {
		t.Fatalf("no skipped entry for dmsetup table: %+v", skipped)
	}
	if !strings.Contains(skipped[i].Hint, "diskdoctor snapshot") {
		t.Errorf("hint %q does not say to record the machine again", skipped[i].Hint)
	}
	rep := examineRecorded(t, root)
	for _, f := range rep.Findings {
		if f.Rule == "dm-crypt-workqueues" || f.Rule == "luks-sector-size-small" {
			t.Errorf("%s without dmsetup table", f.Rule)
		}
	}
}

// luks-sector-size-small has no public capture of a 512-byte crypt target
// on a 4 KiB disk: the fixture's SSD is given 4096-byte physical blocks
// (an Advanced Format or 4Kn drive, queue/physical_block_size).
func TestLUKSSectorSizeSmallOn4KDisk(t *testing.T) {
	root := copyFixture(t, "dmcrypt-ssd-workqueues")
	sda := filepath.Join(root, "sys/devices/pci0000:00/0000:00:17.0/ata1/host0/target0:0:0/0:0:0:0/block/sda/queue/physical_block_size")
	writeFile(t, sda, "4096\n")
	rep := examineRecorded(t, root)
	var got []string
	for _, f := range rep.Findings {
		got = append(got, f.Rule+" "+string(f.Severity)+" "+strings.Join(f.Subjects, ","))
		if f.Rule == "luks-sector-size-small" {
			var destructive bool
			for _, r := range f.Remediation {
				if strings.Contains(r.Command, "reencrypt --sector-size 4096") && r.Risk == "persistent" && strings.Contains(r.Note, "REWRITES EVERY BLOCK") && strings.Contains(r.Note, "back up first") {
					destructive = true
				}
			}
			if !destructive {
				t.Errorf("reencrypt lacks its rewrite and backup warning: %+v", f.Remediation)
			}
		}
	}
	if !slices.Contains(got, "luks-sector-size-small info sda") {
		t.Errorf("findings %v, want luks-sector-size-small info sda", got)
	}
	// sector_size:4096 is the healthy twin.
	writeFile(t, filepath.Join(root, "commands/dmsetup-table.txt"),
		"debian_crypt: 0 463583232 crypt aes-xts-plain64 :64:logon:cryptsetup:000etc000-d0 0 8:1 32768 2 allow_discards sector_size:4096\n")
	for _, f := range examineRecorded(t, root).Findings {
		if f.Rule == "luks-sector-size-small" {
			t.Errorf("luks-sector-size-small with sector_size:4096")
		}
	}
}

// No key reaches a finding, the JSON report or the facts, whatever form
// the recording holds it in (--showkeys hex, a keyring reference).
func TestDMCryptKeyNeverReported(t *testing.T) {
	root := copyFixture(t, "dmcrypt-ssd-workqueues")
	writeFile(t, filepath.Join(root, "commands/dmsetup-table.txt"),
		"debian_crypt: 0 463583232 crypt aes-xts-plain64 "+dmcryptHexKey+" 0 8:1 32768 1 allow_discards\n"+
			"other_crypt: 0 1000 crypt aes-xts-plain64 :64:logon:cryptsetup:5ec7e7-d0 0 8:1 0\n")
	rep := examineRecorded(t, root)
	b, err := json.Marshal(rep)
	if err != nil {
		t.Fatal(err)
	}
	for _, secret := range []string{dmcryptHexKey, dmcryptHexKey[:32], "5ec7e7", "logon"} {
		if strings.Contains(string(b), secret) {
			t.Errorf("the report holds key material %q", secret)
		}
	}
	// encoding/json escapes < and >.
	if !strings.Contains(string(b), strings.Trim(dmtable.Redacted, "<>")) {
		t.Error("the report does not show the redacted crypt line")
	}
}
