package checks

import (
	"errors"
	"fmt"
	"time"

	"github.com/diskdoctor/diskdoctor/machine"
)

// installHints names the Debian package of each external program.
var installHints = map[string]string{
	"hdparm":   "apt-get install hdparm",
	"dmesg":    "apt-get install util-linux",
	"zpool":    "apt-get install zfsutils-linux",
	"zfs":      "apt-get install zfsutils-linux",
	"smartctl": "apt-get install smartmontools",
	"lvs":      "apt-get install lvm2",
}

// hinted carries the hint a check knows better than the generic one.
type hinted struct {
	error
	hint string
}

func (h hinted) Unwrap() error { return h.error }

// withHint attaches a specific hint to a probe error.
func withHint(err error, hint string) error { return hinted{err, hint} }

// explain turns a probe error into a reason and a hint.
func explain(probe string, err error, timeout time.Duration) (string, string) {
	var h hinted
	if errors.As(err, &h) {
		return err.Error(), h.hint
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
		return err.Error(), hint
	case errors.Is(err, machine.ErrPermission):
		if probe == "kernel-log" {
			// dmesg_restrict=1 keeps the log from users without
			// CAP_SYSLOG (Documentation/admin-guide/sysctl/kernel.rst).
			return err.Error(), "run as root, or allow it with: sysctl kernel.dmesg_restrict=0"
		}
		return err.Error(), "run diskdoctor as root"
	case errors.Is(err, machine.ErrTimeout):
		return err.Error(), fmt.Sprintf("it did not answer within %s; a command that hangs is itself a symptom (a stuck pool or device); retry with --probe-timeout %s", timeout, 4*timeout)
	case errors.Is(err, machine.ErrNotAvailable):
		return err.Error(), "the kernel does not expose this here (virtual machine, container, or a missing driver)"
	}
	return err.Error(), "see the reason; report it if it persists"
}
