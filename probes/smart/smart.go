package smart

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"strings"

	smart "github.com/anatol/smart.go"
	"github.com/diskdoctor/diskdoctor/machine"
	"github.com/diskdoctor/diskdoctor/probes/drive"
)

// Argv is the one command the doctor runs per drive for its health:
// everything smartctl knows (-x), as JSON. It reads only: no self-test, no
// SMART enable, nothing that adds an entry to the drive's error log. "-n
// standby" leaves a spun-down disk asleep (smartctl asks CHECK POWER MODE
// first and stops, exit 2): an hourly timer must not spin every idle disk up
// every hour (smartctl_exporter added the same for the same report).
func Argv(dev string) []string {
	return []string{"smartctl", "-x", "-n", "standby", "-j", "/dev/" + dev}
}

// ThroughArgv is Argv for a drive behind a RAID controller, addressed
// through the controller's volume dev with smartctl's -d: "megaraid,N" (N
// the drive's device id) or "cciss,N" (N the drive's number on a Smart
// Array), smartctl(8) "-d TYPE".
func ThroughArgv(dev, devType string) []string {
	return []string{"smartctl", "-x", "-n", "standby", "-j", "-d", devType, "/dev/" + dev}
}

// ReadSmartctl runs `smartctl -x -n standby -j /dev/<dev>` and parses its JSON. A
// non-zero exit status is normal (its bits say "failing", "errors logged");
// only "could not open" is an error.
func ReadSmartctl(ctx context.Context, h *machine.Host, dev string) (*Info, error) {
	return readArgv(ctx, h, Argv(dev))
}

// ReadThrough is ReadSmartctl for a drive behind a controller (ThroughArgv).
func ReadThrough(ctx context.Context, h *machine.Host, dev, devType string) (*Info, error) {
	return readArgv(ctx, h, ThroughArgv(dev, devType))
}

func readArgv(ctx context.Context, h *machine.Host, argv []string) (*Info, error) {
	res, err := h.Run(ctx, argv...)
	if err != nil {
		return nil, err
	}
	s, perr := ParseJSON(res.Stdout)
	if perr != nil {
		msg := strings.TrimSpace(string(res.Stderr))
		if strings.Contains(msg, "ermission denied") {
			return nil, fmt.Errorf("%s: %s: %w", res, msg, machine.ErrPermission)
		}
		return nil, fmt.Errorf("%s: %w", res, perr)
	}
	s.Source = res.String()
	// An older recording's smartctl -x -j (machine's argvHistory) had no
	// -n standby: smartctl may have woken the drive to answer, so whether
	// it was asleep is unknown, not "awake".
	s.StandbyUnknown = machine.IsPredecessor(argv, res)
	return s, nil
}

// Read reads a drive's health once: smartctl where it is installed (or
// recorded), else, on the live machine, smart.go's ioctls. nvme says which
// protocol smart.go should speak.
func Read(ctx context.Context, h *machine.Host, dev string, nvme bool) (*Info, error) {
	s, err := ReadSmartctl(ctx, h, dev)
	if err == nil || !errors.Is(err, machine.ErrToolMissing) || !h.IsLive() {
		return s, err
	}
	return ReadLive(ctx, h, dev, nvme)
}

// ReadLive asks the drive through smart.go (SG_IO / NVMe admin
// passthrough: IDENTIFY, SMART READ DATA and THRESHOLDS, or the NVMe
// SMART/Health log page). Live machines only.
func ReadLive(ctx context.Context, h *machine.Host, dev string, nvme bool) (*Info, error) {
	if !h.IsLive() {
		return nil, fmt.Errorf("SMART of /dev/%s: recorded machine, no device access: %w", dev, machine.ErrNotAvailable)
	}
	type result struct {
		s   *Info
		err error
	}
	// The node to open: the host's in a host root (--host-root).
	node, err := h.DevicePath("/dev/" + dev)
	if err != nil {
		return nil, err
	}
	ch := make(chan result, 1)
	go func() {
		var r result
		if nvme {
			r.s, r.err = readNVMeSMART(node)
		} else {
			r.s, r.err = readATASMART(h, "/dev/"+dev, node)
		}
		if errors.Is(r.err, fs.ErrNotExist) {
			r.err = fmt.Errorf("/dev/%s: %w", dev, machine.ErrNotAvailable)
		} else if r.err != nil {
			r.err = machine.DeviceErr(dev, r.err)
		}
		ch <- r
	}()
	select {
	case r := <-ch:
		if r.s != nil {
			r.s.Source = "SMART /dev/" + dev + " (smart.go)"
		}
		return r.s, r.err
	case <-ctx.Done():
		return nil, fmt.Errorf("SMART of /dev/%s: %w", dev, machine.CtxErr(ctx.Err()))
	}
}

// readATASMART reads the drive at machine path path, whose node is opened
// as node (Host.DevicePath).
func readATASMART(h *machine.Host, path, node string) (*Info, error) {
	// Before anything that would spin a sleeping disk up (IDENTIFY and
	// SMART READ DATA may), ask its power mode, as smartctl -n standby
	// does. A drive that cannot answer (a bridge without pass-through) is
	// read the ordinary way.
	if mode, asleep, err := ataCheckPower(h, path); err == nil && asleep {
		return &Info{Protocol: "ATA", Standby: mode}, nil
	}
	d, err := smart.OpenSata(node)
	if err != nil {
		return nil, err
	}
	defer d.Close()
	id, err := d.Identify()
	if err != nil {
		return nil, err
	}
	page, err := d.ReadSMARTData()
	if err != nil {
		return nil, err
	}
	th, err := d.ReadSMARTThresholds()
	if err != nil {
		return nil, err
	}
	thr := map[int]int{}
	for k, v := range th.Thresholds {
		thr[int(k)] = int(v)
	}
	attrs := map[int]ATAAttrRaw{}
	for k, a := range page.Attrs {
		at := ATAAttrRaw{ID: int(k), Name: a.Name, Flags: a.Flags, Value: int(a.Current), Worst: int(a.Worst), Raw: a.ValueRaw}
		if a.Id == 194 || a.Id == 190 {
			if t, _, _, _, err := a.ParseAsTemperature(); err == nil {
				at.Temp = &t
			}
		}
		attrs[int(k)] = at
	}
	s := FromATA(attrs, thr)
	s.Model, s.Serial, s.Firmware = id.ModelNumber(), id.SerialNumber(), id.FirmwareRevision()
	s.WriteCache = drive.IdentifyWriteCache(id.CommandsSupported1, id.CommandsEnabled1).Enabled
	return s, nil
}

// ATAAttrRaw is one attribute as read from the drive (smart.go), before
// it is combined with its threshold.
type ATAAttrRaw struct {
	ID           int
	Name         string
	Flags        uint16
	Value, Worst int
	Raw          uint64
	Temp         *int
}

// FromATA combines attributes and thresholds into a SMARTInfo.
// smart.go cannot send SMART RETURN STATUS, so the overall verdict is the
// attribute check smartctl falls back to: no pre-failure attribute at or
// below its threshold.
func FromATA(attrs map[int]ATAAttrRaw, thresholds map[int]int) *Info {
	s := &Info{Protocol: "ATA", Notes: []string{"overall health from the attribute check (smart.go reads no SMART RETURN STATUS)"}}
	ids := make([]int, 0, len(attrs))
	for id := range attrs {
		ids = append(ids, id)
	}
	sortInts(ids)
	passed := true
	for _, id := range ids {
		a := attrs[id]
		at := Attr{ID: id, Name: a.Name, Value: a.Value, Worst: a.Worst, Thresh: thresholds[id], Raw: a.Raw,
			RawString: fmt.Sprint(a.Raw), Prefail: a.Flags&smart.AtaAttributeFlagPrefailure != 0}
		if at.Failing() {
			at.WhenFailed = "now"
			passed = false
		}
		if a.Temp != nil && s.TempC == nil && *a.Temp > 0 {
			t := *a.Temp
			s.TempC = &t
		}
		if id == 9 {
			poh := a.Raw & 0xffffffff
			s.PowerOnHours = &poh
		}
		s.Attributes = append(s.Attributes, at)
	}
	s.Passed = &passed
	return s
}

func readNVMeSMART(path string) (*Info, error) {
	d, err := smart.OpenNVMe(path)
	if err != nil {
		return nil, err
	}
	defer d.Close()
	ctrl, _, err := d.Identify()
	if err != nil {
		return nil, err
	}
	l, err := d.ReadSMART()
	if err != nil {
		return nil, err
	}
	s := FromNVMe(l, ctrl.Wctemp, ctrl.Cctemp, ctrl.Vwc&1 != 0)
	s.Model, s.Serial, s.Firmware = ctrl.ModelNumber(), ctrl.SerialNumber(), ctrl.FirmwareRev()
	return s, nil
}

// FromNVMe converts the NVMe SMART/Health log and Identify
// Controller's temperature thresholds (Kelvin; 0: not reported) and VWC bit.
func FromNVMe(l *smart.NvmeSMARTLog, wctempK, cctempK uint16, vwc bool) *Info {
	h := &NVMeHealth{
		CriticalWarning: int(l.CritWarning), AvailableSpare: int(l.AvailSpare), SpareThreshold: int(l.SpareThresh),
		PercentUsed: int(l.PercentUsed), MediaErrors: l.MediaErrors.Val[0], ErrLogEntries: l.NumErrLogEntries.Val[0],
		UnsafeShutdowns: l.UnsafeShutdowns.Val[0], PowerOnHours: l.PowerOnHours.Val[0],
		WarningTempTime: uint64(l.WarningTempTime), CriticalTempTime: uint64(l.CritCompTime), VWC: &vwc,
	}
	passed := l.CritWarning == 0
	s := &Info{Protocol: "NVMe", NVMe: h, Passed: &passed, PowerOnHours: &h.PowerOnHours, WriteCache: &vwc}
	kelvin := func(k uint16) *int {
		if k == 0 {
			return nil
		}
		c := int(k) - 273
		return &c
	}
	s.TempC, s.TempWarnC, s.TempCritC = kelvin(l.Temperature), kelvin(wctempK), kelvin(cctempK)
	return s
}

func sortInts(s []int) {
	for i := 1; i < len(s); i++ {
		for j := i; j > 0 && s[j] < s[j-1]; j-- {
			s[j], s[j-1] = s[j-1], s[j]
		}
	}
}
