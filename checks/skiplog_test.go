package checks

import (
	"errors"
	"fmt"
	"testing"

	"github.com/diskdoctor/diskdoctor/machine"
)

// TestSkipApplicable: a skipped entry is NotApplicable exactly when what
// it reads does not exist here (machine.ErrNotAvailable, however wrapped);
// a missing tool, a permission or a timeout could have been read.
func TestSkipApplicable(t *testing.T) {
	for _, c := range []struct {
		err  error
		want bool
	}{
		{fmt.Errorf("/sys/devices/system/cpu/cpu*/cpufreq: %w", machine.ErrNotAvailable), true},
		{withHint(fmt.Errorf("a virtio disk has no SMART: %w", machine.ErrNotAvailable), "h"), true},
		{lpmErr(fmt.Errorf("x: %w", machine.ErrNotAvailable)), true},
		{withHint(errNoHost, "h"), true},
		{&machine.ToolError{Tool: "smartctl"}, false},
		{fmt.Errorf("dmesg: %w", machine.ErrPermission), false},
		{fmt.Errorf("hdparm: %w", machine.ErrTimeout), false},
		{errors.New("garbage"), false},
	} {
		env := newEnv(nil, Options{})
		env.Skip("smartctl -x -n standby -j", "sda", c.err)
		got := env.skipped()
		if len(got) != 1 || got[0].NotApplicable != c.want {
			t.Errorf("%v: %+v, want NotApplicable %v", c.err, got, c.want)
		}
		if got[0].CheckName() != "smartctl" || got[0].Check != "smartctl -x -n standby -j" {
			t.Errorf("check %q, name %q", got[0].Check, got[0].CheckName())
		}
	}
	if n := (Skipped{Check: "cpu-power"}).CheckName(); n != "cpu-power" {
		t.Errorf("CheckName of cpu-power: %q", n)
	}
}
