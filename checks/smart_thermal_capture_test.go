package checks_test

import (
	"os"
	"strings"
	"testing"

	"github.com/diskdoctor/diskdoctor/checks"
	"github.com/diskdoctor/diskdoctor/probes/smart"
	"github.com/diskdoctor/diskdoctor/rules"
)

// A real NVMe health log with thermal history (a Memblaze PBlaze6 6536 on
// AOSC's crowdfunding page, 2025-12-04; testdata/aosc-2025-pblaze6-nvme-
// warning-temp/README.md says which text lines became which JSON keys):
// 8877 minutes at or above its warning composite temperature, none at the
// critical one, 51 °C now. nvme-thermal-throttling-history is then a note
// (warning time only), and neither smart-failing (health passed, no media
// errors) nor smart-temperature (no limit reached now) joins it. The
// healthy counterpart is a real HGST SN200 log with both counters at 0
// (fixtures/corpus/smartctl-7.1-nvme-hgst-sn200-healthy): no finding.
func TestNVMeThermalHistoryRealCapture(t *testing.T) {
	judge := func(path, dev string) ([]rules.Finding, *checks.Observation) {
		t.Helper()
		b, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		s, err := smart.ParseJSON(b)
		if err != nil {
			t.Fatal(err)
		}
		s.Source = "smartctl.json"
		o := checks.SMARTObservation(dev, s)
		e := engineWith(t, "nvme-thermal-throttling-history", "smart-failing", "smart-temperature")
		fs, err := e.Judge(&checks.Result{Observations: []*checks.Observation{inventory(dev, "nvme"), o}})
		if err != nil {
			t.Fatal(err)
		}
		return fs, o
	}

	fs, o := judge("testdata/aosc-2025-pblaze6-nvme-warning-temp/smartctl.json", "nvme1n1")
	if w, c := o.Get("smart_nvme_warning_temp_min"), o.Get("smart_nvme_critical_temp_min"); w != uint64(8877) || c != uint64(0) {
		t.Fatalf("warning/critical minutes = %v/%v, want 8877/0", w, c)
	}
	if got := verdicts(fs); len(got) != 1 || got[0] != "nvme-thermal-throttling-history "+rules.Info+" nvme1n1" {
		t.Fatalf("findings = %v, want nvme-thermal-throttling-history info on nvme1n1 only", got)
	}
	var ev []string
	for _, e := range fs[0].Evidence {
		ev = append(ev, e.Source+": "+e.Value)
	}
	if !strings.Contains(strings.Join(ev, "\n"), "smartctl.json: warning_temp_time: 8877") {
		t.Errorf("evidence = %q, want the drive's warning_temp_time: 8877", ev)
	}
	if !strings.Contains(fs[0].Observed, "8877 min at or above the warning temperature") {
		t.Errorf("observed = %q", fs[0].Observed)
	}

	if fs, _ := judge("../fixtures/corpus/smartctl-7.1-nvme-hgst-sn200-healthy/smartctl.json", "nvme0"); len(fs) != 0 {
		t.Errorf("findings on the healthy SN200 = %v, want none", verdicts(fs))
	}
}
