package block

import (
	"context"
	"math"
	"path"
	"runtime"
	"sort"
	"strconv"
	"strings"

	"github.com/diskdoctor/diskdoctor/internal/parallel"
	"github.com/diskdoctor/diskdoctor/internal/parse"
	"github.com/diskdoctor/diskdoctor/machine"
	"github.com/diskdoctor/diskdoctor/probes/udev"
)

// Device is what sysfs and udev say about one entry of /sys/block.
type Device struct {
	Name    string // sda, nvme0n1
	SysPath string // resolved machine path, /sys/devices/.../block/sda
	DevNo   string // 8:0

	// Virtual devices (loop, zram, ram, dm-*, md*) are inventoried but
	// not judged unless asked for; NVMe per-path devices are paths of a
	// namespace head, not disks.
	Virtual  bool
	NVMePath bool
	// PathOnly: an NVMe per-path disk of which only the name, the
	// resolved path and the controller were read (ReadPathsNamed); its
	// other fields are unknown, not empty.
	PathOnly bool
	// Hypervisor names what backs a virtual disk (a guest's disk: VMware,
	// Hyper-V, Xen, QEMU, virtio, VirtualBox, Amazon EBS, Google Persistent
	// Disk), and HypervisorWhy the vendor, model, driver or path that said
	// so; "" for a physical disk.
	Hypervisor, HypervisorWhy string
	// PCIID is vendor:device of the nearest PCI function above the disk
	// ("1d0f:8061"), "" when none is recorded.
	PCIID string

	Transport string   // sata, sas, nvme, usb, virtio, mmc, scsi, raid, virtual, unknown
	Drivers   []string // drivers bound along the device path, nearest first

	Model, Vendor, Serial, Firmware, WWN string
	// SizeBytes is the size attribute in bytes; nil when it could not be
	// read or does not fit 64 bits (a hostile or corrupt recording).
	SizeBytes  *uint64
	Removable  bool
	Rotational *bool

	ByID        []string // /dev/disk/by-id/...
	Partitions  []Partition
	Holders     []string // dm-0, md127 stacked on the disk or a partition
	SCSIAddr    string   // H:C:T:L
	Controllers []string // nvme0 (the controllers behind a namespace)
	// Multipath is set on a path of a device-mapper multipath map: the
	// disk is one of several routes to one drive.
	Multipath *Multipath

	Queue Queue
	Udev  *udev.Record

	// Files records the machine path each attribute was read from, for evidence.
	Files map[string]string
}

// Queue holds /sys/block/<dev>/queue attributes; "" where a file is absent.
type Queue struct {
	WriteCache         string // "write back" / "write through"
	Scheduler          string // the active one: none, mq-deadline, bfq, kyber
	Schedulers         []string
	DiscardGranularity *uint64
	DiscardMaxBytes    *uint64
	NrRequests         string
	FUA                string
}

// Partition is a partition of a disk, with its filesystem (mount points
// come from mountinfo, by device number).
type Partition struct {
	Name, DevNo, FSType, Label string
	Holders                    []string
	// Links are udev's device links of the partition (relative to /dev),
	// kept so that no check reads its record a second time.
	Links []string
}

// DevPath is the stable name to give in commands: the first by-id link
// (prefer ata-/nvme-/scsi- over wwn-), else /dev/<name>.
func (d *Device) DevPath() string {
	best := ""
	for _, l := range d.ByID {
		b := path.Base(l)
		if strings.HasPrefix(b, "wwn-") || strings.HasPrefix(b, "nvme-eui.") {
			if best == "" {
				best = l
			}
			continue
		}
		if best == "" || strings.HasPrefix(path.Base(best), "wwn-") || strings.HasPrefix(path.Base(best), "nvme-eui.") {
			best = l
		}
	}
	if best != "" {
		return best
	}
	return "/dev/" + d.Name
}

// InUse reports whether anything lives on the device: a mounted filesystem,
// swap, a pool member, a RAID member or a stacked device.
func (d *Device) InUse() bool {
	if len(d.Holders) > 0 {
		return true
	}
	for _, p := range d.Partitions {
		if len(p.Holders) > 0 || p.FSType != "" {
			return true
		}
	}
	fs := d.Udev.Prop("ID_FS_TYPE")
	return fs != ""
}

// Read inventories /sys/block: sysfs for the device, its queue,
// bus, drivers and partitions, udev's record for identity and links. (Not
// ghw's block listing: it rereads the udev record per attribute and
// rescans the mount table per partition, which grows with the square of a
// big machine's disks, and its path override that would skip that panics
// in v0.27.0.)
func Read(ctx context.Context, h *machine.Host) ([]*Device, error) {
	return ReadPathsNamed(ctx, h, nil)
}

// ReadPathsNamed is Read for a run that judges no NVMe per-path disk
// but those named in paths (diskdoctor --device): the others are read
// by name, resolved path and controller only (Device.PathOnly), not their
// attributes, udev record (they have none) and partitions. A run that
// does not judge them asks nothing else of them, and a machine of NVMe
// drives with native multipath has one per controller of each namespace.
func ReadPathsNamed(ctx context.Context, h *machine.Host, paths []string) ([]*Device, error) {
	all, err := h.ReadDir(ctx, "/sys/block")
	if err != nil {
		return nil, err
	}
	// A name no kernel would create is refused here, before anything can
	// print it (RefusedDeviceNames lists them for the report).
	ents := all[:0:0]
	for _, e := range all {
		if ValidName(e.Name()) {
			ents = append(ents, e)
		}
	}
	// The per-device reads are independent and cost CPU (system calls), not
	// waiting: one worker per core; more only contend.
	out := make([]*Device, len(ents))
	ix := &shared{h: h}
	parallel.Each(len(ents), runtime.GOMAXPROCS(0), func(i int) {
		if ctx.Err() == nil {
			name := ents[i].Name()
			if ctrl, ok := nvmePathController(name); ok && !Named(paths, name) {
				out[i] = readPathOnly(h, name, ctrl)
				return
			}
			out[i] = readBlockDevice(ctx, h, ix, name)
		}
	})
	if err := ctx.Err(); err != nil {
		return nil, machine.CtxErr(err)
	}
	keepOwnByIDLinks(h, out)
	markMultipath(ctx, h, out)
	sort.Slice(out, func(i, j int) bool { return parse.NaturalLess(out[i].Name, out[j].Name) })
	return out, nil
}

// readPathOnly is an NVMe per-path disk nvme<s>c<ctrl>n<ns> read by its
// name: its resolved path and its controller, nvme<ctrl>
// (drivers/nvme/host/multipath.c nvme_set_disk_name).
func readPathOnly(h *machine.Host, name, ctrl string) *Device {
	return &Device{Name: name, SysPath: resolvedPath(h, name), Files: map[string]string{}, NVMePath: true, PathOnly: true, Transport: "nvme", Controllers: []string{"nvme" + ctrl}}
}

// resolvedPath is where /sys/block/<name> leads, the link itself when it
// cannot be resolved.
func resolvedPath(h *machine.Host, name string) string {
	link := "/sys/block/" + name
	if p, _ := h.Resolve(link); p != "" {
		return p
	}
	return link
}

// Named reports whether names (diskdoctor --device) name the device name,
// as name or as /dev/name.
func Named(names []string, name string) bool {
	for _, n := range names {
		if n == name || n == "/dev/"+name {
			return true
		}
	}
	return false
}

func readBlockDevice(ctx context.Context, h *machine.Host, ix *shared, name string) *Device {
	d := &Device{Name: name, SysPath: resolvedPath(h, name), Files: map[string]string{}}
	link := "/sys/block/" + name
	d.DevNo, _ = h.ReadString(ctx, link+"/dev")
	if d.DevNo != "" {
		d.Udev, _ = udev.Read(ctx, h, d.DevNo)
	}
	// Only NVMe multipath hides a disk (GENHD_FL_HIDDEN on its per-path
	// devices): the attribute is not read for the others.
	_, d.NVMePath = nvmePathController(name)
	if !d.NVMePath && strings.HasPrefix(name, "nvme") {
		hidden, _ := h.ReadString(ctx, link+"/hidden")
		d.NVMePath = hidden == "1"
	}
	d.Virtual = isVirtualName(name) || strings.Contains(d.SysPath, "/devices/virtual/block/")

	d.Drivers = driversAlong(h, d.SysPath)
	// scsi_debug and other pseudo adapters live under /devices/pseudo_N:
	// test devices, not disks.
	if strings.Contains(d.SysPath, "/devices/pseudo_") || d.hasDriver("scsi_debug") {
		d.Virtual = true
	}
	d.Transport = transport(d)

	if v, err := h.ReadString(ctx, link+"/size"); err == nil {
		d.SizeBytes = SectorsToBytes(v)
	}
	removable, _ := h.ReadString(ctx, link+"/removable")
	d.Removable = removable == "1"
	d.readIdentity(ctx, h, ix, link)
	if d.Transport == "nvme" && len(d.Drivers) == 0 && len(d.Controllers) > 0 {
		// A native multipath head sits under its subsystem, a virtual
		// device with no driver bound above it (drivers/nvme/host/
		// multipath.c): its drivers are those of its first controller's
		// path, nvme on the PCI function and the ports above it, as for a
		// namespace under its controller.
		if dir, err := h.Resolve("/sys/class/nvme/" + d.Controllers[0]); err == nil {
			d.Drivers = driversAlong(h, dir)
		}
	}
	d.PCIID = pciIDAbove(ctx, h, d.SysPath)
	d.Hypervisor, d.HypervisorWhy = hypervisorOf(d)
	d.readQueue(ctx, h, link)
	d.readStack(ctx, h, link)
	if d.Udev != nil {
		for _, l := range d.Udev.Links {
			if strings.HasPrefix(l, "disk/by-id/") && isUdevLinkName(strings.TrimPrefix(l, "disk/by-id/")) {
				d.ByID = append(d.ByID, "/dev/"+l)
			}
		}
	}
	if d.Udev == nil {
		// No udev record to say which links are the device's: those of
		// /dev/disk/by-id that name it. A record's S: lines are every link
		// udev made for the device (udev-node.c), so a device whose record
		// lists none (a loop device, a dm device udev gives no identity)
		// has none there to find.
		d.ByID = ix.byIDLinks(ctx, name)
	}
	return d
}

// readIdentity reads model, vendor, serial, WWN and firmware: udev's record
// first (the full ATA model, not the 16-character SCSI product), sysfs where
// udev has none.
func (d *Device) readIdentity(ctx context.Context, h *machine.Host, ix *shared, link string) {
	u := d.Udev
	// What is kept of the record is copied out of it (Prop shares the
	// record's memory): a model or serial must not hold the whole udev
	// record alive for the rest of the run.
	d.Model = strings.Clone(strings.ReplaceAll(u.Prop("ID_MODEL"), "_", " "))
	if d.Model == "" {
		for _, p := range []string{link + "/device/model", link + "/device/device/model"} {
			if v, err := h.ReadString(ctx, p); err == nil && v != "" {
				d.Model, d.Files["model"] = v, p
				break
			}
		}
	}
	if d.Transport != "nvme" {
		// An NVMe namespace's device is its controller, which has no
		// vendor attribute (the PCI function above it has an ID, not a
		// name): only udev's record names its vendor.
		d.Vendor, _ = h.ReadString(ctx, link+"/device/vendor")
	}
	if d.Vendor == "" {
		d.Vendor = strings.Clone(u.Prop("ID_VENDOR"))
	}
	d.Serial = strings.Clone(parse.FirstNonEmpty(u.Prop("SCSI_IDENT_SERIAL"), u.Prop("ID_SCSI_SERIAL"), u.Prop("ID_SERIAL_SHORT")))
	if d.Serial == "" {
		d.Serial, _ = h.ReadString(ctx, link+"/device/serial")
	}
	d.WWN = strings.Clone(parse.FirstNonEmpty(u.Prop("ID_WWN_WITH_EXTENSION"), u.Prop("ID_WWN")))
	if d.WWN == "" {
		d.WWN, _ = h.ReadString(ctx, link+"/wwid")
	}
	d.Firmware = strings.Clone(u.Prop("ID_REVISION"))
	if d.Firmware == "" {
		d.Firmware, _ = h.ReadString(ctx, link+"/device/rev")
	}
	if d.Transport == "nvme" {
		d.Controllers = nvmeControllers(ctx, h, ix, d)
		if d.Firmware == "" {
			d.Firmware, _ = h.ReadString(ctx, link+"/device/firmware_rev")
		}
	}
	if addr, ok := scsiDiskAddr(d); ok {
		d.SCSIAddr = addr
	} else if d.Transport != "nvme" {
		// An NVMe namespace never has one; another disk whose device's
		// driver link was not recorded is looked up.
		if ents, err := h.ReadDir(ctx, link+"/device/scsi_disk"); err == nil && len(ents) > 0 {
			d.SCSIAddr = ents[0].Name()
		}
	}
	if s, err := h.ReadString(ctx, link+"/queue/rotational"); err == nil {
		r := s == "1"
		d.Rotational = &r
		d.Files["rotational"] = link + "/queue/rotational"
	}
}

func (d *Device) readQueue(ctx context.Context, h *machine.Host, link string) {
	q := &d.Queue
	read := func(attr string) string {
		p := link + "/queue/" + attr
		v, err := h.ReadString(ctx, p)
		if err == nil {
			d.Files[attr] = p
		}
		return v
	}
	q.WriteCache = read("write_cache")
	q.Scheduler, q.Schedulers = ParseScheduler(read("scheduler"))
	if v, err := strconv.ParseUint(read("discard_granularity"), 10, 64); err == nil {
		q.DiscardGranularity = &v
	}
	if v, err := strconv.ParseUint(read("discard_max_bytes"), 10, 64); err == nil {
		q.DiscardMaxBytes = &v
	}
	q.NrRequests = read("nr_requests")
	q.FUA = read("fua")
}

// readStack finds partitions (subdirectories with a "partition" file),
// their filesystems from udev, and what is stacked on the disk.
func (d *Device) readStack(ctx context.Context, h *machine.Host, link string) {
	d.Holders = names(ctx, h, link+"/holders")
	ents, _ := h.ReadDir(ctx, link)
	for _, e := range ents {
		pdir := link + "/" + e.Name()
		if !strings.HasPrefix(e.Name(), d.Name) || !h.Exists(pdir+"/partition") {
			continue
		}
		p := Partition{Name: e.Name()}
		p.DevNo, _ = h.ReadString(ctx, pdir+"/dev")
		p.Holders = names(ctx, h, pdir+"/holders")
		if u, err := udev.Read(ctx, h, p.DevNo); err == nil {
			// Copied out of the record, which is not kept.
			p.FSType, p.Label = strings.Clone(u.Prop("ID_FS_TYPE")), strings.Clone(u.Prop("ID_FS_LABEL"))
			for _, l := range u.Links {
				p.Links = append(p.Links, strings.Clone(l))
			}
		}
		d.Partitions = append(d.Partitions, p)
	}
	sort.Slice(d.Partitions, func(i, j int) bool { return parse.NaturalLess(d.Partitions[i].Name, d.Partitions[j].Name) })
}

func names(ctx context.Context, h *machine.Host, dir string) []string {
	ents, _ := h.ReadDir(ctx, dir)
	var out []string
	for _, e := range ents {
		out = append(out, e.Name())
	}
	return out
}

// driversAlong lists the drivers bound to the device and its ancestors
// (sd, ahci; nvme; usb-storage/uas; virtio_blk; hpsa...), nearest first.
func driversAlong(h *machine.Host, sysPath string) []string {
	var out []string
	boundAlong(h, sysPath, func(_, drv string) bool {
		out = append(out, drv)
		return true
	})
	return out
}

// DriverLink is the driver link (a machine path) of the nearest node above
// sysPath bound to drv, "" when none is.
func DriverLink(h *machine.Host, sysPath, drv string) string {
	found := ""
	boundAlong(h, sysPath, func(link, d string) bool {
		if d == drv {
			found = link
		}
		return found == ""
	})
	return found
}

// boundAlong calls yield with the driver link and the driver's name of
// each node above sysPath that a driver is bound to, nearest first, until
// yield returns false; the nodes no driver binds are not asked.
func boundAlong(h *machine.Host, sysPath string, yield func(link, drv string) bool) {
	for p := path.Dir(sysPath); strings.HasPrefix(p, "/sys/devices/") && p != "/sys/devices"; p = path.Dir(p) {
		if isNeverBound(path.Base(p)) {
			continue
		}
		if t, err := h.Readlink(p + "/driver"); err == nil && !yield(p+"/driver", path.Base(t)) {
			return
		}
	}
}

// SectorsToBytes reads a sysfs count of 512-byte sectors (the block
// layer's unit whatever the logical block size: Documentation/ABI/stable/
// sysfs-block, "size") as bytes; nil when it is not a number or its bytes
// do not fit 64 bits, rather than a wrapped product.
func SectorsToBytes(v string) *uint64 {
	n, err := strconv.ParseUint(strings.TrimSpace(v), 10, 64)
	if err != nil || n > math.MaxUint64/512 {
		return nil
	}
	n *= 512
	return &n
}

// NormalizeSpaces collapses runs of blanks and underscores (udev's model
// strings use underscores, sysfs pads with spaces).
func NormalizeSpaces(s string) string {
	return strings.Join(strings.FieldsFunc(s, func(r rune) bool { return r == ' ' || r == '_' || r == '\t' }), " ")
}

// ParseScheduler splits "none [mq-deadline] kyber bfq" into the active
// scheduler and the available ones. A device without a choice reads "none".
func ParseScheduler(s string) (string, []string) {
	var active string
	var all []string
	for _, f := range strings.Fields(s) {
		if strings.HasPrefix(f, "[") && strings.HasSuffix(f, "]") && len(f) > 2 {
			f = f[1 : len(f)-1]
			active = f
		}
		all = append(all, f)
	}
	if active == "" && len(all) == 1 && !strings.ContainsAny(all[0], "[]") {
		active = all[0]
	}
	return active, all
}

// RefusedNames lists entries of /sys/block whose names no kernel
// would create (ReadBlockDevices leaves them out).
func RefusedNames(ctx context.Context, h *machine.Host) []string {
	ents, err := h.ReadDir(ctx, "/sys/block")
	if err != nil {
		return nil
	}
	var out []string
	for _, e := range ents {
		if !ValidName(e.Name()) {
			out = append(out, e.Name())
		}
	}
	return out
}

// NVMePCIAddresses maps each NVMe controller to its PCI function
// (/sys/class/nvme/nvmeN/device), for attributing the PCI core's messages.
func NVMePCIAddresses(h *machine.Host, devs []*Device) map[string]string {
	out := map[string]string{}
	var ctrls []string
	for _, d := range devs {
		ctrls = append(ctrls, d.Controllers...)
		// A namespace under its controller shows the function in its own
		// resolved path: no second walk of the controller's link.
		for _, c := range d.Controllers {
			if fn, ok := d.ControllerFunction(c); ok {
				out[c] = path.Base(fn)
			}
		}
	}
	sort.Strings(ctrls)
	for _, c := range ctrls {
		if _, ok := out[c]; ok {
			continue
		}
		if dir, err := h.Resolve("/sys/class/nvme/" + c + "/device"); err == nil {
			out[c] = path.Base(dir)
		}
	}
	return out
}
