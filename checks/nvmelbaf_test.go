package checks

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/diskdoctor/diskdoctor/machine"
)

// The nvme-lbaf facts of the recorded KIOXIA EXCERIA PRO.
func TestNVMeLBAFFixture(t *testing.T) {
	o, _ := recordedObservation(t, "../fixtures/nvme-lbaf-512-kioxia-exceria-pro", "nvme0n1", nvmeLBAF)
	for name, want := range map[string]any{
		"nvme_lbaf_suboptimal": true, "nvme_lbaf_best_index": 1, "nvme_lbaf_rp": 2,
		"nvme_lbaf_in_use": "512 B blocks (lbaf 0, relative performance 2: good)",
		"nvme_lbaf_best":   "4096 B blocks (lbaf 1, relative performance 1: better)",
	} {
		if got := o.Get(name); got != want {
			t.Errorf("%s = %#v, want %#v", name, got, want)
		}
	}
}

// Where nvme id-ns is not recorded, smartctl 7.5's lba_formats answer
// (the TEAMGROUP MP33 capture of probes/nvmens/testdata, its one format
// given a second in the test): a 512 B format in use at rp 2 beside a
// 4096 B one at rp 1 is suboptimal, with smartctl's argv as evidence; the
// same rp for both is not; smartctl without lba_formats (before 7.5)
// leaves the skipped entry of nvme id-ns.
func TestNVMeLBAFFromSmartctl(t *testing.T) {
	capture, err := os.ReadFile("../probes/nvmens/testdata/smartctl-7.5-teamgroup-mp33.json")
	if err != nil {
		t.Fatal(err)
	}
	withFormats := func(rp512 int) string {
		return strings.Replace(string(capture), `"relative_performance": 0
        }
      ]`, fmt.Sprintf(`"relative_performance": %d
        },
        {
          "formatted": false,
          "data_bytes": 4096,
          "metadata_bytes": 0,
          "relative_performance": 1
        }
      ]`, rp512), 1)
	}
	root := func(t *testing.T, json string) string {
		dir := filepath.Join(t.TempDir(), "m")
		if out, err := exec.Command("cp", "-a", "../fixtures/nvme-lbaf-512-kioxia-exceria-pro", dir).CombinedOutput(); err != nil {
			t.Fatalf("cp: %v %s", err, out)
		}
		for p, s := range map[string]string{
			"commands/manifest.yaml": "- argv: [dmesg]\n  stdout: dmesg.txt\n- argv: [smartctl, -x, -n, standby, -j, /dev/nvme0n1]\n  stdout: smartctl.json\n",
			"commands/smartctl.json": json,
		} {
			if err := writeFile(filepath.Join(dir, p), s); err != nil {
				t.Fatal(err)
			}
		}
		return dir
	}
	o, env := recordedObservation(t, root(t, withFormats(2)), "nvme0n1", nvmeLBAF)
	if o.Get("nvme_lbaf_suboptimal") != true || o.Get("nvme_lbaf_best") != "4096 B blocks (lbaf 1, relative performance 1: better)" {
		t.Errorf("suboptimal %v, best %v", o.Get("nvme_lbaf_suboptimal"), o.Get("nvme_lbaf_best"))
	}
	if ev := o.EvidenceOf("nvme_lbaf_in_use"); len(ev) != 1 || ev[0].Source != "smartctl -x -n standby -j /dev/nvme0n1" || ev[0].Value != "formatted: lba_formats[0]: data_bytes 512, metadata_bytes 0, relative_performance 2" {
		t.Errorf("evidence %+v", ev)
	}
	if n := len(env.skips.list()); n != 0 {
		t.Errorf("skipped %+v", env.skips.list())
	}
	if o, _ := recordedObservation(t, root(t, withFormats(1)), "nvme0n1", nvmeLBAF); o.Get("nvme_lbaf_suboptimal") != false {
		t.Errorf("4 KiB at the same rp: suboptimal %v", o.Get("nvme_lbaf_suboptimal"))
	}
	old := strings.Replace(string(capture), `"lba_formats"`, `"lba_formats_not_printed"`, 1)
	h, err := machine.Recorded(root(t, old))
	if err != nil {
		t.Fatal(err)
	}
	env = newEnv(h, Options{ProbeTimeout: 5 * time.Second})
	if obs := nvmeLBAF(t.Context(), env); len(obs) != 0 {
		t.Errorf("an observation without lba_formats: %+v", obs[0])
	}
	if s := env.skips.list(); len(s) != 1 || s[0].Check != "nvme id-ns" {
		t.Errorf("skipped %+v, want nvme id-ns's", s)
	}
}
