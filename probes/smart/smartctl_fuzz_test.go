package smart

import "testing"

// FuzzParseSmartctlJSON: any bytes either parse into a report with a
// protocol section or fail with an error; none panic.
func FuzzParseSmartctlJSON(f *testing.F) {
	for _, s := range []string{
		`{"smartctl": {"exit_status": 0}, "smart_status": {"passed": true}}`,
		`{"smartctl": {"exit_status": 216}, "device": {"protocol": "ATA"}, "smart_status": {"passed": false}, "interface_speed": {"max": {"units_per_second": 60, "bits_per_unit": 100000000, "string": "6.0 Gb/s"}, "current": {"units_per_second": 15, "bits_per_unit": 100000000}}, "ata_smart_attributes": {"table": [{"id": 5, "name": "Reallocated_Sector_Ct", "value": 1, "worst": 1, "thresh": 5, "when_failed": "now", "flags": {"prefailure": true}, "raw": {"value": 1975, "string": "1975"}}]}, "temperature": {"current": 25}}`,
		`{"smartctl": {"exit_status": 8}, "smart_status": {"passed": false, "nvme": {"value": 16}}, "nvme_smart_health_information_log": {"critical_warning": 16, "available_spare": 100, "available_spare_threshold": 10, "percentage_used": 0, "media_errors": 0}, "temperature": {"current": 40, "op_limit_max": 70, "critical_limit_max": 80}}`,
		`{"smartctl": {"exit_status": 0}, "scsi_grown_defect_list": 260, "scsi_error_counter_log": {"write": {"total_uncorrected_errors": 535}}, "temperature": {"current": 33, "drive_trip": 68}}`,
		`{"smartctl": {"exit_status": 2, "messages": [{"string": "Permission denied"}]}}`,
		`{"smartctl": {}, "ata_smart_attributes": {"table": [{"raw": {"value": 1e400}}]}}`,
		`[]`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		s, err := ParseJSON(b)
		if err != nil {
			return
		}
		if s.Passed == nil && s.Attributes == nil && s.NVMe == nil && s.SCSI == nil {
			t.Fatalf("parsed without any health data: %+v", s)
		}
		for _, a := range s.Attributes {
			_ = a.Failing()
		}
		if s.NVMe != nil {
			_ = s.NVMe.CriticalWarnings()
		}
	})
}
