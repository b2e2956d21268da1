package checks

import (
	"context"
	"strconv"
	"strings"

	"github.com/diskdoctor/diskdoctor/probes/block"
	"github.com/diskdoctor/diskdoctor/probes/mount"
	"github.com/diskdoctor/diskdoctor/probes/system"
)

func init() {
	Register(Check{Name: "stack", Description: "what sits between a filesystem and its disk (dm-crypt, LVM, md, RAID controller or HBA), and the kernel's writeback limits (vm.dirty_ratio, vm.dirty_background_ratio)", Run: stack})
}

func stack(ctx context.Context, env *Env) []*Observation {
	var out []*Observation
	out = append(out, writeback(ctx, env))
	byDevNo := env.MountsByDevNo(ctx)
	all, _ := env.Devices(ctx)
	byName := make(map[string]*block.Device, len(all))
	for _, d := range all {
		byName[d.Name] = d
	}
	for _, d := range env.Judged(ctx) {
		o := NewObservation("stack", KindDevice, d.Name)
		out = append(out, o)
		drv := controllerDriver(d)
		kind := ""
		switch {
		case block.RAIDDriver(drv):
			kind = "raid"
		case hbaDrivers[drv]:
			kind = "hba"
		case drv != "":
			kind = "direct"
		}
		o.Set("controller_kind", kind)
		o.Set("raid_controller_driver", map[bool]string{true: drv}[kind == "raid"])

		w := &holderWalk{ctx: ctx, env: env, byDevNo: byDevNo, byName: byName, found: map[string]bool{}}
		for _, h := range d.Holders {
			w.walk(h, 1, d.Name)
		}
		for _, p := range d.Partitions {
			for _, h := range p.Holders {
				w.walk(h, 1, p.Name)
			}
		}
		o.Set("stack_layers", nonNil(w.layers), w.ev...)
		o.Set("dm_crypt", w.found["crypt"])
		o.Set("lvm", w.found["lvm"])
		o.Set("md_stacked", w.found["md"])
	}
	return out
}

// holderWalk follows a disk's holders (partition → dm-crypt → LVM →
// filesystem) through /sys/block/<name>/holders (Documentation/ABI/
// testing/sysfs-block): one chain per device at the top of the stack.
type holderWalk struct {
	ctx     context.Context
	env     *Env
	byDevNo map[string][]mount.Mount
	byName  map[string]*block.Device // the inventory, whose holders are listed already
	layers  []string
	ev      []Evidence
	found   map[string]bool // the kinds of layer seen: crypt, lvm, md, …
}

func (w *holderWalk) walk(hname string, depth int, chain string) {
	kind, label := dmKind(w.ctx, w.env, hname)
	w.found[kind] = true
	if kind == "crypt" || kind == "lvm" {
		p := "/sys/block/" + hname + "/dm/uuid"
		if v, err := w.env.Host.ReadString(w.ctx, p); err == nil {
			w.ev = append(w.ev, Evidence{p, v})
		}
	}
	chain += " → " + hname + " (" + label + ")"
	var next []string
	if d, ok := w.byName[hname]; ok {
		next = d.Holders
	} else {
		next = holderNames(w.ctx, w.env, "/sys/block/"+hname+"/holders")
	}
	// The depth bound ends a cycle of holders links (a recording is not
	// trusted); a real stack is a few layers deep.
	if len(next) == 0 || depth > 8 {
		if m := mountsOf(w.ctx, w.env, hname, w.byDevNo); m != "" {
			chain += " → " + m
		}
		w.layers = append(w.layers, chain)
		return
	}
	for _, n := range next {
		w.walk(n, depth+1, chain)
	}
}

func holderNames(ctx context.Context, env *Env, dir string) []string {
	ents, err := env.Host.ReadDir(ctx, dir)
	if err != nil {
		return nil
	}
	var out []string
	for _, e := range ents {
		out = append(out, e.Name())
	}
	return out
}

// dmKind names a stacked device from its device-mapper UUID, dm/uuid
// (Documentation/ABI/testing/sysfs-block-dm), whose prefix is its owner's:
// cryptsetup's CRYPT-LUKS2-…, LVM's LVM-…, multipathd's mpath-…; or from its
// kernel name (md127).
func dmKind(ctx context.Context, env *Env, name string) (string, string) {
	if strings.HasPrefix(name, "md") {
		return "md", "md RAID"
	}
	uuid, _ := env.Host.ReadString(ctx, "/sys/block/"+name+"/dm/uuid")
	dmName, _ := env.Host.ReadString(ctx, "/sys/block/"+name+"/dm/name")
	label := func(k string) string {
		if dmName != "" {
			return k + " " + dmName
		}
		return k
	}
	switch {
	case strings.HasPrefix(uuid, "CRYPT-"):
		return "crypt", label("dm-crypt")
	case strings.HasPrefix(uuid, "LVM-"):
		return "lvm", label("LVM")
	case strings.HasPrefix(uuid, block.MultipathUUIDPrefix):
		return "multipath", label("multipath")
	case uuid != "":
		return "dm", label("device-mapper")
	}
	return "", label("stacked")
}

func mountsOf(ctx context.Context, env *Env, name string, byDevNo map[string][]mount.Mount) string {
	dn, err := env.Host.ReadString(ctx, "/sys/block/"+name+"/dev")
	if err != nil {
		return ""
	}
	var out []string
	for _, m := range byDevNo[dn] {
		out = append(out, m.MountPoint+" "+m.FSType)
	}
	return strings.Join(out, ", ")
}

// writeback reads the kernel's dirty page limits: how much written data the
// page cache may hold before writers are throttled
// (Documentation/admin-guide/sysctl/vm.rst).
func writeback(ctx context.Context, env *Env) *Observation {
	o := NewObservation("stack", KindHost, "host")
	for _, k := range []string{"dirty_ratio", "dirty_background_ratio", "dirty_bytes", "dirty_background_bytes"} {
		p := "/proc/sys/vm/" + k
		v, err := env.Host.ReadString(ctx, p)
		n, perr := strconv.ParseFloat(v, 64)
		if err != nil || perr != nil {
			o.Set("vm_"+k, nil)
			continue
		}
		o.Set("vm_"+k, n, Evidence{p, v})
	}
	// The page-cache limits apply to these filesystems; ZFS has its own
	// (zfs_dirty_data_max).
	mounts, _ := env.Mounts(ctx)
	var pc []string
	for _, m := range mounts {
		if fstrimmable[m.FSType] && !contains(pc, m.MountPoint) {
			pc = append(pc, m.MountPoint)
		}
	}
	o.Set("pagecache_filesystems", nonNil(pc))
	mem, err := system.MemTotalBytes(ctx, env.Host)
	if err != nil || mem == 0 {
		o.Set("mem_total_bytes", nil)
		o.Set("vm_dirty_limit_gib", nil)
		return o
	}
	o.Set("mem_total_bytes", float64(mem))
	// dirty_bytes, when set, replaces dirty_ratio (vm.rst: only one of
	// them may be specified at a time).
	limit := 0.0
	if b, ok := o.Get("vm_dirty_bytes").(float64); ok && b > 0 {
		limit = b
	} else if r, ok := o.Get("vm_dirty_ratio").(float64); ok {
		limit = float64(mem) * r / 100
	}
	if limit > 0 {
		o.Set("vm_dirty_limit_gib", round(limit/(1<<30), 1))
	} else {
		o.Set("vm_dirty_limit_gib", nil)
	}
	return o
}
