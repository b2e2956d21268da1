package checks

import (
	"context"
	"strings"

	"github.com/diskdoctor/diskdoctor/probes/block"
	"github.com/diskdoctor/diskdoctor/probes/lvm"
)

func init() {
	Register(Check{Name: "lvm", Description: "LVM thin pools: how full their data and metadata are, and the health character of lv_attr (lvs --reportformat json), asked only where LVM is present", Run: lvmCheck})
}

// lvmPresent: a device-mapper device that LVM owns, one whose owner cannot
// be told, or the thin-pool target loaded. LVM names every device it
// activates with a dm UUID "LVM-<vg uuid><lv uuid>[-layer]" (lvm2
// lib/activate/dev_manager.c, UUID_PREFIX). A machine with only dm-crypt
// or multipath devices never runs lvs.
func lvmPresent(ctx context.Context, env *Env, devs []*block.Device) bool {
	return dmOwnerPresent(ctx, env, devs, "LVM-", "/sys/module/dm_thin_pool")
}

// dmOwnerPresent: a dm device whose UUID starts with prefix (the tool that
// made it), one whose owner cannot be told, or the kernel module loaded.
// The UUID is read from sysfs dm/uuid
// (Documentation/ABI/testing/sysfs-block-dm) or udev's DM_UUID. A live
// kernel always has dm/uuid for a dm device; only a recording can lack
// both, and then the tool is asked rather than its devices called absent.
func dmOwnerPresent(ctx context.Context, env *Env, devs []*block.Device, prefix, module string) bool {
	for _, d := range devs {
		if !strings.HasPrefix(d.Name, "dm-") {
			continue
		}
		uuid, source := block.DMUUID(ctx, env.Host, d)
		if uuid == "" && !env.Host.Exists(source) {
			return true
		}
		if strings.HasPrefix(uuid, prefix) {
			return true
		}
	}
	return env.Host.Exists(module)
}

// lvmCheck records each thin pool lvs reports: one pool observation named
// "vg/pool". A thin pool's fullness is invisible to df: its thin volumes
// are block devices whose filesystems see their own virtual size, not the
// pool's free space (lvmthin(7), "Thin pool LV usage").
func lvmCheck(ctx context.Context, env *Env) []*Observation {
	devs, _ := env.Devices(ctx)
	if !lvmPresent(ctx, env, devs) {
		return nil
	}
	type report struct {
		lvs []*lvm.LV
		cmd string
	}
	rep, err := Probe(ctx, env, func(ctx context.Context) (report, error) {
		v, res, err := lvm.Read(ctx, env.Host)
		return report{v, res.String()}, err
	})
	if err != nil {
		// Missing, hung or unreadable: the pools are unknown, never
		// "not full".
		env.Skip("lvs", "", err)
		return nil
	}
	// The evidence names the argv that answered: a recording made before
	// the health fields were asked for holds the older one.
	lvs, cmd := rep.lvs, rep.cmd
	volumes := map[string][]string{} // "vg/pool" → its thin volumes
	for _, lv := range lvs {
		if lv.Pool != "" {
			k := lv.VG + "/" + lv.Pool
			volumes[k] = append(volumes[k], lv.Name)
		}
	}
	var out []*Observation
	for _, lv := range lvs {
		if !lv.ThinPool() {
			continue
		}
		o := NewObservation("lvm", KindPool, lv.FullName())
		ev := Evidence{cmd, lv.Raw}
		o.Set("lvm_vg", lv.VG)
		o.Set("lvm_lv", lv.Name)
		o.Set("lvm_attr", lv.Attr, ev)
		o.Set("lvm_active", lv.Active())
		o.Set("lvm_health", lv.Health())
		setIf(o, "lvm_data_percent", lv.DataPercent, lv.HasData, ev)
		setIf(o, "lvm_metadata_percent", lv.MetaPercent, lv.HasMeta, ev)
		setIf(o, "lvm_size_bytes", float64(lv.Size), lv.HasSize)
		o.Set("lvm_thin_volumes", nonNil(volumes[lv.FullName()]))
		out = append(out, o)
	}
	return append(out, lvHealthObservations(lvs, cmd)...)
}

// setIf sets a number read from a report, nil when the report had none.
func setIf(o *Observation, fact string, v float64, ok bool, ev ...Evidence) {
	if !ok {
		o.Set(fact, nil)
		return
	}
	o.Set(fact, v, ev...)
}
