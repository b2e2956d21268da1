package checks

import "fmt"

// nvmeThermal: the minutes the NVMe controller has run at or above its
// warning (WCTEMP) and critical (CCTEMP) composite temperature over its
// life, from the SMART / Health Information log (NVM Express Base
// Specification, log page 02h: Warning Composite Temperature Time and
// Critical Composite Temperature Time, bytes 192-199). smartctl -j names
// them warning_temp_time and critical_comp_time (smartmontools
// nvmeprint.cpp); it prints the thermal management transition counts and
// times only as text, so they are not read here.
func (f *smartFacts) nvmeThermal() {
	o, n := f.o, f.s.NVMe
	if n == nil {
		o.Set("smart_nvme_warning_temp_min", nil)
		o.Set("smart_nvme_critical_temp_min", nil)
		return
	}
	o.Set("smart_nvme_warning_temp_min", n.WarningTempTime, f.ev(fmt.Sprintf("warning_temp_time: %d", n.WarningTempTime)))
	o.Set("smart_nvme_critical_temp_min", n.CriticalTempTime, f.ev(fmt.Sprintf("critical_comp_time: %d", n.CriticalTempTime)))
}
