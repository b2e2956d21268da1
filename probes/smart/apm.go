package smart

// APM is the drive's Advanced Power Management setting (ATA8-ACS SET
// FEATURES 05h; IDENTIFY word 83 bit 3 supported, word 86 bit 3 enabled,
// word 91 the level), as smartctl -x reports it under "ata_apm" (its -g
// apm): enabled false, or enabled with a level 1-254. Levels 1-127 permit
// standby, 128-254 do not; below 128, and on many drives below 254, the
// firmware unloads the heads after short idle periods.
type APM struct {
	Enabled bool
	Level   *int // nil when disabled or not printed
}

// apmJSON is smartctl's "ata_apm" object (smartmontools ataprint.cpp).
type apmJSON struct {
	Enabled *bool `json:"enabled"`
	Level   *int  `json:"level"`
}

// readAPM sets s.APM from smartctl's "ata_apm"; nil where the object is
// absent (no -g apm, a drive without APM, NVMe).
func (s *Info) readAPM(a *apmJSON) {
	if a == nil || a.Enabled == nil {
		return
	}
	s.APM = &APM{Enabled: *a.Enabled}
	if *a.Enabled && a.Level != nil && *a.Level >= 1 && *a.Level <= 254 {
		l := *a.Level
		s.APM.Level = &l
	}
}

// LoadCycles is the raw Load_Cycle_Count (ATA attribute 193, the heads'
// load/unload cycles: drivedb.h's default name), nil when the table has
// none.
func (s *Info) LoadCycles() *uint64 {
	for _, a := range s.Attributes {
		if a.ID == 193 {
			v := a.Raw
			return &v
		}
	}
	return nil
}
