package smart

import (
	"bytes"
	"encoding/json"
	"fmt"
	"regexp"
	"strconv"
	"strings"

	"github.com/diskdoctor/diskdoctor/internal/parse"
	"github.com/diskdoctor/diskdoctor/machine"
)

// Info is a drive's own health report: the overall verdict, the ATA
// attribute table, the NVMe SMART/health log or the SCSI error counters,
// whichever the drive speaks. It comes from `smartctl -x -j` (recordable,
// and what a user may already have) or, on a live machine without
// smartmontools, from smart.go. Fields a source does not report are nil.
type Info struct {
	Source   string // the command or interface it came from, for evidence
	Protocol string // ATA, NVMe, SCSI
	Model    string
	Serial   string
	Firmware string
	// ModelFamily is smartctl's name for the drive's family from its drive
	// database (drivedb.h), "" when the drive is not in it. The database
	// marks drive-managed SMR families with a trailing "(SMR)", e.g.
	// "Western Digital Red (SMR)" (smartmontools ticket #1313).
	ModelFamily string
	// RotationRPM is the drive's nominal media rotation rate (ATA IDENTIFY
	// word 217, SCSI Block Device Characteristics VPD page): 0 for a
	// non-rotating ("Solid State Device"), else rpm; nil when not reported.
	RotationRPM *int

	// Standby: the drive was asleep and left so (smartctl -n standby, or
	// CHECK POWER MODE before smart.go reads): "STANDBY", "SLEEP". Every
	// health field is then unknown, not failed.
	Standby string
	// StandbyUnknown: the answer came from an argv without -n standby (a
	// recording made before the doctor asked for it), which wakes a
	// sleeping drive: whether it was asleep is unknown.
	StandbyUnknown bool

	Passed *bool    // overall health; nil: not reported
	Exit   *int     // smartctl's exit status (a bit mask); nil for smart.go
	Notes  []string // smartctl's messages, "result is based on an Attribute check"

	Attributes []Attr // ATA, in table order

	NVMe *NVMeHealth
	SCSI *SCSIHealth

	TempC        *int // current temperature
	TempWarnC    *int // the drive's own warning threshold (NVMe WCTEMP, SCT op limit, SCSI trip)
	TempCritC    *int // the drive's critical threshold (NVMe CCTEMP, SCT limit)
	PowerOnHours *uint64

	// The drive's own write cache (ATA IDENTIFY word 85 bit 5, NVMe VWC
	// present) and TRIM support (IDENTIFY word 169 bit 0), where reported.
	WriteCache    *bool
	TrimSupported *bool
	// APM: the drive's Advanced Power Management (apm.go); nil unknown.
	APM *APM

	// ERC is the drive's SCT Error Recovery Control (ATA8-ACS SCT
	// command transport, function code 3): how long it retries a sector
	// before it reports the error. nil: smartctl did not report it (not
	// -x, not ATA, or the drive could not be asked).
	ERC *ERC

	// SATA interface speed (Gb/s), as the drive negotiated it and at most.
	LinkMaxGbps, LinkCurGbps float64
	LinkMax, LinkCur         string
}

// ERC is SCT Error Recovery Control as smartctl -x reports it
// (ata_sct_erc, ata_sct_capabilities).
type ERC struct {
	// Supported is false when the drive does not implement the command
	// (ata_sct_capabilities.error_recovery_control_supported false, or no
	// SCT at all); then the Read and Write fields are zero.
	Supported bool
	// ReadEnabled, WriteEnabled: a time limit is set; when false the
	// drive retries as long as its firmware wants (often minutes).
	ReadEnabled, WriteEnabled bool
	// ReadDS, WriteDS: the limits in deciseconds (70 = 7 s), where enabled.
	ReadDS, WriteDS int
}

// Attr is one row of the ATA SMART attribute table.
type Attr struct {
	ID         int
	Name       string
	Value      int // normalized current value
	Worst      int
	Thresh     int
	Raw        uint64
	RawString  string
	Prefail    bool
	WhenFailed string // "", "now", "past"
}

// Failing reports a pre-failure attribute at or below its threshold now.
func (a Attr) Failing() bool {
	return a.WhenFailed == "now" || (a.Prefail && a.Thresh > 0 && a.Value <= a.Thresh)
}

// NVMeHealth is the NVMe SMART / Health Information log page (02h) and the
// Identify Controller fields that go with it.
type NVMeHealth struct {
	CriticalWarning  int
	AvailableSpare   int
	SpareThreshold   int
	PercentUsed      int
	MediaErrors      uint64
	ErrLogEntries    uint64
	UnsafeShutdowns  uint64
	PowerOnHours     uint64
	WarningTempTime  uint64 // minutes above WCTEMP
	CriticalTempTime uint64 // minutes above CCTEMP
	VWC              *bool  // Identify Controller: volatile write cache present
}

// NVMe critical_warning bits (NVMe base specification, SMART / Health log).
var criticalWarningBits = []string{
	"available spare below threshold",
	"temperature outside its thresholds",
	"reliability degraded by media or internal errors",
	"media placed in read-only mode",
	"volatile memory backup device failed",
	"persistent memory region read-only or unreliable",
}

// CriticalWarnings names the bits set in critical_warning.
func (n *NVMeHealth) CriticalWarnings() []string {
	var out []string
	for i, s := range criticalWarningBits {
		if n.CriticalWarning&(1<<i) != 0 {
			out = append(out, s)
		}
	}
	if n.CriticalWarning>>len(criticalWarningBits) != 0 {
		out = append(out, fmt.Sprintf("reserved bits 0x%02x", n.CriticalWarning&^0x3f))
	}
	return out
}

// SCSIHealth is what a SCSI/SAS drive reports in place of attributes.
type SCSIHealth struct {
	GrownDefects      *uint64
	ReadUncorrected   *uint64
	WriteUncorrected  *uint64
	VerifyUncorrected *uint64
}

// Attr returns the ATA attribute with the id, if the drive has it.
func (s *Info) Attr(id int) (Attr, bool) {
	if s == nil {
		return Attr{}, false
	}
	for _, a := range s.Attributes {
		if a.ID == id {
			return a, true
		}
	}
	return Attr{}, false
}

// smartctl's exit status bits (smartctl(8), RETURN VALUES).
const (
	SmartctlCmdLineError  = 1 << 0
	SmartctlOpenFailed    = 1 << 1
	SmartctlCommandFailed = 1 << 2
	SmartctlDiskFailing   = 1 << 3
	SmartctlPrefailNow    = 1 << 4
	SmartctlPrefailPast   = 1 << 5
	SmartctlErrorLog      = 1 << 6
	SmartctlSelfTestLog   = 1 << 7
)

// smartctlJSON is the part of smartctl's JSON (smartmontools 7.x,
// json_format_version 1) that the doctor reads.
type smartctlJSON struct {
	Smartctl *struct {
		ExitStatus *int `json:"exit_status"`
		Messages   []struct {
			String   string `json:"string"`
			Severity string `json:"severity"`
		} `json:"messages"`
	} `json:"smartctl"`
	Device struct {
		Name     string `json:"name"`
		InfoName string `json:"info_name"`
		Type     string `json:"type"`
		Protocol string `json:"protocol"`
	} `json:"device"`
	ModelFamily     string `json:"model_family"`
	ModelName       string `json:"model_name"`
	SCSIModelName   string `json:"scsi_model_name"`
	SCSIProduct     string `json:"scsi_product"`
	SerialNumber    string `json:"serial_number"`
	FirmwareVersion string `json:"firmware_version"`
	SCSIRevision    string `json:"scsi_revision"`
	RotationRate    *int   `json:"rotation_rate"`
	SmartStatus     *struct {
		Passed *bool `json:"passed"`
	} `json:"smart_status"`
	InterfaceSpeed *struct {
		Max     *smartctlSpeed `json:"max"`
		Current *smartctlSpeed `json:"current"`
	} `json:"interface_speed"`
	Temperature *struct {
		Current          *int `json:"current"`
		DriveTrip        *int `json:"drive_trip"`
		OpLimitMax       *int `json:"op_limit_max"`
		LimitMax         *int `json:"limit_max"`
		CriticalLimitMax *int `json:"critical_limit_max"`
	} `json:"temperature"`
	PowerOnTime *struct {
		Hours *uint64 `json:"hours"`
	} `json:"power_on_time"`
	ATAAPM     *apmJSON `json:"ata_apm"`
	WriteCache *struct {
		Enabled *bool `json:"enabled"`
	} `json:"write_cache"`
	Trim *struct {
		Supported *bool `json:"supported"`
	} `json:"trim"`
	ATASmartAttributes *struct {
		Table []struct {
			ID         int    `json:"id"`
			Name       string `json:"name"`
			Value      int    `json:"value"`
			Worst      int    `json:"worst"`
			Thresh     int    `json:"thresh"`
			WhenFailed string `json:"when_failed"`
			Flags      struct {
				Prefailure bool `json:"prefailure"`
			} `json:"flags"`
			Raw struct {
				Value  json.Number `json:"value"`
				String string      `json:"string"`
			} `json:"raw"`
		} `json:"table"`
	} `json:"ata_smart_attributes"`
	NVMeLog *struct {
		CriticalWarning  *int   `json:"critical_warning"`
		Temperature      *int   `json:"temperature"`
		AvailableSpare   *int   `json:"available_spare"`
		SpareThreshold   *int   `json:"available_spare_threshold"`
		PercentageUsed   *int   `json:"percentage_used"`
		PowerOnHours     uint64 `json:"power_on_hours"`
		UnsafeShutdowns  uint64 `json:"unsafe_shutdowns"`
		MediaErrors      uint64 `json:"media_errors"`
		NumErrLogEntries uint64 `json:"num_err_log_entries"`
		WarningTempTime  uint64 `json:"warning_temp_time"`
		CriticalCompTime uint64 `json:"critical_comp_time"`
	} `json:"nvme_smart_health_information_log"`
	SCTCapabilities *struct {
		ERCSupported *bool `json:"error_recovery_control_supported"`
	} `json:"ata_sct_capabilities"`
	SCTERC *struct {
		Read  *smartctlERC `json:"read"`
		Write *smartctlERC `json:"write"`
	} `json:"ata_sct_erc"`
	SCSIGrownDefects *uint64 `json:"scsi_grown_defect_list"`
	SCSIErrorLog     *struct {
		Read   *scsiCounters `json:"read"`
		Write  *scsiCounters `json:"write"`
		Verify *scsiCounters `json:"verify"`
	} `json:"scsi_error_counter_log"`
}

type smartctlSpeed struct {
	String         string `json:"string"`
	UnitsPerSecond int    `json:"units_per_second"`
	BitsPerUnit    int    `json:"bits_per_unit"`
}

func (s *smartctlSpeed) gbps() float64 {
	if s == nil {
		return 0
	}
	return float64(s.UnitsPerSecond) * float64(s.BitsPerUnit) / 1e9
}

// smartctlERC is one direction of ata_sct_erc (smartctl's ataprint.cpp,
// print_sct_erc): deciseconds is printed only when enabled.
type smartctlERC struct {
	Enabled     *bool `json:"enabled"`
	Deciseconds *int  `json:"deciseconds"`
}

type scsiCounters struct {
	TotalUncorrected *uint64 `json:"total_uncorrected_errors"`
}

var leadingInt = regexp.MustCompile(`^\s*(-?\d+)`)

// ParseJSON reads `smartctl -j` output (any of -x, -a, -i -H -A;
// smartmontools 7.x). A run that could not open the device (exit bit 1) or
// output that is not smartctl JSON is an error wrapping ErrParse or
// ErrNotAvailable. A drive that `-n standby` left asleep is no error: its
// Info has Standby set and no health data.
func ParseJSON(b []byte) (*Info, error) {
	var j smartctlJSON
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.UseNumber()
	if err := dec.Decode(&j); err != nil {
		return nil, fmt.Errorf("%w: smartctl JSON: %v", machine.ErrParse, err)
	}
	if j.Smartctl == nil {
		return nil, fmt.Errorf("%w: no \"smartctl\" object: not smartctl -j output", machine.ErrParse)
	}
	s := &Info{Protocol: j.Device.Protocol, Serial: j.SerialNumber}
	s.Exit = j.Smartctl.ExitStatus
	for _, m := range j.Smartctl.Messages {
		s.Notes = append(s.Notes, strings.TrimSpace(m.String))
	}
	if mode := standbyMode(s.Notes); mode != "" {
		// smartctl -n standby: "Device is in STANDBY mode, exit(2)". Exit
		// bit 1 is set, but the drive was found, asleep, and left so.
		s.Standby = mode
		return s, nil
	}
	if err := smartctlOpenError(s); err != nil {
		return nil, err
	}
	s.Model = parse.FirstNonEmpty(j.ModelName, j.SCSIModelName, j.SCSIProduct)
	s.Firmware = parse.FirstNonEmpty(j.FirmwareVersion, j.SCSIRevision)
	s.ModelFamily = strings.TrimSpace(j.ModelFamily)
	if r := j.RotationRate; r != nil && *r >= 0 && *r < 100000 {
		v := *r
		s.RotationRPM = &v
	}
	s.ERC = readERC(&j)
	if j.SmartStatus != nil && j.SmartStatus.Passed != nil {
		p := *j.SmartStatus.Passed
		s.Passed = &p
	}
	s.readInterface(&j)
	s.readTemperature(&j)
	if j.PowerOnTime != nil {
		s.PowerOnHours = j.PowerOnTime.Hours
	}
	if j.WriteCache != nil {
		s.WriteCache = j.WriteCache.Enabled
	}
	if j.Trim != nil {
		s.TrimSupported = j.Trim.Supported
	}
	s.readATAAttributes(&j)
	s.readAPM(j.ATAAPM)
	if err := s.readNVMeLog(&j); err != nil {
		return nil, err
	}
	s.readSCSICounters(&j)
	if s.Passed == nil && s.Attributes == nil && s.NVMe == nil && s.SCSI == nil {
		return nil, fmt.Errorf("%w: smartctl reported no health data (SMART unsupported or disabled)", machine.ErrNotAvailable)
	}
	// The attribute check is what smart_status means when the drive could
	// not be asked directly (exit bit 3 without smart_status).
	if s.Passed == nil && s.Exit != nil && *s.Exit&SmartctlDiskFailing != 0 {
		f := false
		s.Passed = &f
	}
	return s, nil
}

// standbyMode is the power mode smartctl -n names when it skipped a
// sleeping drive (smartctl.cpp, ataPrintMain: "Device is in STANDBY mode",
// "… in SLEEP mode", "… in STANDBY (OS) mode" in 7.x); "" otherwise.
func standbyMode(notes []string) string {
	for _, n := range notes {
		if m := standbyMsg.FindStringSubmatch(n); m != nil {
			return m[1]
		}
	}
	return ""
}

var standbyMsg = regexp.MustCompile(`^Device is in ([A-Z_]+(?: \(OS\))?) mode`)

// smartctlOpenError is exit bits 0 and 1 (command line, open failed) as an
// error with smartctl's own words.
func smartctlOpenError(s *Info) error {
	if s.Exit == nil || *s.Exit&(SmartctlCmdLineError|SmartctlOpenFailed) == 0 {
		return nil
	}
	msg := strings.Join(s.Notes, "; ")
	if msg == "" {
		msg = fmt.Sprintf("exit status %d", *s.Exit)
	}
	if strings.Contains(msg, "ermission denied") {
		return fmt.Errorf("smartctl: %s: %w", msg, machine.ErrPermission)
	}
	return fmt.Errorf("smartctl could not open the device: %s: %w", msg, machine.ErrNotAvailable)
}

// readInterface: the SATA link speeds (interface_speed.max/current).
func (s *Info) readInterface(j *smartctlJSON) {
	is := j.InterfaceSpeed
	if is == nil {
		return
	}
	s.LinkMaxGbps, s.LinkCurGbps = is.Max.gbps(), is.Current.gbps()
	if is.Max != nil {
		s.LinkMax = is.Max.String
	}
	if is.Current != nil {
		s.LinkCur = is.Current.String
	}
}

// readERC: SCT Error Recovery Control. A drive that reports no ERC
// support in its SCT capabilities has none; one whose ata_sct_erc is
// missing without that word is unknown (smartctl -a, an old smartctl, a
// bridge that does not pass SCT through).
func readERC(j *smartctlJSON) *ERC {
	if e := j.SCTERC; e != nil && e.Read != nil && e.Write != nil && e.Read.Enabled != nil && e.Write.Enabled != nil {
		r := &ERC{Supported: true, ReadEnabled: *e.Read.Enabled, WriteEnabled: *e.Write.Enabled}
		if r.ReadEnabled && e.Read.Deciseconds != nil && *e.Read.Deciseconds >= 0 {
			r.ReadDS = *e.Read.Deciseconds
		}
		if r.WriteEnabled && e.Write.Deciseconds != nil && *e.Write.Deciseconds >= 0 {
			r.WriteDS = *e.Write.Deciseconds
		}
		return r
	}
	if c := j.SCTCapabilities; c != nil && c.ERCSupported != nil && !*c.ERCSupported {
		return &ERC{}
	}
	return nil
}

// SMR reports a drive smartctl's database marks as drive-managed SMR
// (its model family ends in "(SMR)", as drivedb.h names such families).
func (s *Info) SMR() bool {
	return s != nil && strings.HasSuffix(s.ModelFamily, "(SMR)")
}

// readTemperature: the current temperature and the drive's own limits.
func (s *Info) readTemperature(j *smartctlJSON) {
	t := j.Temperature
	if t == nil {
		return
	}
	// Some drives report 0 when the sensor is not implemented.
	if t.Current != nil && *t.Current != 0 {
		s.TempC = t.Current
	}
	s.TempWarnC = firstIntPtr(t.OpLimitMax, t.DriveTrip)
	s.TempCritC = firstIntPtr(t.CriticalLimitMax, t.LimitMax)
	if s.TempWarnC != nil && s.TempCritC != nil && *s.TempCritC < *s.TempWarnC {
		s.TempCritC = nil
	}
}

// readATAAttributes: the ATA SMART attribute table, in table order.
func (s *Info) readATAAttributes(j *smartctlJSON) {
	a := j.ATASmartAttributes
	if a == nil {
		return
	}
	for _, r := range a.Table {
		at := Attr{ID: r.ID, Name: r.Name, Value: r.Value, Worst: r.Worst, Thresh: r.Thresh,
			RawString: r.Raw.String, Prefail: r.Flags.Prefailure, WhenFailed: r.WhenFailed}
		if v, err := strconv.ParseUint(r.Raw.Value.String(), 10, 64); err == nil {
			at.Raw = v
		}
		s.Attributes = append(s.Attributes, at)
	}
	if s.Protocol == "" {
		s.Protocol = "ATA"
	}
}

// readNVMeLog: the NVMe SMART/Health Information log (page 02h).
func (s *Info) readNVMeLog(j *smartctlJSON) error {
	n := j.NVMeLog
	if n == nil {
		return nil
	}
	h := &NVMeHealth{MediaErrors: n.MediaErrors, ErrLogEntries: n.NumErrLogEntries, UnsafeShutdowns: n.UnsafeShutdowns,
		PowerOnHours: n.PowerOnHours, WarningTempTime: n.WarningTempTime, CriticalTempTime: n.CriticalCompTime}
	h.CriticalWarning = derefInt(n.CriticalWarning)
	h.AvailableSpare = derefInt(n.AvailableSpare)
	h.SpareThreshold = derefInt(n.SpareThreshold)
	h.PercentUsed = derefInt(n.PercentageUsed)
	if n.AvailableSpare == nil && n.CriticalWarning == nil {
		return fmt.Errorf("%w: NVMe health log without critical_warning or available_spare", machine.ErrParse)
	}
	s.NVMe = h
	if s.TempC == nil && n.Temperature != nil && *n.Temperature != 0 {
		s.TempC = n.Temperature
	}
	if s.PowerOnHours == nil {
		poh := n.PowerOnHours
		s.PowerOnHours = &poh
	}
	if s.Protocol == "" {
		s.Protocol = "NVMe"
	}
	return nil
}

// readSCSICounters: the grown defect list and the error counter log.
func (s *Info) readSCSICounters(j *smartctlJSON) {
	if j.SCSIGrownDefects == nil && j.SCSIErrorLog == nil {
		return
	}
	sc := &SCSIHealth{GrownDefects: j.SCSIGrownDefects}
	if l := j.SCSIErrorLog; l != nil {
		if l.Read != nil {
			sc.ReadUncorrected = l.Read.TotalUncorrected
		}
		if l.Write != nil {
			sc.WriteUncorrected = l.Write.TotalUncorrected
		}
		if l.Verify != nil {
			sc.VerifyUncorrected = l.Verify.TotalUncorrected
		}
	}
	s.SCSI = sc
}

func firstIntPtr(vs ...*int) *int {
	for _, v := range vs {
		if v != nil && *v > 0 {
			return v
		}
	}
	return nil
}

func derefInt(p *int) int {
	if p == nil {
		return 0
	}
	return *p
}

// TemperatureFromRaw reads the current temperature out of an attribute's
// raw string ("25 (Min/Max 18/45)").
func TemperatureFromRaw(s string) (int, bool) {
	m := leadingInt.FindStringSubmatch(s)
	if m == nil {
		return 0, false
	}
	v, err := strconv.Atoi(m[1])
	return v, err == nil && v > 0 && v < 150
}
