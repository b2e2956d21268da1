package checks_test

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/diskdoctor/diskdoctor/checks"
	"github.com/diskdoctor/diskdoctor/internal/testutil"
)

// addCommand records one more command's output in a copied machine.
func addCommand(t *testing.T, root string, argv []string, out []byte) {
	t.Helper()
	name := "extra-" + strings.ReplaceAll(strings.Join(argv[1:], "_"), "/", "_") + ".out"
	testutil.WriteFile(t, filepath.Join(root, "commands", name), string(out))
	f, err := os.OpenFile(filepath.Join(root, "commands", "manifest.yaml"), os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	quoted := make([]string, len(argv))
	for i, a := range argv {
		quoted[i] = `"` + a + `"`
	}
	if _, err := f.WriteString("- argv: [" + strings.Join(quoted, ", ") + "]\n  stdout: " + name + "\n"); err != nil {
		t.Fatal(err)
	}
}

// The M5015's drive 252:0 is device id 34: its SMART is read with
// smartctl -d megaraid,34 through the volume, and counts only when the
// serial it answers with is the drive's. The answer is a real smartctl
// JSON of a drive behind a MegaRAID (../shared/samples), whose serial is
// not the M5015 drive's: first as it is, then with the drive's serial set
// to it in the controller's output, and with its health failed.
func TestSMARTThroughTheController(t *testing.T) {
	sample := testutil.ReadSample(t, "smartctl/sata-hdd-seagate-ST6000NM0115-megaraid.json")
	argv := []string{"smartctl", "-x", "-n", "standby", "-j", "-d", "megaraid,34", "/dev/sda"}

	root := copyFixture(t, "megaraid-healthy-bbu")
	addCommand(t, root, argv, sample)
	facts, skipped := observeRoot(t, root)
	if got := facts["device/sda"]["ctl_failing_drives"]; len(got.([]string)) != 0 {
		t.Errorf("failing drives %v from another drive's answer", got)
	}
	if !slices.ContainsFunc(skipped, func(s checks.Skipped) bool {
		return s.Check == "smartctl through the controller" && strings.Contains(s.Reason, `answered for serial "ZAD2C11G"`)
	}) {
		t.Errorf("no skipped entry for the serial mismatch: %+v", skipped)
	}

	root = copyFixture(t, "megaraid-healthy-bbu")
	drives := filepath.Join(root, "commands", "storcli64-call-eall-sall-show-all-J.json")
	b, err := os.ReadFile(drives)
	if err != nil {
		t.Fatal(err)
	}
	testutil.WriteFile(t, drives, strings.Replace(string(b), "ZL2PVFA8", "ZAD2C11G", 1))
	addCommand(t, root, argv, []byte(strings.Replace(string(sample), `"passed": true`, `"passed": false`, 1)))
	facts, _ = observeRoot(t, root)
	got, _ := facts["device/sda"]["ctl_failing_drives"].([]string)
	if !slices.Contains(got, "252:0 SMART overall-health FAILED") {
		t.Errorf("failing drives %v, want 252:0's failed SMART health", got)
	}
}
