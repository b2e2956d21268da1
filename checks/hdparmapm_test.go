package checks

import (
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/diskdoctor/diskdoctor/internal/testutil"
	"github.com/diskdoctor/diskdoctor/machine"
)

// hdparm -B recorded for a SATA hard disk: the level and its evidence;
// a recording without the argv sets nothing and skips nothing (the argv
// is optional and smartctl is the first source).
func TestHdparmAPM(t *testing.T) {
	build := func(t *testing.T, manifest, out string) string {
		root := t.TempDir()
		blk := "sys/devices/pci0000:00/0000:00:17.0/ata1/host0/target0:0:0/0:0:0:0/block/sda"
		for p, s := range map[string]string{
			blk + "/dev": "8:0\n", blk + "/size": "3907029168\n", blk + "/queue/rotational": "1\n",
			"commands/manifest.yaml": manifest, "commands/hdparm-B.txt": out, "commands/dmesg.txt": "",
		} {
			testutil.WriteFile(t, filepath.Join(root, p), s)
		}
		testutil.Must(t, os.MkdirAll(filepath.Join(root, "sys/block"), 0o755))
		if err := os.Symlink("../devices/pci0000:00/0000:00:17.0/ata1/host0/target0:0:0/0:0:0:0/block/sda", filepath.Join(root, "sys/block/sda")); err != nil {
			t.Fatal(err)
		}
		return root
	}
	t.Run("APM 127", func(t *testing.T) {
		root := build(t, "- argv: [dmesg]\n  stdout: dmesg.txt\n- argv: [hdparm, -B, /dev/sda]\n  stdout: hdparm-B.txt\n", "\n/dev/sda:\n APM_level\t= 127\n")
		o, _ := recordedObservation(t, root, "sda", hdparmAPM)
		if got := o.Get("hdparm_apm_level"); got != 127 {
			t.Errorf("hdparm_apm_level = %#v, want 127", got)
		}
		if got := o.Get("hdparm_apm_enabled"); got != true {
			t.Errorf("hdparm_apm_enabled = %#v", got)
		}
	})
	t.Run("not recorded", func(t *testing.T) {
		root := build(t, "- argv: [dmesg]\n  stdout: dmesg.txt\n", "")
		h, err := machine.Recorded(root)
		if err != nil {
			t.Fatal(err)
		}
		env := newEnv(h, Options{ProbeTimeout: 5 * time.Second})
		if obs := hdparmAPM(t.Context(), env); len(obs) != 0 {
			t.Errorf("an observation without the argv: %+v", obs[0])
		}
		if n := len(env.skips.list()); n != 0 {
			t.Errorf("%d skipped entries, want none", n)
		}
	})
}
