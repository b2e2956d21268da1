package checks

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/diskdoctor/diskdoctor/internal/shellquote"
	"github.com/diskdoctor/diskdoctor/machine"
	"github.com/diskdoctor/diskdoctor/probes/raidctl"
	"github.com/diskdoctor/diskdoctor/probes/smart"
)

// driveHealth is what smartctl said, through the controller, about a
// drive behind it.
type driveHealth struct {
	failing string // why it fails, "" when it passes
	ev      Evidence
}

// smartThrough reads the SMART health of each drive of a volume through
// its controller (smartctl -d megaraid,N with N the drive's device id;
// -d cciss,N with N the drive's number on the Smart Array). smartctl
// numbers a Smart Array's drives as the controller reports them, which
// ssacli's listing need not follow, so a cciss answer counts only when its
// serial number is the drive's; a megaraid answer whose serial is another
// drive's is dropped too.
func smartThrough(ctx context.Context, env *Env, inv *raidctl.Inventory, c *raidctl.Controller, dev string, drives []*raidctl.Drive) map[string]driveHealth {
	out := map[string]driveHealth{}
	devPath := strings.ReplaceAll(dev, "!", "/") // cciss!c0d0 is /dev/cciss/c0d0
	for _, d := range drives {
		devType := throughType(inv, c, d)
		if devType == "" {
			continue
		}
		argv := smart.ThroughArgv(devPath, devType)
		info, err := RunCommand(ctx, env, func(ctx context.Context) (*smart.Info, error) {
			return smart.ReadThrough(ctx, env.Host, devPath, devType)
		})
		if errors.Is(err, machine.ErrToolMissing) {
			// Not installed (or not recorded): no other drive will answer.
			env.Skip("smartctl through the controller", dev, withHint(err, "apt-get install smartmontools; it reads the drives behind the controller with "+shellquote.Join(argv)))
			break
		}
		if errors.Is(err, machine.ErrTimeout) {
			// The controller answers for each of its drives: one that
			// hangs would hang the rest, a probe timeout each.
			env.Skip("smartctl through the controller", dev, withHint(fmt.Errorf("drive %s: %w", d.ID, err), "the controller did not answer for a drive; the other drives were not asked"))
			break
		}
		if err != nil {
			env.Skip("smartctl through the controller", dev, fmt.Errorf("drive %s: %w", d.ID, err))
			continue
		}
		if want := strings.TrimSpace(d.Serial.Text); info.Serial != "" && want != "" && !strings.EqualFold(want, "REDACTED") && !strings.EqualFold(strings.TrimSpace(info.Serial), want) {
			env.Skip("smartctl through the controller", dev, fmt.Errorf("drive %s: %s answered for serial %q, not the drive's %q: %w", d.ID, shellquote.Join(argv), info.Serial, want, machine.ErrNotAvailable))
			continue
		}
		if inv.Family == raidctl.FamilySmartArray && (info.Serial == "" || !strings.EqualFold(strings.TrimSpace(info.Serial), strings.TrimSpace(d.Serial.Text))) {
			env.Skip("smartctl through the controller", dev, withHint(fmt.Errorf("drive %s: no serial to tell which drive %s read: %w", d.ID, devType, machine.ErrNotAvailable),
				"compare the serial numbers of smartctl -i -d "+devType+" /dev/"+devPath+" and of ssacli's physical drives"))
			continue
		}
		h := driveHealth{ev: Evidence{Source: shellquote.Join(argv), Value: "SMART overall-health: " + passedText(info.Passed)}}
		if info.Passed != nil && !*info.Passed {
			h.failing = d.ID + " SMART overall-health FAILED"
		}
		out[d.ID] = h
	}
	return out
}

// smartThroughHint says how the drives behind a RAID controller driven
// by drv are read, for the volume whose own SMART is not the drives'.
// Only MegaRAID (-d megaraid,N) and Smart Array (-d cciss,N) drives are
// read through the controller with smartctl; an Adaptec's are judged by
// what arcconf says of them (smartctl(8) would read one with -d
// aacraid,H,L,ID, which the check does not run).
func smartThroughHint(drv string) string {
	switch drv {
	case "megaraid_sas":
		return "the controller check reads each drive behind it with smartctl -d megaraid,N (N the drive's device id) once storcli or MegaCli has listed them"
	case "hpsa", "cciss", "smartpqi":
		return "the controller check reads each drive behind it with smartctl -d cciss,N once ssacli has listed them"
	case "aacraid":
		return "the controller check reads each drive's state and S.M.A.R.T. warnings from arcconf GETCONFIG when arcconf answers; smartctl -d aacraid,H,L,ID /dev/sdX reads one drive's own SMART (H the SCSI host, L the LUN, ID the drive's id)"
	}
	return "the controller's own tool reports the drives' health"
}

// throughType is smartctl's -d for drive d, "" when there is none.
func throughType(inv *raidctl.Inventory, c *raidctl.Controller, d *raidctl.Drive) string {
	if inv.Family != raidctl.FamilySmartArray {
		if n, err := strconv.Atoi(strings.TrimSpace(d.DeviceID.Text)); err == nil && n >= 0 {
			return "megaraid," + strconv.Itoa(n)
		}
		return ""
	}
	for i, x := range c.Drives {
		if x == d {
			return "cciss," + strconv.Itoa(i)
		}
	}
	return ""
}

func passedText(p *bool) string {
	switch {
	case p == nil:
		return "not reported"
	case *p:
		return "PASSED"
	}
	return "FAILED"
}
