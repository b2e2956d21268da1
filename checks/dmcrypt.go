package checks

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/diskdoctor/diskdoctor/probes/block"
	"github.com/diskdoctor/diskdoctor/probes/dmtable"
)

func init() {
	Register(Check{Name: "dmcrypt", Description: "dm-crypt targets: the disks under each, their sector size and whether they bypass the kcryptd workqueues (dmsetup table, keys redacted), asked only where a crypt device may exist", Run: dmcryptCheck})
}

// cryptPresent: a dm device cryptsetup made, one whose owner cannot be
// told, or the dm_crypt module loaded. cryptsetup names every device it
// activates with a dm UUID "CRYPT-<type>-…" (cryptsetup
// lib/libdevmapper.c, dm_prepare_uuid).
func cryptPresent(ctx context.Context, env *Env, devs []*block.Device) bool {
	return dmOwnerPresent(ctx, env, devs, "CRYPT-", "/sys/module/dm_crypt")
}

// dmcryptCheck sets, on every disk under a crypt target, the targets and
// how they were opened. dm-crypt hands each bio to its kcryptd workqueues
// unless opened with no_read_workqueue/no_write_workqueue (kernel 5.9,
// dm-crypt.rst), which costs latency and throughput on fast devices
// (Cloudflare, "Speeding up Linux disk encryption", 2020); and a target
// without sector_size:N encrypts in 512-byte sectors, so a 4 KiB block
// is eight cipher operations and a device with 4 KiB physical blocks
// sees 512-byte writes (cryptsetup(8), --sector-size).
func dmcryptCheck(ctx context.Context, env *Env) []*Observation {
	devs, _ := env.Devices(ctx)
	if !cryptPresent(ctx, env, devs) {
		return nil
	}
	type table struct {
		targets []*dmtable.Target
		cmd     string
	}
	tb, err := RunCommand(ctx, env, func(ctx context.Context) (table, error) {
		t, res, err := dmtable.Read(ctx, env.Host)
		return table{t, res.String()}, err
	})
	if err != nil {
		// How the targets were opened is unknown, never "tuned".
		env.Skip("dmsetup table", "", err)
		return nil
	}
	cmd := tb.cmd
	if cmd == "" {
		cmd = argvString(dmtable.Argv())
	}
	m := env.DevMap(ctx)
	type perDisk struct {
		targets, workqueues, small []string
		ev                         []Evidence
	}
	disks := map[string]*perDisk{}
	var order []string
	for _, t := range tb.targets {
		c, ok := t.Crypt()
		if !ok {
			continue
		}
		under := cryptBacking(m, c.Dev)
		if under == "" {
			continue
		}
		label := fmt.Sprintf("%s on %s: %d-byte sectors", t.Name, under, c.SectorSize)
		if len(c.Options) > 0 {
			label += ", " + strings.Join(c.Options, " ")
		}
		for _, disk := range m.WholeDisks(under) {
			pd := disks[disk]
			if pd == nil {
				pd = &perDisk{}
				disks[disk] = pd
				order = append(order, disk)
			}
			pd.targets = append(pd.targets, label)
			pd.ev = append(pd.ev, Evidence{cmd, t.Line})
			if !c.Has("no_read_workqueue") || !c.Has("no_write_workqueue") {
				pd.workqueues = append(pd.workqueues, t.Name)
			}
			if c.SectorSize == 512 {
				pd.small = append(pd.small, t.Name)
			}
		}
	}
	slices.Sort(order)
	out := make([]*Observation, 0, len(order))
	for _, disk := range order {
		pd := disks[disk]
		o := NewObservation("dmcrypt", KindDevice, disk)
		o.Set("dmcrypt_targets", pd.targets, pd.ev...)
		o.Set("dmcrypt_workqueue_targets", nonNil(pd.workqueues), pd.ev...)
		o.Set("dmcrypt_small_sector_targets", nonNil(pd.small), pd.ev...)
		out = append(out, o)
	}
	return out
}

// cryptBacking is the inventory's name of a crypt target's device: the
// table gives "major:minor" (the kernel prints the device number) or,
// from some tools, a /dev path; "" when the inventory has no such device.
func cryptBacking(m *block.Map, dev string) string {
	if strings.Contains(dev, ":") {
		return m.Name(dev)
	}
	name, ok := strings.CutPrefix(dev, "/dev/")
	if !ok || strings.Contains(name, "/") || m.DevNoOf(name) == "" {
		return ""
	}
	return name
}
