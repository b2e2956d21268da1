// Package hba reads what the mpt2sas/mpt3sas driver (LSI, Avago and
// Broadcom Fusion-MPT SAS HBAs) logged about each of its controllers
// ("IOC"), and the SAS phys of a disk's link (the SAS transport class,
// /sys/class/sas_phy).
//
// The driver names a controller by ioc->name, "<driver>_cm<N>" since the
// two drivers merged (mpt3sas_base.c, _scsih_probe: "mpt2sas_cm0",
// "mpt3sas_cm1"), "mpt2sas<N>" before. The lines read:
//
//   - _base_display_ioc_capabilities: "LSISAS2008: FWVersion(20.00.07.00),
//     ChipRevision(0x03), BiosVersion(07.39.02.00)" and
//     "Protocol=(Initiator,Target), Capabilities=(Raid,TLR,EEDP,…)", where
//     "Raid" is MPI2_IOCFACTS_CAPABILITY_INTEGRATED_RAID: the IR (Integrated
//     RAID) firmware; IT (initiator-target) firmware does not print it;
//   - the fault handling of _base_fault_reset_work and
//     mpt3sas_base_hard_reset_handler: "fault_state(0x2622)!", "SAS host is
//     non-operational !!!!", "Running mpt3sas_dead_ioc thread success",
//     "sending diag reset !!", "diag reset: FAILED" / "SUCCESS",
//     "_base_fault_reset_work: hard reset: success";
//   - the temperature event of _scsih_temp_threshold_events: "Temperature
//     Threshold flags a b c d exceeded for Sensor: 0 !!!";
//   - "log_info(0x31110d00): originator(PL), code(0x11), sub_code(0x0d00)"
//     (_base_sas_log_info): the firmware's log of an event, PL being the
//     SAS link layer;
//   - "scsi host9: Fusion MPT SAS Host" (scsi_add_host, right after the
//     capabilities), which gives the controller's SCSI host number.
package hba

import (
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/diskdoctor/diskdoctor/probes/kernlog"
)

// IOC is what the log says about one controller.
type IOC struct {
	Name string // mpt2sas_cm0
	// Chip, FWVersion and BIOSVersion from the FWVersion line (the last
	// one logged: a reset prints it again); FWLine is that line.
	Chip, FWVersion, BIOSVersion string
	FWLine                       *kernlog.Line
	// Protocol and Capabilities as listed; CapLine the line. IR is the
	// "Raid" capability (nil slices: not logged).
	Protocol, Capabilities []string
	CapLine                *kernlog.Line
	// Host is the SCSI host number from "scsi hostN: Fusion MPT SAS
	// Host", -1 when the log has none.
	Host int

	// Fault lines, oldest first, each list bounded by maxLines.
	NonOperational  []kernlog.Line // SAS host is non-operational
	Dead            []kernlog.Line // Running mpt3sas_dead_ioc thread
	DiagResetFailed []kernlog.Line // diag reset: FAILED, hard reset: failed
	FaultStates     []kernlog.Line // fault_state(0x….)!
	Resets          []kernlog.Line // diag reset: SUCCESS, hard reset: success
	Temperature     []kernlog.Line // Temperature Threshold … exceeded
	// LogInfo counts log_info lines by originator (PL, IOP, IR);
	// LogInfoPL keeps the first and last link-layer ones.
	LogInfo   map[string]int
	LogInfoPL []kernlog.Line
	// Lost are the disks whose commands failed with DID_NO_CONNECT after
	// the controller died (the driver flushes them:
	// _scsih_flush_running_cmds), by kernel name.
	Lost []string
}

// IR says whether the firmware is IR (Integrated RAID): its capabilities
// list "Raid". Unknown (false, ok false) when no capability line was
// logged.
func (c *IOC) IR() (ir, ok bool) {
	if c.Capabilities == nil {
		return false, false
	}
	return slices.Contains(c.Capabilities, "Raid"), true
}

// Lines is every line the reader recognised for the controller (for the
// kernel-log check: a line read here is understood).
func (c *IOC) Lines() []kernlog.Line {
	var out []kernlog.Line
	for _, ls := range [][]kernlog.Line{c.NonOperational, c.Dead, c.DiagResetFailed, c.FaultStates, c.Resets, c.Temperature, c.LogInfoPL} {
		out = append(out, ls...)
	}
	return out
}

// maxLines bounds what is kept per kind: a faulting controller logs
// thousands.
const maxLines = 50

var (
	// An optional ": " is the syslog layout "kernel: : mpt2sas0: …" of
	// older RHEL kernels.
	iocMsg   = regexp.MustCompile(`^(?:: )?(mpt[23]sas(?:_cm)?\d+): (.*)$`)
	fwMsg    = regexp.MustCompile(`^(\S+): FWVersion\((\d+\.\d+\.\d+\.\d+)\), ChipRevision\((0x[0-9a-fA-F]+)\)(?:, BiosVersion\((\d+\.\d+\.\d+\.\d+)\))?`)
	capMsg   = regexp.MustCompile(`^Protocol=\(([^)]*)\), Capabilities=\(([^)]*)\)`)
	hostMsg  = regexp.MustCompile(`^scsi host(\d+): Fusion MPT SAS Host`)
	logInfo  = regexp.MustCompile(`^log_info\((0x[0-9a-fA-F]+)\): originator\((\w+)\)`)
	lostMsg  = regexp.MustCompile(`^sd (\d+):\d+:\d+:\d+: \[(sd[a-z]+)\] .*hostbyte=DID_NO_CONNECT`)
	faultMsg = regexp.MustCompile(`(?:^|: )fault_state\((0x[0-9a-fA-F]+)\)`)
)

// Scan reads every mpt2sas/mpt3sas controller the log names, in the order
// it first names them.
func Scan(k *kernlog.Log) []*IOC {
	if k == nil {
		return nil
	}
	var out []*IOC
	by := map[string]*IOC{}
	var awaitingHost *IOC // the last controller that printed its capabilities
	var dead *IOC         // the last controller that died, for its lost disks
	add := func(ls *[]kernlog.Line, l kernlog.Line) {
		if len(*ls) < maxLines {
			*ls = append(*ls, l)
		}
	}
	for i := range k.Lines {
		l := k.Lines[i]
		if m := hostMsg.FindStringSubmatch(l.Text); m != nil {
			if awaitingHost != nil {
				if n, err := strconv.Atoi(m[1]); err == nil && n < 1<<20 {
					awaitingHost.Host = n
				}
				awaitingHost = nil
			}
			continue
		}
		if dead != nil {
			if m := lostMsg.FindStringSubmatch(l.Text); m != nil && (dead.Host < 0 || strconv.Itoa(dead.Host) == m[1]) {
				if !slices.Contains(dead.Lost, m[2]) && len(dead.Lost) < maxLines {
					dead.Lost = append(dead.Lost, m[2])
				}
				continue
			}
		}
		m := iocMsg.FindStringSubmatch(l.Text)
		if m == nil {
			continue
		}
		c := by[m[1]]
		if c == nil {
			c = &IOC{Name: m[1], Host: -1, LogInfo: map[string]int{}}
			by[m[1]] = c
			out = append(out, c)
		}
		msg := m[2]
		switch {
		case fwMsg.MatchString(msg):
			f := fwMsg.FindStringSubmatch(msg)
			c.Chip, c.FWVersion, c.BIOSVersion = printable(f[1]), f[2], f[4]
			c.FWLine = &k.Lines[i]
		case capMsg.MatchString(msg):
			f := capMsg.FindStringSubmatch(msg)
			c.Protocol, c.Capabilities = list(f[1]), list(f[2])
			c.CapLine = &k.Lines[i]
			if c.Host < 0 {
				awaitingHost = c
			}
		case strings.HasPrefix(msg, "SAS host is non-operational"):
			add(&c.NonOperational, l)
		case strings.Contains(msg, "mpt3sas_dead_ioc thread success"), strings.Contains(msg, "mpt2sas_dead_ioc thread success"):
			add(&c.Dead, l)
			dead = c
		case strings.HasPrefix(msg, "diag reset: FAILED"), strings.HasSuffix(msg, "hard reset: failed"):
			add(&c.DiagResetFailed, l)
		case faultMsg.MatchString(msg):
			add(&c.FaultStates, l)
		case strings.HasPrefix(msg, "diag reset: SUCCESS"), strings.HasSuffix(msg, "hard reset: success"):
			add(&c.Resets, l)
		case strings.HasPrefix(msg, "Temperature Threshold flags"):
			add(&c.Temperature, l)
		case logInfo.MatchString(msg):
			f := logInfo.FindStringSubmatch(msg)
			if len(c.LogInfo) < 16 || c.LogInfo[f[2]] > 0 {
				c.LogInfo[f[2]]++
			}
			if f[2] == "PL" {
				if len(c.LogInfoPL) < 2 {
					c.LogInfoPL = append(c.LogInfoPL, l)
				} else {
					c.LogInfoPL[1] = l
				}
			}
		}
	}
	return out
}

func list(s string) []string {
	out := []string{}
	for _, f := range strings.Split(s, ",") {
		if f = printable(f); f != "" {
			out = append(out, f)
		}
	}
	return out
}

// printable drops control characters and trims: log text is hostile.
func printable(s string) string {
	return strings.Map(func(r rune) rune {
		if r < 0x20 || r == 0x7f {
			return -1
		}
		return r
	}, strings.TrimSpace(s))
}
