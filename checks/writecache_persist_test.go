package checks_test

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/diskdoctor/diskdoctor/checks"
	"github.com/diskdoctor/diskdoctor/machine"
	"github.com/diskdoctor/diskdoctor/rules"
)

// copyFixture makes a changeable copy of a recorded machine.
func copyFixture(t *testing.T, name string) string {
	t.Helper()
	dst := filepath.Join(t.TempDir(), name)
	if out, err := exec.Command("cp", "-a", filepath.Join("..", "fixtures", name), dst).CombinedOutput(); err != nil {
		t.Fatalf("cp: %v %s", err, out)
	}
	return dst
}

func writeFile(t *testing.T, p, s string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(s), 0o644); err != nil {
		t.Fatal(err)
	}
}

// Persistence is judged per disk (issue #10 item 12): the doctor's own
// per-serial rule for sda covers sda only; an hdparm.conf stanza covers the
// disk it names; a rule that only writes queue/write_cache covers nothing
// (item 13); a rule for KERNEL=="sd*" with ATTR{queue/rotational}=="1" does
// not cover SSDs.
func TestPersistenceJudgedPerDisk(t *testing.T) {
	root := copyFixture(t, "hpe-microserver-writethrough")
	writeFile(t, filepath.Join(root, "etc/udev/rules.d/69-diskdoctor-write-cache.rules"),
		"# diskdoctor\n"+`ACTION=="add|change", SUBSYSTEM=="block", ENV{DEVTYPE}=="disk", ENV{ID_SERIAL}=="WDC_WDS200T1R0A-68A4W0_21343D800458", RUN+="/usr/sbin/hdparm -W1 $devnode"`+"\n")
	writeFile(t, filepath.Join(root, "etc/udev/rules.d/70-kernel-only.rules"),
		`ACTION=="add", KERNEL=="sdc", ATTR{queue/write_cache}="write back"`+"\n"+
			`ACTION=="add", KERNEL=="sd*", ATTR{queue/rotational}=="1", RUN+="/usr/sbin/hdparm -W1 /dev/%k"`+"\n")
	writeFile(t, filepath.Join(root, "etc/hdparm.conf"), "# stock\n/dev/disk/by-id/ata-WDC_WDS500G1R0A-68A4W0_21290E801133 {\n\twrite_cache = on\n}\n")
	facts, _ := observeRoot(t, root)
	want := map[string]any{"sda": true, "sdb": false, "sdc": false, "sdd": true}
	for dev, w := range want {
		f := facts["device/"+dev]
		if f["wc_persistent"] != w {
			t.Errorf("%s: wc_persistent = %v, want %v (%v)", dev, f["wc_persistent"], w, f["wc_persistence_verdict"])
		}
	}
	if v, _ := facts["device/sda"]["wc_persistence_verdict"].(string); !strings.Contains(v, "/etc/udev/rules.d/69-diskdoctor-write-cache.rules:2") {
		t.Errorf("sda: verdict %q does not name the file and line", v)
	}
	if v, _ := facts["device/sdd"]["wc_persistence_verdict"].(string); !strings.Contains(v, "/etc/hdparm.conf:3") {
		t.Errorf("sdd: verdict %q does not name the stanza", v)
	}
	if l, _ := facts["device/sdc"]["wc_kernel_only_rules"].([]string); len(l) != 1 || !strings.Contains(l[0], "70-kernel-only.rules:1") {
		t.Errorf("sdc: kernel-only rules %v", l)
	}
	if l, _ := facts["device/sdb"]["wc_own_rule_serials"].([]string); len(l) != 1 || l[0] != "WDC_WDS200T1R0A-68A4W0_21343D800458" {
		t.Errorf("own rules file keeps sda's serial: %v", l)
	}
}

// Unknown is not absent (issue #10 item 11): a recording without /etc says
// nothing about persistence or the trim schedule, and says why.
func TestNoEtcIsUnknown(t *testing.T) {
	root := copyFixture(t, "hpe-microserver-writethrough")
	if err := os.RemoveAll(filepath.Join(root, "etc")); err != nil {
		t.Fatal(err)
	}
	facts, skipped := observeRoot(t, root)
	for _, dev := range []string{"sda", "sdd"} {
		if v := facts["device/"+dev]["wc_persistent"]; v != nil {
			t.Errorf("%s: wc_persistent = %v without /etc, want unknown", dev, v)
		}
	}
	// sdd holds ext4 / and /boot/efi: fstrim.timer is unknown, not absent.
	if v := facts["device/sdd"]["trim_covered"]; v != nil {
		t.Errorf("sdd: trim_covered = %v without /etc, want unknown", v)
	}
	var names []string
	for _, s := range skipped {
		names = append(names, s.Check)
	}
	for _, want := range []string{"write-cache persistence", "trim schedule"} {
		if !strings.Contains(strings.Join(names, ","), want) {
			t.Errorf("no skipped entry %q in %v", want, names)
		}
	}
}

func observeRoot(t *testing.T, root string) (map[string]map[string]any, []checks.Skipped) {
	t.Helper()
	h, err := machine.Recorded(root)
	if err != nil {
		t.Fatal(err)
	}
	res, err := checks.Run(t.Context(), h, checks.Options{ProbeTimeout: time.Second})
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]map[string]any{}
	for _, o := range res.Observations {
		k := o.Kind + "/" + o.Subject
		if out[k] == nil {
			out[k] = map[string]any{}
		}
		for f, v := range checks.FactMap(o) {
			out[k][f] = v
		}
	}
	return out, res.Skipped
}

// NVMe: the kernel's queue/write_cache is writable; with 'write through'
// written to it while the drive's Volatile Write Cache feature is on, the
// drive's view (nvme get-feature -f 0x06) must win: wc_on true,
// wc_kernel_on false, the mismatch (issue #10 item 14).
func TestNVMeWriteCacheFromTheDrive(t *testing.T) {
	root := copyFixture(t, "nvme-busy-healthy")
	writeFile(t, filepath.Join(root, "sys/block/nvme0n1/queue/write_cache"), "write through\n")
	manifest := filepath.Join(root, "commands/manifest.yaml")
	b, err := os.ReadFile(manifest)
	if err != nil {
		t.Fatal(err)
	}
	writeFile(t, manifest, string(b)+"- argv: [nvme, get-feature, -f, \"0x06\", /dev/nvme0n1]\n  stdout: nvme-get-feature-06.txt\n")
	// nvme-cli 2.x prints this line for a drive with its cache enabled.
	writeFile(t, filepath.Join(root, "commands/nvme-get-feature-06.txt"), "get-feature:0x06 (Volatile Write Cache), Current value:0x00000001\n")
	facts, _ := observeRoot(t, root)
	f := facts["device/nvme0n1"]
	if f["wc_kernel_on"] != false || f["wc_drive_enabled"] != true || f["wc_supported"] != true || f["wc_on"] != true {
		t.Errorf("kernel %v drive %v supported %v on %v", f["wc_kernel_on"], f["wc_drive_enabled"], f["wc_supported"], f["wc_on"])
	}
}

// Hostile names in a recording (issue #16 item 2): a /sys/block entry no
// kernel would create is refused as a subject with a skipped entry; a
// by-id link with characters udev never writes is dropped; every command
// of the report passes bash -n and carries no command substitution.
func TestHostileNamesRefusedAtInventory(t *testing.T) {
	root := copyFixture(t, "hpe-microserver-writethrough")
	target, err := os.Readlink(filepath.Join(root, "sys/block/sda"))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(target, filepath.Join(root, "sys/block/sd;rm")); err != nil {
		t.Fatal(err)
	}
	udev := filepath.Join(root, "run/udev/data/b8:16")
	b, err := os.ReadFile(udev)
	if err != nil {
		t.Fatal(err)
	}
	writeFile(t, udev, "S:disk/by-id/ata-X$(touch${IFS}/tmp/PWNED)\n"+string(b))
	h, err := machine.Recorded(root)
	if err != nil {
		t.Fatal(err)
	}
	res, err := checks.Run(t.Context(), h, checks.Options{ProbeTimeout: time.Second})
	if err != nil {
		t.Fatal(err)
	}
	for _, o := range res.Observations {
		if o.Subject == "sd;rm" {
			t.Fatalf("a name no kernel creates became a subject")
		}
		if o.Subject == "sdb" && o.Get("dev_path") != nil && strings.Contains(fmt.Sprint(o.Get("dev_path"), o.Get("by_id")), "$(") {
			t.Errorf("hostile by-id link kept: %v %v", o.Get("dev_path"), o.Get("by_id"))
		}
	}
	refused := false
	for _, s := range res.Skipped {
		refused = refused || s.Check == "inventory" && strings.Contains(s.Reason, `"sd;rm"`)
	}
	if !refused {
		t.Errorf("no skipped entry names the refused device: %+v", res.Skipped)
	}
	ds, _ := rules.LoadDatasheets("")
	e, err := rules.NewEngine(ds)
	if err != nil {
		t.Fatal(err)
	}
	e.Strict = true
	rep, err := e.Build(res, root)
	if err != nil {
		t.Fatal(err)
	}
	bash, err := exec.LookPath("bash")
	if err != nil {
		t.Skip("bash not installed: commands not syntax-checked")
	}
	n := 0
	for _, f := range rep.Findings {
		for _, m := range f.Remediation {
			n++
			if strings.Contains(m.Command, "$(") || strings.Contains(m.Command, "sd;rm") {
				t.Errorf("%s: hostile text in a command: %s", f.Rule, m.Command)
			}
			sh := exec.Command(bash, "-n")
			sh.Stdin = strings.NewReader(m.Command)
			if out, err := sh.CombinedOutput(); err != nil {
				t.Errorf("%s: bash -n: %v %s\n%s", f.Rule, err, out, m.Command)
			}
		}
	}
	if n == 0 {
		t.Fatal("no commands in the report")
	}
}
