package main

import (
	"bufio"
	"context"
	"crypto/rand"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/diskdoctor/diskdoctor/probes"
	"github.com/diskdoctor/diskdoctor/rules"
)

// benchTarget is what PATH names: a directory (the test file goes in it) or,
// with --device-write-i-know, a raw block device.
type benchTarget struct {
	Path     string // as given, absolute
	IsDevice bool
	File     string // the test file (the device itself for a raw device)
	Dev      uint64 // st_dev of the directory, st_rdev of a device
}

func benchResolveTarget(path string, deviceWrite bool) (benchTarget, error) {
	abs, err := filepath.Abs(path)
	if err != nil {
		return benchTarget{}, err
	}
	var st syscall.Stat_t
	if err := syscall.Stat(abs, &st); err != nil {
		return benchTarget{}, fmt.Errorf("bench %s: %w", path, err)
	}
	switch st.Mode & syscall.S_IFMT {
	case syscall.S_IFDIR:
		name := fmt.Sprintf(".diskdoctor-bench-%d.tmp", os.Getpid())
		return benchTarget{Path: abs, File: filepath.Join(abs, name), Dev: uint64(st.Dev)}, nil
	case syscall.S_IFBLK:
		if !deviceWrite {
			return benchTarget{}, fmt.Errorf("bench %s: a raw block device; the bench writes to it and DESTROYS ITS DATA. "+
				"Give a directory on a mounted filesystem instead, or pass --device-write-i-know if the device holds nothing you need", path)
		}
		return benchTarget{Path: abs, IsDevice: true, File: abs, Dev: uint64(st.Rdev)}, nil
	}
	return benchTarget{}, fmt.Errorf("bench %s: not a directory (give the directory or mount point to test; the bench creates and removes its own file there)", path)
}

// benchPathFacts is what the preflight needs to know about the target,
// measured on the live machine (tests build them by hand).
type benchPathFacts struct {
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
}

// benchMeasurePath gathers the facts of a live target.
func benchMeasurePath(ctx context.Context, t benchTarget, size uint64, dd bool) benchPathFacts {
	pf := benchPathFacts{Path: t.Path, FileSize: size, IsDevice: t.IsDevice, NeedSpace: size}
	if dd {
		pf.NeedSpace = 2 * size
	}
	if mem, err := probes.MemTotalBytes(ctx, probes.Live()); err == nil {
		pf.MemTotal = mem
	}
	pf.ARCMax = benchARCMax("/proc/spl/kstat/zfs/arcstats")
	if t.IsDevice {
		pf.Device = benchDevName(t.Dev)
		pf.Disks = benchWholeDisks(pf.Device)
		pf.Free = benchDeviceSize(pf.Device)
		pf.FSSize, pf.DirectOK = pf.Free, true
		pf.NeedSpace = size
		return pf
	}
	if m, ok := benchMountOf(t.Path); ok {
		pf.FSType, pf.Source, pf.MountOpts = m.fstype, m.source, m.opts
	}
	var sfs syscall.Statfs_t
	if syscall.Statfs(t.Path, &sfs) == nil {
		pf.Free = sfs.Bavail * uint64(sfs.Bsize)
		pf.FSSize = sfs.Blocks * uint64(sfs.Bsize)
	}
	switch {
	case pf.FSType == "zfs":
		pf.Dataset = pf.Source
		pf.Pool, _, _ = strings.Cut(pf.Source, "/")
		pf.Compression = benchZFSCompression(ctx, pf.Dataset)
	case unix0(t.Dev) && strings.HasPrefix(pf.Source, "/dev/"):
		// btrfs and other filesystems on anonymous device numbers: the
		// mount source names the device.
		var st syscall.Stat_t
		if syscall.Stat(pf.Source, &st) == nil && st.Mode&syscall.S_IFMT == syscall.S_IFBLK {
			pf.Device = benchDevName(uint64(st.Rdev))
		}
	case !unix0(t.Dev):
		pf.Device = benchDevName(t.Dev)
	}
	if pf.Device != "" {
		pf.Disks = benchWholeDisks(pf.Device)
	}
	if pf.Compression == "" && pf.FSType == "btrfs" {
		pf.Compression = "off"
		for _, o := range strings.Split(pf.MountOpts, ",") {
			if strings.HasPrefix(o, "compress") {
				pf.Compression = o
			}
		}
	}
	if pf.Device == "" && pf.Pool == "" {
		pf.DeviceNote = fmt.Sprintf("%s (%s) has no block device under it: the device checks of the doctor are skipped, only host-wide findings apply", t.Path, benchOr(pf.FSType, "unknown filesystem"))
	}
	pf.DirectOK, pf.DirectErr = benchProbeDirect(t.Path)
	return pf
}

func benchOr(a, b string) string {
	if a != "" {
		return a
	}
	return b
}

// unix0 says whether a device number is anonymous (major 0: tmpfs, ZFS,
// btrfs subvolumes, overlayfs).
func unix0(dev uint64) bool { return benchMajor(dev) == 0 }

func benchMajor(dev uint64) uint64 { return ((dev >> 8) & 0xfff) | ((dev >> 32) &^ 0xfff) }
func benchMinor(dev uint64) uint64 { return (dev & 0xff) | ((dev >> 12) &^ 0xff) }

// benchDevName resolves a device number to its kernel name through
// /sys/dev/block/MAJ:MIN.
func benchDevName(dev uint64) string {
	p, err := filepath.EvalSymlinks(fmt.Sprintf("/sys/dev/block/%d:%d", benchMajor(dev), benchMinor(dev)))
	if err != nil {
		return ""
	}
	return filepath.Base(p)
}

// benchWholeDisks walks from a block device to the whole disks under it:
// a partition's parent, the members (slaves) of dm and md devices.
func benchWholeDisks(name string) []string {
	seen := map[string]bool{}
	var out []string
	var walk func(n string, depth int)
	walk = func(n string, depth int) {
		if depth > 8 || n == "" {
			return
		}
		p, err := filepath.EvalSymlinks("/sys/class/block/" + n)
		if err != nil {
			return
		}
		if _, err := os.Stat(filepath.Join(p, "partition")); err == nil {
			walk(filepath.Base(filepath.Dir(p)), depth+1)
			return
		}
		slaves, _ := os.ReadDir(filepath.Join(p, "slaves"))
		if len(slaves) > 0 {
			for _, s := range slaves {
				walk(s.Name(), depth+1)
			}
			return
		}
		if !seen[n] {
			seen[n] = true
			out = append(out, n)
		}
	}
	walk(name, 0)
	return out
}

func benchDeviceSize(name string) uint64 {
	b, err := os.ReadFile("/sys/class/block/" + name + "/size")
	if err != nil {
		return 0
	}
	n, _ := strconv.ParseUint(strings.TrimSpace(string(b)), 10, 64)
	return n * 512
}

type benchMount struct{ point, fstype, source, opts string }

// benchMountOf finds the mount holding path in /proc/self/mountinfo (the
// longest mount point that contains it; the last one mounted wins).
func benchMountOf(path string) (benchMount, bool) {
	f, err := os.Open("/proc/self/mountinfo")
	if err != nil {
		return benchMount{}, false
	}
	defer f.Close()
	real, err := filepath.EvalSymlinks(path)
	if err != nil {
		real = path
	}
	var best benchMount
	found := false
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 64*1024), 1<<20)
	for sc.Scan() {
		pre, post, ok := strings.Cut(sc.Text(), " - ")
		if !ok {
			continue
		}
		a, b := strings.Fields(pre), strings.Fields(post)
		if len(a) < 6 || len(b) < 2 {
			continue
		}
		mp := benchUnescapeMount(a[4])
		if !(real == mp || mp == "/" || strings.HasPrefix(real, mp+"/")) {
			continue
		}
		if !found || len(mp) >= len(best.point) {
			best = benchMount{point: mp, fstype: b[0], source: benchUnescapeMount(b[1]), opts: a[5]}
			if len(b) > 2 {
				best.opts += "," + b[2]
			}
			found = true
		}
	}
	return best, found
}

// benchUnescapeMount undoes mountinfo's octal escapes (\040 for a space).
func benchUnescapeMount(s string) string {
	if !strings.Contains(s, `\`) {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] == '\\' && i+3 < len(s) {
			if v, err := strconv.ParseUint(s[i+1:i+4], 8, 8); err == nil {
				b.WriteByte(byte(v))
				i += 3
				continue
			}
		}
		b.WriteByte(s[i])
	}
	return b.String()
}

// benchARCMax reads c_max (the ARC's ceiling) from arcstats; 0 without ZFS.
func benchARCMax(path string) uint64 {
	b, err := os.ReadFile(path)
	if err != nil {
		return 0
	}
	for _, l := range strings.Split(string(b), "\n") {
		f := strings.Fields(l)
		if len(f) == 3 && f[0] == "c_max" {
			n, _ := strconv.ParseUint(f[2], 10, 64)
			return n
		}
	}
	return 0
}

// benchZFSCompression asks zfs for the dataset's compression property.
func benchZFSCompression(ctx context.Context, dataset string) string {
	if dataset == "" {
		return ""
	}
	ctx, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	out, err := exec.CommandContext(ctx, "zfs", "get", "-H", "-o", "value", "compression", dataset).Output()
	if err != nil {
		return ""
	}
	return strings.TrimSpace(string(out))
}

// benchProbeDirect opens a file in dir with O_DIRECT and writes one aligned
// 4 KiB block: the only way to know the filesystem honours it.
func benchProbeDirect(dir string) (bool, string) {
	p := filepath.Join(dir, fmt.Sprintf(".diskdoctor-odirect-%d.tmp", os.Getpid()))
	defer os.Remove(p)
	fd, err := syscall.Open(p, syscall.O_WRONLY|syscall.O_CREAT|syscall.O_EXCL|syscall.O_DIRECT|syscall.O_CLOEXEC, 0o600)
	if err != nil {
		if errors.Is(err, syscall.EINVAL) {
			return false, "open with O_DIRECT: " + err.Error()
		}
		return false, "open: " + err.Error()
	}
	defer syscall.Close(fd)
	buf, err := syscall.Mmap(-1, 0, 4096, syscall.PROT_READ|syscall.PROT_WRITE, syscall.MAP_ANON|syscall.MAP_PRIVATE)
	if err != nil {
		return false, "mmap: " + err.Error()
	}
	defer syscall.Munmap(buf)
	_, _ = rand.Read(buf)
	if _, err := syscall.Write(fd, buf); err != nil {
		return false, "aligned 4 KiB O_DIRECT write: " + err.Error()
	}
	return true, ""
}

// benchExamine runs the doctor on the devices under the target. For a ZFS
// dataset the pool's members come from the devices' zfs_pools facts.
func benchExamine(ctx context.Context, pf *benchPathFacts, o benchOptions) (*rules.Report, error) {
	eo := options{format: "json", probeTimeout: o.probeTimeout, datasheets: o.datasheets, context: "benchmark"}
	if len(pf.Disks) > 0 {
		eo.devices = append([]string(nil), pf.Disks...)
		if pf.Device != "" && !benchContains(eo.devices, pf.Device) {
			eo.devices = append(eo.devices, pf.Device)
		}
	}
	rep, err := examine(ctx, eo)
	if err != nil && len(eo.devices) > 0 {
		// A device the inventory does not list (a stacked device it skips):
		// judge the whole machine, and the preflight picks what applies.
		eo.devices = nil
		rep, err = examine(ctx, eo)
	}
	if err != nil {
		return nil, err
	}
	if pf.Pool != "" && len(pf.Disks) == 0 {
		for _, d := range rep.Devices {
			if pools, ok := d["zfs_pools"].([]string); ok && benchContains(pools, pf.Pool) {
				pf.Disks = append(pf.Disks, d["name"].(string))
			}
		}
		if len(pf.Disks) == 0 {
			pf.DeviceNote = fmt.Sprintf("ZFS pool %s: its member disks could not be found, so device findings are skipped; only the pool's and host-wide findings apply", pf.Pool)
		}
	}
	return rep, nil
}
