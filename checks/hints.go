package checks

import (
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/diskdoctor/diskdoctor/machine"
)

// installHints names the Debian package of each external program.
var installHints = map[string]string{
	"hdparm":     "apt-get install hdparm",
	"dmesg":      "apt-get install util-linux",
	"df":         "apt-get install coreutils",
	"zpool":      "apt-get install zfsutils-linux",
	"zfs":        "apt-get install zfsutils-linux",
	"smartctl":   "apt-get install smartmontools",
	"nvme":       "apt-get install nvme-cli",
	"lvs":        "apt-get install lvm2",
	"multipath":  "apt-get install multipath-tools",
	"multipathd": "apt-get install multipath-tools",
	"btrfs":      "apt-get install btrfs-progs",
	"dmsetup":    "apt-get install dmsetup",
}

// recordingHint is the advice for a program a recording lacks: it is for
// the machine that was recorded, never an install on this one. A program
// that answered other recorded commands was installed there: what the
// recording lacks is this command's output, and a new recording has it.
func recordingHint(te *machine.ToolError) (hint, pkg string) {
	pkg, _ = strings.CutPrefix(installHints[te.Tool], "apt-get install ")
	with := te.Tool
	if pkg != "" {
		with = pkg
	}
	switch {
	case te.Answered:
		if te.AnsweredBy != "" && te.AnsweredBy != te.Tool {
			// zfs "answered" by zpool's output: one package installs both.
			return fmt.Sprintf("the recording holds %s commands (%s installs %s too) but not this one; record the machine again with diskdoctor snapshot", te.AnsweredBy, with, te.Tool), ""
		}
		return fmt.Sprintf("the recording holds other %s commands but not this one; record the machine again with diskdoctor snapshot", te.Tool), ""
	case te.Recorded:
		return fmt.Sprintf("%s was not installed on the recorded machine; install it there and record it again with diskdoctor snapshot", with), pkg
	}
	return fmt.Sprintf("the recording holds no output of this command; record the machine again with diskdoctor snapshot, %s installed there", with), pkg
}

// everyKernelHas are files every running Linux has (procfs mounted, as
// the doctor needs): a recording without them left them out.
var everyKernelHas = []string{"/proc", "/proc/self/mountinfo", "/proc/diskstats", "/sys/block"}

// recordingNotExposedHint is the hint on a recorded machine for a file it
// does not hold; reason is the skipped entry's ("/proc/self/mountinfo: not
// available"). A file every kernel has was left out of the recording; of
// another, a recording cannot tell whether the recorded machine's kernel
// lacked it or a capture made by another tool left it out.
func recordingNotExposedHint(reason string) string {
	path, _, _ := strings.Cut(reason, ": ")
	if slices.Contains(everyKernelHas, path) {
		return "every running Linux has " + path + ": the recording lacks it; record the machine again with diskdoctor snapshot"
	}
	return "the recording does not hold it: the recorded machine's kernel did not expose it (virtual machine, container, or a missing driver), or it was recorded without it"
}

// hostHint is the advice for a program the host mounted at --host-root
// lacks: the commands run with the host's own programs (chrooted into it),
// so it is installed there, not in the doctor's container.
func hostHint(tool string) string {
	install := installHints[tool]
	if install == "" {
		install = "install " + tool
	}
	return "on the host (not in the container): " + install
}

// hinted carries the hint a check knows better than the generic one.
type hinted struct {
	error
	hint string
}

func (h hinted) Unwrap() error { return h.error }

// withHint attaches a specific hint to a probe error.
func withHint(err error, hint string) error { return hinted{err, hint} }

// explain turns a probe error into a reason, a hint and, for a program
// that is not there, the Debian package it comes from.
func explain(probe string, err error, timeout time.Duration, live bool) (reason, hint, pkg string) {
	var te *machine.ToolError
	if errors.As(err, &te) && (te.Recorded || te.NotRecorded) {
		hint, pkg := recordingHint(te)
		return err.Error(), hint, pkg
	}
	if errors.As(err, &te) && te.Host {
		return err.Error(), hostHint(te.Tool), strings.TrimPrefix(installHints[te.Tool], "apt-get install ")
	}
	var h hinted
	if errors.As(err, &h) {
		return err.Error(), h.hint, ""
	}
	switch {
	case errors.Is(err, machine.ErrToolMissing):
		tool := probe
		var te *machine.ToolError
		if errors.As(err, &te) {
			tool = te.Tool
		}
		hint := installHints[tool]
		if hint == "" {
			hint = "install " + tool
		}
		pkg, _ := strings.CutPrefix(installHints[tool], "apt-get install ")
		return err.Error(), hint, pkg
	case errors.Is(err, machine.ErrPermission):
		if probe == "kernel-log" {
			// dmesg_restrict=1 keeps the log from users without
			// CAP_SYSLOG (Documentation/admin-guide/sysctl/kernel.rst).
			return err.Error(), "run as root, or allow it with: sysctl kernel.dmesg_restrict=0", ""
		}
		return err.Error(), "run diskdoctor as root", ""
	case errors.Is(err, machine.ErrTimeout):
		// The action first: the hint is also the report's first action
		// when this check is what kept the verdict from being whole.
		return err.Error(), fmt.Sprintf("retry with --probe-timeout %s; it did not answer within %s, and a command that hangs is itself a symptom (a stuck pool or device)", 4*timeout, timeout), ""
	case errors.Is(err, machine.ErrNotAvailable) && !live:
		return err.Error(), recordingNotExposedHint(err.Error()), ""
	case errors.Is(err, machine.ErrNotAvailable):
		return err.Error(), "the kernel does not expose this here (virtual machine, container, or a missing driver)", ""
	}
	return err.Error(), "see the reason; report it if it persists", ""
}
