package checks_test

import (
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/diskdoctor/diskdoctor/checks"
	"github.com/diskdoctor/diskdoctor/internal/testutil"
	"github.com/diskdoctor/diskdoctor/machine"
	"github.com/diskdoctor/diskdoctor/rules"
)

// The disk of partition-misaligned-swap (a WD10EZEX whose sda2 is a swap
// partition by fdisk's type 82) with that partition active in a
// /proc/swaps built here (the report gives no /proc/swaps): a warning on
// sda under --context benchmark only; nothing when swap is elsewhere or
// /proc/swaps is not recorded.
func TestSwapOnBenchmarkTarget(t *testing.T) {
	const head = "Filename\t\t\t\tType\t\tSize\t\tUsed\t\tPriority\n"
	for _, c := range []struct {
		name, context, swaps string
		want                 bool
	}{
		{"swap partition, benchmark", "benchmark", head + "/dev/sda2                               partition\t18064980\t0\t\t-2\n", true},
		{"swap partition, no benchmark", "auto", head + "/dev/sda2                               partition\t18064980\t0\t\t-2\n", false},
		{"zram only", "benchmark", head + "/dev/zram0                              partition\t8388604\t\t0\t\t100\n", false},
		{"swap off", "benchmark", head, false},
		{"not recorded", "benchmark", "", false},
	} {
		t.Run(c.name, func(t *testing.T) {
			root := t.TempDir()
			testutil.CopyTree(t, root, filepath.Join("..", "fixtures", "partition-misaligned-swap"))
			if c.swaps != "" {
				testutil.Must(t, os.WriteFile(filepath.Join(root, "proc", "swaps"), []byte(c.swaps), 0o644))
			}
			h, err := machine.Recorded(root)
			testutil.Must(t, err)
			res, err := checks.Run(t.Context(), h, checks.Options{ProbeTimeout: time.Second, Context: c.context, Disabled: []string{"smart"}})
			testutil.Must(t, err)
			fs, err := engineWith(t, "swap-on-benchmark-target").Judge(res)
			testutil.Must(t, err)
			if !c.want {
				if len(fs) != 0 {
					t.Errorf("findings %+v", fs)
				}
				return
			}
			if len(fs) != 1 || fs[0].Severity != "warning" || !slices.Equal(fs[0].Subjects, []string{"sda"}) {
				t.Fatalf("findings %+v", fs)
			}
			cmds := ""
			for _, r := range fs[0].Remediation {
				cmds += r.Risk + ": " + r.Command + "\n"
			}
			if !slices.ContainsFunc(fs[0].Remediation, func(r rules.Remediation) bool { return r.Command == "swapoff /dev/sda2" && r.Risk == "runtime" }) {
				t.Errorf("remediation:\n%s", cmds)
			}
		})
	}
}
