package checks

import (
	"os"
	"testing"

	"github.com/diskdoctor/diskdoctor/probes/smart"
)

// The head-parking facts from real smartctl -x -j answers of the corpus:
// a WD2500BEVS behind a JMicron bridge (39785 load cycles at 4374 hours,
// APM enabled at 128) and a WD140EDFZ (329 at 1730 hours, no ata_apm).
func TestHeadParkingFacts(t *testing.T) {
	tests := []struct {
		file string
		want map[string]any
	}{
		{"../fixtures/corpus/smartctl-7.3-usb-jmicron-exit4-healthy/smartctl.json", map[string]any{
			"smart_load_cycles": uint64(39785), "smart_load_cycles_per_hour": 9.1, "smart_apm_enabled": true, "smart_apm_level": 128}},
		{"../fixtures/corpus/smartctl-7.0-sat-wdc-wd140edfz-healthy/smartctl.json", map[string]any{
			"smart_load_cycles": uint64(329), "smart_load_cycles_per_hour": 0.2, "smart_apm_enabled": nil, "smart_apm_level": nil}},
		{"../fixtures/md-raid1-desktop-drive-no-erc/commands/smartctl-x-sdc.json", map[string]any{
			"smart_load_cycles": nil, "smart_apm_enabled": false, "smart_apm_level": nil}},
	}
	for _, tt := range tests {
		b, err := os.ReadFile(tt.file)
		if err != nil {
			t.Fatal(err)
		}
		s, err := smart.ParseJSON(b)
		if err != nil {
			t.Fatalf("%s: %v", tt.file, err)
		}
		o := SMARTObservation("sda", s)
		for name, want := range tt.want {
			if got := o.Get(name); got != want {
				t.Errorf("%s: %s = %#v, want %#v", tt.file, name, got, want)
			}
		}
	}
}
