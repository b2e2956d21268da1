package diff

import (
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/diskdoctor/diskdoctor/rules"
)

const fixturesDir = "../fixtures"

var diffOpts = Options{ProbeTimeout: time.Second, Context: "auto"}

func changeKeys(d *Diff) []string {
	var out []string
	for _, c := range d.Changes {
		out = append(out, c.Subject+" "+c.Fact+" "+valueText(c.Old)+" -> "+valueText(c.New))
	}
	sort.Strings(out)
	return out
}

func findingRefs(fs []FindingRef) []string {
	var out []string
	for _, f := range fs {
		out = append(out, f.Rule+" "+f.Severity+" "+f.Subject)
	}
	sort.Strings(out)
	return out
}

// The upgrade pair differs by exactly a kernel upgrade that changed sdb's
// scheduler, dropped the NVMe link to x2 and reset sda's write cache to
// write-through: the diff lists exactly those, and the new findings.
var (
	upgradeChanges = []string{
		"host kernel 6.1.0-26-amd64 -> 6.1.0-28-amd64",
		"nvme0n1 pcie_cur_width 4 -> 2",
		"sda wc_drive_enabled yes -> no",
		"sda wc_kernel_on yes -> no",
		"sda wc_scsi_cache_type write back -> write through",
		"sdb scheduler mq-deadline -> none",
	}
	upgradeFindings = []string{
		"io-scheduler-unsuited info sdb",
		"pcie-link-degraded warning nvme0n1",
		"write-cache-disabled critical sda",
	}
)

func TestDiffUpgradePair(t *testing.T) {
	before, after := filepath.Join(fixturesDir, "upgrade-before"), filepath.Join(fixturesDir, "upgrade-after")
	d, err := Sides(t.Context(), before, after, diffOpts)
	if err != nil {
		t.Fatal(err)
	}
	if got := changeKeys(d); !slices.Equal(got, upgradeChanges) {
		t.Errorf("changes:\n  got  %q\n  want %q", got, upgradeChanges)
	}
	if got := findingRefs(d.Findings.Appeared); !slices.Equal(got, upgradeFindings) {
		t.Errorf("appeared:\n  got  %q\n  want %q", got, upgradeFindings)
	}
	if len(d.Findings.Resolved) != 0 || len(d.Findings.Changed) != 0 || !d.Worse {
		t.Errorf("resolved %v, changed %v, worse %v", d.Findings.Resolved, d.Findings.Changed, d.Worse)
	}

	back, err := Sides(t.Context(), after, before, diffOpts)
	if err != nil {
		t.Fatal(err)
	}
	if back.Worse || len(back.Findings.Appeared) != 0 || !slices.Equal(findingRefs(back.Findings.Resolved), upgradeFindings) || len(back.Changes) != len(upgradeChanges) {
		t.Errorf("the way back: worse %v, appeared %v, resolved %v, %d changes", back.Worse, back.Findings.Appeared, back.Findings.Resolved, len(back.Changes))
	}

	same, err := Sides(t.Context(), before, before, diffOpts)
	if err != nil {
		t.Fatal(err)
	}
	if same.Worse || len(same.Changes) != 0 || len(same.Findings.Appeared)+len(same.Findings.Resolved)+len(same.Findings.Changed) != 0 {
		t.Errorf("a machine against itself: %+v", same)
	}
}

// The text report names every change and finding.
func TestDiffText(t *testing.T) {
	d, err := Sides(t.Context(), filepath.Join(fixturesDir, "upgrade-before"), filepath.Join(fixturesDir, "upgrade-after"), diffOpts)
	if err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	d.WriteText(&b, 200)
	for _, want := range []string{"WORSE", "6.1.0-26-amd64 → 6.1.0-28-amd64", "x4 → x2", "write back → write through", "on → off", "mq-deadline → none",
		"[write-cache-disabled] on sda", "[pcie-link-degraded] on nvme0n1", "[io-scheduler-unsuited] on sdb", "Findings resolved: none"} {
		if !strings.Contains(b.String(), want) {
			t.Errorf("text lacks %q:\n%s", want, b.String())
		}
	}
}

// SMART counters that grew are listed as grew; the power-on clock and the
// temperature are not compared; a device on one side only is added/removed.
func TestDiffSmartCounters(t *testing.T) {
	side := func(devs ...map[string]any) *state {
		return &state{report: &rules.Report{Devices: devs}, host: map[string]any{}}
	}
	a := side(map[string]any{"name": "nvme0n1", "smart_nvme_media_errors": 0, "smart_power_on_hours": 100, "smart_temp_c": 30, "smart_nvme_spare": 100},
		map[string]any{"name": "sdz", "model": "Old disk"})
	b := side(map[string]any{"name": "nvme0n1", "smart_nvme_media_errors": 12, "smart_power_on_hours": 150, "smart_temp_c": 45, "smart_nvme_spare": 90})
	d := compare(a, b)
	var got []string
	for _, c := range d.Changes {
		got = append(got, c.Subject+" "+c.Fact+" "+c.Kind)
	}
	want := []string{"nvme0n1 smart_nvme_media_errors grew", "nvme0n1 smart_nvme_spare changed", "sdz device removed"}
	if !slices.Equal(got, want) {
		t.Errorf("changes %q, want %q", got, want)
	}
}

// A side that is a fifo or a device is refused at once, not waited on.
func TestDiffRefusesASideThatIsNotARegularFile(t *testing.T) {
	fifo := filepath.Join(t.TempDir(), "fifo")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{fifo, "/dev/null"} {
		done := make(chan error, 1)
		go func() {
			_, err := Sides(t.Context(), p, filepath.Join(fixturesDir, "upgrade-before"), diffOpts)
			done <- err
		}()
		select {
		case err := <-done:
			if err == nil || !strings.Contains(err.Error(), "not a regular file") {
				t.Errorf("diff with %s as a side: %v, want a refusal", p, err)
			}
		case <-time.After(10 * time.Second):
			t.Fatalf("diff with %s as a side blocks", p)
		}
	}
}

// diff judges each side with the machine's own datasheets
// (etc/diskdoctor/datasheets.d of a recorded machine), as the doctor does:
// the expectation a finding names is the admin's entry.
func TestDiffUsesTheMachinesDatasheets(t *testing.T) {
	root := filepath.Join(t.TempDir(), "root")
	if out, err := exec.Command("cp", "-a", filepath.Join(fixturesDir, "hpe-microserver-writethrough"), root).CombinedOutput(); err != nil {
		t.Fatalf("copy: %v\n%s", err, out)
	}
	dir := filepath.Join(root, rules.DatasheetsDir)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	lab := "models:\n  - match: '^WDC WDS200T1R0A'\n    product: WD Red SA500 2TB (lab figure)\n    class: sata-ssd\n    interface: sata\n    seq_write_mbs: 410\n    volatile_cache: true\n    source: lab fio runs, datasheets.d\n"
	if err := os.WriteFile(filepath.Join(dir, "50-lab.yaml"), []byte(lab), 0o644); err != nil {
		t.Fatal(err)
	}
	s, err := examineSide(t.Context(), root, diffOpts)
	if err != nil {
		t.Fatal(err)
	}
	found := false
	for _, f := range s.report.Findings {
		found = found || strings.Contains(f.Expected, "lab fio runs, datasheets.d")
	}
	if !found {
		t.Errorf("no finding of diff's side names the machine's own datasheet")
	}
}

// A controller volume whose battery failed between two snapshots shows
// the controller's cache, battery and write policy changing, not the
// kernel's view (which stays "write through" on such volumes).
func TestDiffControllerVolume(t *testing.T) {
	side := func(cache, battery, policy string) *state {
		return &state{report: &rules.Report{Devices: []map[string]any{{"name": "sda", "controller_volume": true,
			"ctl_cache_state": cache, "ctl_energy_status": battery, "ctl_policy_current": policy, "wc_kernel_on": false}}}, host: map[string]any{}}
	}
	got := changeKeys(compare(side("ok", "Optimal", "write-back"), side("disabled", "Failed", "write-through")))
	want := []string{
		"sda ctl_cache_state ok -> disabled",
		"sda ctl_energy_status Optimal -> Failed",
		"sda ctl_policy_current write-back -> write-through",
	}
	if !slices.Equal(got, want) {
		t.Errorf("changes %q, want %q", got, want)
	}
}
