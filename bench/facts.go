package bench

import (
	"context"
	"fmt"
	"strings"

	"github.com/diskdoctor/diskdoctor/machine"
	"github.com/diskdoctor/diskdoctor/probes/block"
	"github.com/diskdoctor/diskdoctor/probes/mount"
	"github.com/diskdoctor/diskdoctor/probes/system"
	"github.com/diskdoctor/diskdoctor/probes/zfs"
)

// Facts are what the preflight needs to know about the target, read
// through the host (tests build them by hand).
type Facts struct {
	Path       string   `json:"path"`
	FSType     string   `json:"fs_type,omitempty"`
	Source     string   `json:"mount_source,omitempty"`
	MountOpts  string   `json:"mount_options,omitempty"`
	Device     string   `json:"device,omitempty"` // the block device holding the filesystem (partition, dm-0, md0, vda)
	Disks      []string `json:"disks"`            // the whole disks under it (parents of partitions, members of dm/md, pool members)
	Pool       string   `json:"zfs_pool,omitempty"`
	Dataset    string   `json:"zfs_dataset,omitempty"`
	DeviceNote string   `json:"device_note,omitempty"` // why no device was judged
	FileSize   uint64   `json:"file_size"`
	MemTotal   uint64   `json:"mem_total"`
	ARCMax     uint64   `json:"zfs_arc_max,omitempty"`
	Free       uint64   `json:"free"`
	FSSize     uint64   `json:"fs_size"`
	// NeedSpace is what the run writes (the dd fallback keeps a random
	// source file beside the test file).
	NeedSpace   uint64 `json:"need_space"`
	DirectOK    bool   `json:"direct_io"`
	DirectErr   string `json:"direct_io_error,omitempty"`
	Compression string `json:"compression,omitempty"` // dataset or mount compression, "off", or "" unknown
	IsDevice    bool   `json:"raw_device,omitempty"`
	// DeviceSize bounds the file when the free space is unknown (a
	// recorded machine): the size of the device under the filesystem.
	DeviceSize uint64 `json:"device_size,omitempty"`
	// Memory: tmpfs or ramfs, whose "disk" is RAM.
	Memory bool `json:"memory,omitempty"`
	// Loop is the loop device under the target (loop0), whose I/O goes to
	// a backing file through the kernel's page cache unless the loop device
	// does direct I/O (drivers/block/loop.c); LoopBacking and LoopDirectIO
	// are its /sys/block/<loop>/loop/backing_file and dio, where readable.
	Loop         string `json:"loop_device,omitempty"`
	LoopBacking  string `json:"loop_backing_file,omitempty"`
	LoopDirectIO *bool  `json:"loop_direct_io,omitempty"`
	// Stacked lists the target's disks and everything stacked on them,
	// whose I/O the competing-I/O window watches.
	Stacked []string `json:"-"`
	// DevNos are their device numbers and the target filesystem's st_dev:
	// a process with a file open on one of them works on these devices.
	DevNos []string `json:"-"`
}

// memoryFS are filesystems that keep their data in RAM.
var memoryFS = map[string]bool{"tmpfs": true, "ramfs": true}

// gather reads the facts of a target through the host; the O_DIRECT probe
// writes, so it is the runner's.
func gather(ctx context.Context, h *machine.Host, r Runner, t Target, size uint64, dd bool) Facts {
	pf := Facts{Path: t.Path, FileSize: size, IsDevice: t.IsDevice, NeedSpace: size, Free: t.Free, FSSize: t.FSSize}
	if dd {
		pf.NeedSpace = 2 * size
	}
	if mem, err := system.MemTotalBytes(ctx, h); err == nil {
		pf.MemTotal = mem
	}
	pf.ARCMax, _ = zfs.ARCMax(ctx, h)
	var dm *block.Map
	if devs, err := block.Read(ctx, h); err == nil {
		dm = block.NewMap(devs)
	}
	if t.IsDevice {
		if dm != nil {
			pf.Device = dm.Name(t.DevNo)
			pf.Disks = dm.WholeDisks(pf.Device)
		}
		if dm != nil {
			pf.DeviceSize = dm.SizeBytes(pf.Device)
		}
		pf.DirectOK, pf.NeedSpace = true, size
		pf.Stacked = stackedOf(dm, pf.Disks)
		pf.DevNos = devNosOf(dm, pf.Stacked, t.DevNo)
		return pf
	}
	devNo := t.DevNo
	if !h.IsLive() {
		devNo = "" // nothing to stat: the mount point that contains the path
	}
	if m, ok, _ := mount.MountFor(ctx, h, t.Path, devNo); ok {
		pf.FSType, pf.Source, pf.MountOpts = m.FSType, m.Source, joinOptions(m.Options)
		if devNo == "" {
			devNo = m.DevNo
		}
	}
	pf.Memory = memoryFS[pf.FSType]
	switch {
	case pf.FSType == "zfs":
		pf.Dataset = pf.Source
		pf.Pool, _, _ = strings.Cut(pf.Source, "/")
		if props, _, err := zfs.ReadGet(ctx, h); err == nil {
			pf.Compression = props[pf.Dataset]["compression"]
		}
	case dm == nil:
	case mount.AnonymousDevNo(devNo) && strings.HasPrefix(pf.Source, "/dev/"):
		// btrfs and other filesystems on anonymous device numbers: the
		// mount source names the device.
		if pi, err := mount.StatPath(ctx, h, pf.Source); err == nil && pi.Kind == "block" {
			pf.Device = dm.Name(pi.RDev)
		}
	case !mount.AnonymousDevNo(devNo):
		pf.Device = dm.Name(devNo)
	}
	if pf.Device != "" && dm != nil {
		pf.DeviceSize = dm.SizeBytes(pf.Device)
		pf.Disks = dm.WholeDisks(pf.Device)
		pf.Stacked = stackedOf(dm, pf.Disks)
	}
	if dm != nil {
		pf.DevNos = devNosOf(dm, pf.Stacked, devNo)
	}
	loopFacts(ctx, h, &pf)
	if pf.Compression == "" && pf.FSType == "btrfs" {
		pf.Compression = "off"
		for _, o := range strings.Split(pf.MountOpts, ",") {
			if strings.HasPrefix(o, "compress") {
				pf.Compression = o
			}
		}
	}
	switch {
	case pf.Memory: // bench-memory-target says it
	case pf.Device == "" && pf.Pool == "":
		pf.DeviceNote = fmt.Sprintf("%s (%s) has no block device under it: the device checks of the doctor are skipped, only host-wide findings apply", t.Path, or(pf.FSType, "unknown filesystem"))
	}
	pf.DirectOK, pf.DirectErr = r.ProbeDirect(ctx, t.Path)
	return pf
}

// loopFacts names the loop device under the target and what it reads
// and writes: its backing file, and whether through the page cache.
func loopFacts(ctx context.Context, h *machine.Host, pf *Facts) {
	for _, d := range pf.Disks {
		if !strings.HasPrefix(d, "loop") {
			continue
		}
		pf.Loop = d
		if b, err := h.ReadString(ctx, "/sys/block/"+d+"/loop/backing_file"); err == nil {
			pf.LoopBacking = b
		}
		if v, err := h.ReadString(ctx, "/sys/block/"+d+"/loop/dio"); err == nil && (v == "0" || v == "1") {
			dio := v == "1"
			pf.LoopDirectIO = &dio
		}
		return
	}
}

func stackedOf(dm *block.Map, disks []string) []string {
	if dm == nil {
		return nil
	}
	var out []string
	for _, d := range disks {
		for _, n := range dm.Stacked(d) {
			if !contains(out, n) {
				out = append(out, n)
			}
		}
	}
	return out
}

func devNosOf(dm *block.Map, names []string, own string) []string {
	var out []string
	if own != "" {
		out = append(out, own)
	}
	for _, n := range names {
		if no := dm.DevNoOf(n); no != "" && !contains(out, no) {
			out = append(out, no)
		}
	}
	return out
}

func joinOptions(opts map[string]string) string {
	var out []string
	for k, v := range opts {
		if v != "" {
			k += "=" + v
		}
		out = append(out, k)
	}
	sortStrings(out)
	return strings.Join(out, ",")
}

func or(a, b string) string {
	if a != "" {
		return a
	}
	return b
}
