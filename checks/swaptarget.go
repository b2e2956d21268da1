package checks

import (
	"context"
	"strings"

	"github.com/diskdoctor/diskdoctor/probes/block"
	"github.com/diskdoctor/diskdoctor/probes/mount"
)

// swapByDisk maps each whole disk to the active swap areas whose I/O
// lands on it (/proc/swaps): a partition or a stacked device (dm, md)
// through the inventory, a swap file through the mount that holds it
// (the longest mount point that prefixes its path), a ZFS volume through
// its pool's disks. nil when /proc/swaps
// cannot be read: which disks swap is unknown, never "none".
func swapByDisk(ctx context.Context, env *Env, m *block.Map, mounts []mount.Mount) map[string][]mount.SwapArea {
	areas, err := Probe(ctx, env, func(ctx context.Context) ([]mount.SwapArea, error) { return mount.SwapAreas(ctx, env.Host) })
	if err != nil {
		// swapOnZvol reads the same file and records the skip.
		return nil
	}
	out := map[string][]mount.SwapArea{}
	devs, _ := env.Devices(ctx)
	for _, a := range areas {
		if zvolName(a.Filename) {
			// A zvol's I/O lands on its pool's disks (swapzvol.go).
			for _, d := range zvolSwapDisks(ctx, env, devs, a.Filename) {
				out[d] = append(out[d], a)
			}
			continue
		}
		dev := ""
		if n, ok := strings.CutPrefix(a.Filename, "/dev/"); ok && a.Type == "partition" {
			dev = n
		} else if mt, ok := mountHolding(a.Filename, mounts); ok {
			dev = mountDevice(mt, m)
		}
		if dev == "" {
			continue
		}
		for _, d := range m.WholeDisks(dev) {
			out[d] = append(out[d], a)
		}
	}
	return out
}

// mountHolding: the mount whose mount point is the longest prefix of
// path (the filesystem a swap file lives on).
func mountHolding(path string, mounts []mount.Mount) (mount.Mount, bool) {
	var best mount.Mount
	found := false
	for _, mt := range mounts {
		mp := mt.MountPoint
		if mp != "/" && path != mp && !strings.HasPrefix(path, mp+"/") {
			continue
		}
		if !found || len(mp) > len(best.MountPoint) {
			best, found = mt, true
		}
	}
	return best, found
}

// setSwapOnDisk: the swap areas active on the disk, with their
// /proc/swaps lines; nil when /proc/swaps was not read.
func setSwapOnDisk(o *Observation, disk string, byDisk map[string][]mount.SwapArea) {
	if byDisk == nil {
		o.Set("fs_swap_areas", nil)
		return
	}
	names := []string{}
	var ev []Evidence
	for _, a := range byDisk[disk] {
		names = append(names, a.Filename)
		ev = append(ev, Evidence{"/proc/swaps", a.Line()})
	}
	o.Set("fs_swap_areas", names, ev...)
}
