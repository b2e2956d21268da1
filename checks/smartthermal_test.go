package checks

import (
	"testing"

	"github.com/diskdoctor/diskdoctor/internal/testutil"
	"github.com/diskdoctor/diskdoctor/probes/smart"
)

// Real smartctl -x -j captures of four NVMe drives, none ever above its
// temperature limits: both counters read, both 0 (no thermal history
// finding); a SATA drive has none.
func TestNVMeThermalFactsOnRealCaptures(t *testing.T) {
	for _, name := range []string{"nvme-intel-P4500-wear-75pct.json", "nvme-sabrent-rocket4-errlog-entries.json", "nvme-samsung-970evo-media-errors.json", "nvme-samsung-MZWLL3T2HAJQ-critical-warning.json"} {
		s, err := smart.ParseJSON(testutil.ReadSample(t, "smartctl/"+name))
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		o := SMARTObservation("nvme0n1", s)
		for _, f := range []string{"smart_nvme_warning_temp_min", "smart_nvme_critical_temp_min"} {
			if got := o.Get(f); got != uint64(0) {
				t.Errorf("%s: %s = %v (%T), want 0", name, f, got, got)
			}
			if len(o.EvidenceOf(f)) != 1 {
				t.Errorf("%s: %s evidence %+v", name, f, o.EvidenceOf(f))
			}
		}
	}
	o := SMARTObservation("sda", &smart.Info{Passed: boolp(true)})
	if o.Get("smart_nvme_warning_temp_min") != nil || o.Get("smart_nvme_critical_temp_min") != nil {
		t.Error("a drive without the NVMe log has thermal minutes")
	}
}
