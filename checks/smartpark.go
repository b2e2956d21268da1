package checks

import (
	"fmt"
	"strconv"
)

// headParking sets what SMART says about the heads' load/unload cycles
// and the drive's APM level: smart_load_cycles (Load_Cycle_Count, ATA
// attribute 193, raw), smart_load_cycles_per_hour (over the power-on
// hours), smart_apm_enabled and smart_apm_level. Each is nil when the
// drive does not report it (an SSD, NVMe, a recording without -g apm).
// Part of the smart check: it reads the same smartctl answer.
func (f *smartFacts) headParking() {
	s, o := f.s, f.o
	lc := s.LoadCycles()
	if lc == nil {
		o.Set("smart_load_cycles", nil)
		o.Set("smart_load_cycles_per_hour", nil)
	} else {
		o.Set("smart_load_cycles", *lc, f.ev("Load_Cycle_Count (193) raw: "+strconv.FormatUint(*lc, 10)))
		if s.PowerOnHours != nil && *s.PowerOnHours > 0 {
			rate := float64(*lc) / float64(*s.PowerOnHours)
			o.Set("smart_load_cycles_per_hour", round(rate, 1),
				f.ev(fmt.Sprintf("Load_Cycle_Count %d over power_on_time.hours %d", *lc, *s.PowerOnHours)))
		} else {
			o.Set("smart_load_cycles_per_hour", nil)
		}
	}
	switch {
	case s.APM == nil:
		o.Set("smart_apm_enabled", nil)
		o.Set("smart_apm_level", nil)
	case !s.APM.Enabled:
		o.Set("smart_apm_enabled", false, f.ev("ata_apm.enabled: false"))
		o.Set("smart_apm_level", nil)
	case s.APM.Level != nil:
		o.Set("smart_apm_enabled", true, f.ev("ata_apm.enabled: true"))
		o.Set("smart_apm_level", *s.APM.Level, f.ev("ata_apm.level: "+strconv.Itoa(*s.APM.Level)))
	default:
		o.Set("smart_apm_enabled", true, f.ev("ata_apm.enabled: true"))
		o.Set("smart_apm_level", nil)
	}
}
