package checks

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/diskdoctor/diskdoctor/internal/testutil"
	"github.com/diskdoctor/diskdoctor/machine"
)

// hdparm -C recorded for a SATA hard disk in standby (the answer as
// blog.bravi.org/?p=134 quotes it): the state and its evidence, and the
// commands that read IDENTIFY (hdparm -B, hdparm -W) are not sent to it,
// each with a skipped entry that says why. An active disk is asked as
// before, and a recording without the argv leaves the state unknown.
func TestHdparmPower(t *testing.T) {
	build := func(t *testing.T, state string, withC bool) string {
		root := t.TempDir()
		blk := "sys/devices/pci0000:00/0000:00:17.0/ata2/host1/target1:0:0/1:0:0:0/block/sdb"
		manifest := "- argv: [dmesg]\n  stdout: dmesg.txt\n- argv: [hdparm, -B, /dev/sdb]\n  stdout: hdparm-B.txt\n- argv: [hdparm, -W, /dev/sdb]\n  stdout: hdparm-W.txt\n"
		if withC {
			manifest += "- argv: [hdparm, -C, /dev/sdb]\n  stdout: hdparm-C.txt\n"
		}
		for p, s := range map[string]string{
			blk + "/dev": "8:16\n", blk + "/size": "3907029168\n", blk + "/queue/rotational": "1\n",
			"commands/manifest.yaml": manifest, "commands/dmesg.txt": "",
			"commands/hdparm-C.txt": "\n/dev/sdb:\n drive state is:  " + state + "\n",
			"commands/hdparm-B.txt": "\n/dev/sdb:\n APM_level\t= 254\n",
			"commands/hdparm-W.txt": "\n/dev/sdb:\n write-caching =  1 (on)\n",
		} {
			testutil.WriteFile(t, filepath.Join(root, p), s)
		}
		testutil.Must(t, os.MkdirAll(filepath.Join(root, "sys/block"), 0o755))
		if err := os.Symlink("../devices/pci0000:00/0000:00:17.0/ata2/host1/target1:0:0/1:0:0:0/block/sdb", filepath.Join(root, "sys/block/sdb")); err != nil {
			t.Fatal(err)
		}
		return root
	}
	envOf := func(t *testing.T, root string) *Env {
		h, err := machine.Recorded(root)
		if err != nil {
			t.Fatal(err)
		}
		return newEnv(h, Options{ProbeTimeout: 5 * time.Second})
	}
	t.Run("standby", func(t *testing.T) {
		env := envOf(t, build(t, "standby", true))
		obs := hdparmPower(t.Context(), env)
		if len(obs) != 1 || obs[0].Get("hdparm_power_state") != "standby" {
			t.Fatalf("observations %+v, want sdb in standby", obs)
		}
		if ev := obs[0].evidence.Of("hdparm_power_state"); len(ev) != 1 || ev[0].Source != "hdparm -C /dev/sdb" || ev[0].Value != "drive state is:  standby" {
			t.Errorf("evidence %+v", ev)
		}
		if apm := hdparmAPM(t.Context(), env); len(apm) != 0 {
			t.Errorf("hdparm -B sent to a disk in standby: %+v", apm[0])
		}
		wc := writeCache(t.Context(), env)
		for _, o := range wc {
			if o.Subject == "sdb" && o.Get("wc_drive_enabled") != nil {
				t.Errorf("hdparm -W sent to a disk in standby: wc_drive_enabled %v", o.Get("wc_drive_enabled"))
			}
		}
		var skipped []string
		for _, s := range env.skips.list() {
			if strings.Contains(s.Reason, "standby") {
				skipped = append(skipped, s.Check)
			}
		}
		if strings.Join(skipped, ",") != "hdparm -B,hdparm -W" {
			t.Errorf("skipped for standby: %q, want hdparm -B and hdparm -W", skipped)
		}
	})
	t.Run("active/idle", func(t *testing.T) {
		env := envOf(t, build(t, "active/idle", true))
		if obs := hdparmPower(t.Context(), env); len(obs) != 1 || obs[0].Get("hdparm_power_state") != "active/idle" {
			t.Fatalf("observations %+v", obs)
		}
		if apm := hdparmAPM(t.Context(), env); len(apm) != 1 || apm[0].Get("hdparm_apm_level") != 254 {
			t.Errorf("hdparm -B not read on an active disk: %+v", apm)
		}
	})
	t.Run("not recorded", func(t *testing.T) {
		env := envOf(t, build(t, "", false))
		if obs := hdparmPower(t.Context(), env); len(obs) != 0 {
			t.Errorf("an observation without the argv: %+v", obs[0])
		}
		if apm := hdparmAPM(t.Context(), env); len(apm) != 1 {
			t.Errorf("hdparm -B not read when the state is unknown")
		}
		if n := len(env.skips.list()); n != 0 {
			t.Errorf("%d skipped entries, want none: %+v", n, env.skips.list())
		}
	})
}
