package checks_test

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/diskdoctor/diskdoctor/checks"
	"github.com/diskdoctor/diskdoctor/internal/testutil"
	"github.com/diskdoctor/diskdoctor/machine"
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

// countingRunner counts the commands a run starts, by program.
type countingRunner struct {
	machine.Runner
	mu sync.Mutex
	n  map[string]int
}

func (c *countingRunner) Run(ctx context.Context, argv []string) (machine.CmdResult, error) {
	c.mu.Lock()
	c.n[argv[0]]++
	c.mu.Unlock()
	return c.Runner.Run(ctx, argv)
}

// A controller tool that hangs (recorded with timeout: true) is asked
// once, not once per command (each would wait the probe timeout), and
// leaves the volume's cache unknown with a skipped entry that says the
// tool did not answer.
func TestControllerToolHang(t *testing.T) {
	h, err := machine.Recorded("../fixtures/controller-cli-hang")
	if err != nil {
		t.Fatal(err)
	}
	counter := &countingRunner{n: map[string]int{}}
	h = h.WrapRunner(func(r machine.Runner) machine.Runner { counter.Runner = r; return counter })
	res, err := checks.Run(t.Context(), h, checks.Options{ProbeTimeout: 200 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	if n := counter.n["storcli64"]; n != 1 {
		t.Errorf("storcli64 ran %d times, want 1: a hung controller hangs every command", n)
	}
	for _, o := range res.Observations {
		if o.Subject == "sda" && o.Check == "controller" && o.Get("ctl_cache_state") != "unknown" {
			t.Errorf("ctl_cache_state %v, want unknown", o.Get("ctl_cache_state"))
		}
	}
	if !slices.ContainsFunc(res.Skipped, func(s checks.Skipped) bool {
		return s.Check == "controller" && strings.Contains(s.Reason, "timed out") && strings.Contains(s.Hint, "did not answer")
	}) {
		t.Errorf("no skipped entry for the hung tool: %+v", res.Skipped)
	}
}

// The SMART skip of a volume behind a controller the doctor does not read
// the drives of (aacraid) says so, rather than pointing at the controller
// check's smartctl -d megaraid/cciss reads.
func TestSMARTSkipBehindAdaptec(t *testing.T) {
	h, err := machine.Recorded("../fixtures/arcconf-zmm-healthy")
	if err != nil {
		t.Fatal(err)
	}
	res, err := checks.Run(t.Context(), h, checks.Options{ProbeTimeout: time.Second})
	if err != nil {
		t.Fatal(err)
	}
	found := false
	for _, s := range res.Skipped {
		if s.Check != "smartctl -x -n standby -j" {
			continue
		}
		found = true
		if strings.Contains(s.Hint, "megaraid") || !strings.Contains(s.Hint, "aacraid,H,L,ID") || strings.Contains(s.Reason, "a aacraid") {
			t.Errorf("%v: %s (hint: %s)", s.Subjects, s.Reason, s.Hint)
		}
	}
	if !found {
		t.Fatal("no SMART skip for the Adaptec volumes")
	}
}
