package checks

import (
	"errors"
	"fmt"
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
		return fmt.Sprintf("the recording holds other %s commands but not this one; record the machine again with diskdoctor snapshot", te.Tool), ""
	case te.Recorded:
		return fmt.Sprintf("%s was not installed on the recorded machine; install it there and record it again with diskdoctor snapshot", with), pkg
	}
	return fmt.Sprintf("the recording holds no output of this command; record the machine again with diskdoctor snapshot, %s installed there", with), pkg
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
		return err.Error(), fmt.Sprintf("it did not answer within %s; a command that hangs is itself a symptom (a stuck pool or device); retry with --probe-timeout %s", timeout, 4*timeout), ""
	case errors.Is(err, machine.ErrNotAvailable) && !live:
		// A recording holds what the recorded machine's kernel showed,
		// or only part of it (a capture made by another tool).
		return err.Error(), "the recording does not hold it: the recorded machine's kernel did not expose it (virtual machine, container, or a missing driver), or it was recorded without it", ""
	case errors.Is(err, machine.ErrNotAvailable):
		return err.Error(), "the kernel does not expose this here (virtual machine, container, or a missing driver)", ""
	}
	return err.Error(), "see the reason; report it if it persists", ""
}
