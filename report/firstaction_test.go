package report

import (
	"bytes"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/diskdoctor/diskdoctor/doctor"
	"github.com/diskdoctor/diskdoctor/probes/window"
	"github.com/diskdoctor/diskdoctor/rules"
)

// The last lines' first action is what fixes or contains the top finding,
// never a look when a fix exists: the failing drive's locate command,
// copying the data off a failing disk, pausing the process that keeps a
// device saturated, bringing the tool a check lacked.
func TestFirstActionFixesOrContains(t *testing.T) {
	for _, c := range []struct {
		name   string
		rep    func() *rules.Report
		risk   string
		prefix string
	}{
		{"megacli-failed-drive", func() *rules.Report { return plainReport(t, "megacli-failed-drive") }, rules.RiskRuntime, "MegaCli64 -PdLocate -start '-PhysDrv[1:0]' -a0"},
		{"nvme-media-errors", func() *rules.Report { return plainReport(t, "nvme-media-errors") }, "", "copy off what matters, before anything else"},
		{"sata-hdd-pending-sectors", func() *rules.Report { return plainReport(t, "sata-hdd-pending-sectors") }, "", "copy off what matters, before anything else"},
		{"hpe-microserver-writethrough", func() *rules.Report { return plainReport(t, "hpe-microserver-writethrough") }, rules.RiskRuntime, "hdparm -W1 "},
		{"sata-saturated-nvme-idle with its window", func() *rules.Report { return fixtureReport(t, "sata-saturated-nvme-idle") }, rules.RiskRuntime, "kill -STOP 3121"},
		{"controller-cli-missing", func() *rules.Report { return plainReport(t, "controller-cli-missing") }, "", "ssacli, hpssacli or hpacucli was not installed"},
		// Where no command changes anything, the rule's first step does:
		// a part to replace, space to free, a rebuild to let finish.
		{"arcconf-battery-failed", func() *rules.Report { return plainReport(t, "arcconf-battery-failed") }, "", "replace the controller's battery or capacitor module"},
		// A drive already replaced and rebuilding: let it finish.
		{"megacli-rebuild", func() *rules.Report { return plainReport(t, "megacli-rebuild") }, "", "let the controller's rebuild (rebuild on a0 drive 1:0) finish"},
		{"arcconf-rebuild-no-zmm", func() *rules.Report { return plainReport(t, "arcconf-rebuild-no-zmm") }, "", "let the controller's rebuild (rebuild on c1 drive 0,3) finish"},
		{"ext4-root-full", func() *rules.Report { return plainReport(t, "ext4-root-full") }, "", "free space on / "},
		{"multipath-path-failed", func() *rules.Report { return plainReport(t, "multipath-path-failed") }, "", "fix the failed paths' cables"},
		{"md-raid-smr-rebuild", func() *rules.Report { return plainReport(t, "md-raid-smr-rebuild") }, "", "let the recovery of md0 finish"},
		{"hba-sas3-dead-ioc", func() *rules.Report { return plainReport(t, "hba-sas3-dead-ioc") }, "", "power-cycle the host"},
	} {
		acts := firstActions(c.rep())
		if len(acts) == 0 {
			t.Errorf("%s: no first action", c.name)
			continue
		}
		if a := acts[0]; a.risk != c.risk || !strings.HasPrefix(a.text, c.prefix) {
			t.Errorf("%s: first action [%s] %q, want [%s] %q…", c.name, a.risk, a.text, c.risk, c.prefix)
		}
		for _, a := range acts[1:] {
			if acts[0].risk == rules.RiskReadOnly && (a.risk == rules.RiskRuntime || a.risk == rules.RiskPersistent) {
				t.Errorf("%s: a look before a fix: %+v", c.name, acts)
			}
		}
	}
}

// The first action covers every device of the finding, as Fix first's
// consolidated command does, not the first device's alone.
func TestFirstActionCoversEveryDevice(t *testing.T) {
	acts := firstActions(plainReport(t, "md-raid1-spindown-standby"))
	if len(acts) == 0 {
		t.Fatal("no first action")
	}
	for _, want := range []string{"hdparm -S 0 ", "WD-WX12D81ABCDE", "S2H7J9FB203635"} {
		if !strings.Contains(acts[0].text, want) {
			t.Errorf("first action %q lacks %q", acts[0].text, want)
		}
	}
}

// A report not ready for a benchmark (a warning with no warning finding,
// ready false, not_ready) is valid against docs/schema, and its text
// verdict names what was measured.
func TestNotReadyReportMatchesTheSchema(t *testing.T) {
	rep, err := doctor.Examine(t.Context(), doctor.Options{Root: filepath.Join(fixturesDir, "nvme-busy-healthy"), Context: "benchmark", Sample: 5 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	var b bytes.Buffer
	if err := renderJSON(&b, rep, RunInfo{}); err != nil {
		t.Fatal(err)
	}
	if err := validateJSON(t, compileSchema(t), b.Bytes()); err != nil {
		t.Errorf("not ready: the JSON does not match the schema:\n%v", err)
	}
	if v, _ := verdictLine(newPalette(nil, false), rep); !strings.HasPrefix(v, "NOT READY to benchmark: nvme0n1 100 % busy") || !strings.Contains(v, "25000 reads/s") {
		t.Errorf("verdict %q", v)
	}
}

// Fix first, on the first screen, never offers less than the last lines'
// First: where First contains a process because the finding's own
// commands only look, Fix first starts with the same command.
func TestFixFirstStartsWithTheContainment(t *testing.T) {
	rep := fixtureReport(t, "sata-saturated-nvme-idle")
	out := string(textOf(t, rep, textOptions{width: 80}))
	block := out[strings.Index(out, "Fix first"):]
	block = block[:strings.Index(block, "\n\n")]
	lines := strings.Split(block, "\n")
	if len(lines) < 2 || !strings.HasPrefix(strings.TrimSpace(lines[1]), "[runtime]     kill -STOP 3121") {
		t.Errorf("Fix first does not start with the pause First gives:\n%s", block)
	}
}

// Tasks stalled on I/O at the top, with a device kept busy by a process
// in the window: the first action contains that process, as the rule's
// step asks, rather than looking for it again.
func TestIOPressureFirstContainsTheProcess(t *testing.T) {
	rep := busyReport("auto", window.DeviceRates{WS: 400, WMBs: 800, UtilPct: 90})
	rep.Verdict = rules.VerdictWarning
	rep.Findings = []rules.Finding{{Rule: "io-pressure-high", Severity: rules.Warning, Title: "Tasks spend much of their time stalled on I/O", Subjects: []string{"host"},
		Remediation: []rules.Remediation{{Command: "iotop -o -b -n 3", Risk: rules.RiskReadOnly}},
		FirstStep:   "find the device and process the stalls wait on (iotop -o, iostat -x 1 5): pause or ionice that process, or fix the slow device"}}
	acts := firstActions(rep)
	if len(acts) == 0 || acts[0].text != "kill -STOP 4242" {
		t.Errorf("first actions %+v, want kill -STOP 4242 first", acts)
	}
}

// The verdict names what a check that did not run examines: nvme
// get-feature 0x06 reads the Volatile Write Cache feature (NVM Express
// Base Specification, Feature Identifier 06h), not power states.
func TestIncompleteNamesWhatTheCheckReads(t *testing.T) {
	got := incompleteText([]rules.Incomplete{{Check: "nvme get-feature -f 0x06", Subjects: []string{"nvme0n1"}, Reason: "nvme: not recorded"}})
	if !strings.HasPrefix(got, "nvme0n1's drive write cache could not be examined") || strings.Contains(got, "APST") {
		t.Errorf("%q", got)
	}
}
