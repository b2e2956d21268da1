package smart

import (
	"os"
	"testing"
)

// smartctl's rotation_rate on real captures: an Intel SATA SSD (0, "Solid
// State Device") and a WD hard disk behind a USB bridge (5400 rpm).
func TestRotationRate(t *testing.T) {
	for path, want := range map[string]int{
		"../../fixtures/corpus/smartctl-7.3-sat-intel-ssd-link-3g-of-6g/smartctl.json":     0,
		"../../fixtures/corpus/smartctl-7.3-usb-jmicron-realloc-failing-now/smartctl.json": 5400,
	} {
		b, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		s, err := ParseJSON(b)
		if err != nil {
			t.Fatal(err)
		}
		if s.RotationRPM == nil {
			t.Errorf("%s: no rotation rate", path)
			continue
		}
		if *s.RotationRPM != want {
			t.Errorf("%s: %d", path, *s.RotationRPM)
		}
	}
	if s, err := ParseJSON([]byte(`{"smartctl":{"exit_status":0},"device":{"protocol":"ATA"},"model_name":"X","rotation_rate":-5}`)); err == nil && s.RotationRPM != nil {
		t.Errorf("negative rate kept: %d", *s.RotationRPM)
	}
}
