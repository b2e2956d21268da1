package machine

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"strings"
)

// ExitError is the error of a command that exited non-zero: its argv, exit
// status and the start of what it wrote (stderr, else stdout).
func ExitError(r CmdResult) error {
	msg := strings.TrimSpace(string(r.Stderr))
	if msg == "" {
		msg = strings.TrimSpace(string(r.Stdout))
	}
	if len(msg) > 200 {
		msg = msg[:200]
	}
	return fmt.Errorf("%s exited %d: %s", r, r.Exit, msg)
}

// DeviceErr is err of opening /dev/dev (an ioctl, a library open), with
// a permission failure as ErrPermission.
func DeviceErr(dev string, err error) error {
	if errors.Is(err, fs.ErrPermission) {
		return fmt.Errorf("/dev/%s: %w", dev, ErrPermission)
	}
	return fmt.Errorf("/dev/%s: %w", dev, err)
}

// UnwrapPathErr is err, or os.ErrNotExist when a library (procfs) failed
// without one, so that FileErr maps it to ErrNotAvailable.
func UnwrapPathErr(err error) error {
	if err == nil {
		return os.ErrNotExist
	}
	return err
}
