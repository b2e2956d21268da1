package main

// A synthetic recorded machine (docs/fixtures.md) with any number of disks,
// for the 1,000-disk benchmark of `make bench`. It is written in the layout a
// real kernel exposes — relative sysfs links computed the way kernfs writes
// them, the kernel's sd and NVMe device numbers, udev records as systemd
// writes them — so that the benchmark measures the code paths a real machine
// takes (ghw, procfs, the udev parser, the recorded command runner).

import (
	"fmt"
	"os"
	"path"
	"path/filepath"
	"strconv"
	"strings"
)

// synthDisk is one disk of the synthetic machine and the problems it has.
type synthDisk struct {
	Name, Part string // sda, sda1; nvme0n1, nvme0n1p1
	NVMe, HDD  bool
	Index      int // SATA index (sda = 0) or NVMe controller number
	Maj, Min   int // the disk's device number; the partition is Min+1
	Model      synthModel
	Serial     string
	WWN        string // 0x5001b444a... (SATA), eui.... (NVMe)

	WriteThrough bool // SATA: drive cache off, kernel "write through", boot log "disabled"
	Degraded     bool // NVMe: link trained at 8.0 GT/s x2 of 16.0 GT/s x4
	ZFS          bool // partition 1 is a zfs_member of pool synthPool
	LVM          int  // NVMe: >0 when partition 2 holds LVM volume group data<LVM-1> with one volume, dm-<LVM-1>
	MountPoint   string

	RootComplex, PCIFunc string // pci0000:00, 0000:00:17.0 (SATA: the AHCI function)
	SysDir               string // machine path of the disk's resolved sysfs directory

	// NVMe, with native multipath (nvme_core.multipath=Y, the default of
	// Debian's and TrueNAS's kernels) as on fixtures/r630-optane-schedutil:
	// Name and SysDir are the namespace head under its subsystem
	// (/sys/devices/virtual/nvme-subsystem/nvme-subsys<k>/nvme<k>n1);
	// PathName is the hidden per-path disk nvme<k>c<k>n1 under the
	// controller (PathDir), device number 259:Min-1
	// (drivers/nvme/host/multipath.c nvme_set_disk_name).
	PathName, PathDir string

	// MPath > 0: a dual-ported SAS drive seen on two paths (Paths; Name,
	// Maj, Min and SysDir are the first path's), joined by dm-multipath
	// into map mpath<letters> (dm-<MapMinor>) with one kpartx partition
	// (dm-<MapMinor+1>) mounted on /srv/<map name>.
	MPath    int
	Paths    [2]synthPath
	MapMinor int
}

// synthPath is one SCSI path to a multipathed drive: its sd device behind
// one of the two HBAs of the drive's JBOD.
type synthPath struct {
	Name            string // sdq
	Maj, Min        int
	Host, Target    int // SCSI address Host:0:Target:0
	RootComplex, RP string
	PCIFunc, SysDir string
}

// mapName is the multipath map's user_friendly_names alias: multipath-tools'
// "mpath" prefix and a letter suffix numbered like sd names
// (libmultipath/alias.c format_devname: mpatha..mpathz, mpathaa).
func (d *synthDisk) mapName() string { return "mpath" + synthLetters(d.MPath-1) }

// wwid is what multipath names the drive by, its udev ID_SERIAL: scsi_id's
// "3" (NAA designator of VPD page 0x83) and the NAA WWN without "0x".
func (d *synthDisk) wwid() string { return "3" + strings.TrimPrefix(d.WWN, "0x") }

// part1Sectors is the size of the first partition: the whole disk after
// the GPT (2048 sectors before, 2015 for the backup table after), or half
// of it where the second partition holds LVM.
func (d *synthDisk) part1Sectors() uint64 {
	all := d.Model.Sectors - 2048 - 2015
	if d.LVM > 0 {
		return all / 2
	}
	return all
}

// synthPool is the ZFS pool on the SSD partitions; its autotrim is off.
const synthPool = "tank"

type synthModel struct {
	ID       string // udev ID_MODEL (underscores for ATA, as udev writes it)
	ATA      string // ATA IDENTIFY / NVMe Identify model string
	Firmware string
	Sectors  uint64
	PhysBS   int
	HDD      bool
	SizeText string // the sd driver's "(2.00 TB/1.82 TiB)"
}

var (
	synthSATASSDs = []synthModel{
		{ID: "WDC_WDS200T1R0A-68A4W0", ATA: "WDC WDS200T1R0A-68A4W0", Firmware: "411010WR", Sectors: 3907029168, PhysBS: 512, SizeText: "(2.00 TB/1.82 TiB)"},
		{ID: "Samsung_SSD_860_EVO_1TB", ATA: "Samsung SSD 860 EVO 1TB", Firmware: "RVT04B6Q", Sectors: 1953525168, PhysBS: 512, SizeText: "(1.00 TB/932 GiB)"},
	}
	synthSATAHDD = synthModel{ID: "ST18000NM000J-2TV103", ATA: "ST18000NM000J-2TV103", Firmware: "SN04", Sectors: 35156656128, PhysBS: 4096, HDD: true, SizeText: "(18.0 TB/16.4 TiB)"}
	// The SAS drive of the dual-expander JBOD (each drive has two SAS
	// ports, one to each expander).
	synthSASHDD = synthModel{ID: "ST18000NM004J", ATA: "ST18000NM004J", Firmware: "E004", Sectors: 35156656128, PhysBS: 4096, HDD: true, SizeText: "(18.0 TB/16.4 TiB)"}
	synthNVMes  = []synthModel{
		{ID: "Samsung SSD 980 PRO 1TB", ATA: "Samsung SSD 980 PRO 1TB", Firmware: "5B2QGXA7", Sectors: 1953525168, PhysBS: 512},
		{ID: "Micron_7450_MTFDKCC3T8TFR", ATA: "Micron_7450_MTFDKCC3T8TFR", Firmware: "E2MU200", Sectors: 7501476528, PhysBS: 512},
	}
)

// synthPlan decides the disks of an n-disk machine: 55 % SATA (two thirds
// SSD, one third HDD), 40 % NVMe, 5 % dual-ported SAS HDDs in a
// dual-expander JBOD behind two mpt3sas HBAs, interleaved. Each SAS drive
// is one disk of the n, seen on two paths (two sd devices with one WWN,
// one per HBA) that dm-multipath joins into one map, mpatha.., with a
// kpartx partition holding a mounted XFS filesystem. About 5 % of all disks
// are SATA drives with the write cache off, about 3 % NVMe drives on a
// degraded link, and a quarter of the SATA SSDs hold a ZFS pool without
// autotrim; one NVMe drive in ten keeps half its space for an LVM volume.
// Every other ext4 partition is mounted. sd names and device numbers are
// handed out in one sequence to SATA disks and SAS paths, as sd.c's index
// allocator does; the SAS HBAs' SCSI hosts follow the AHCI ports', and the
// multipath maps' dm minors the LVM volumes'.
func synthPlan(n int) []synthDisk {
	// The AHCI ports and LVM volumes come first in their numberings.
	var nSATA, nNVMe, nLVM int
	for i := 0; i < n; i++ {
		switch synthKind(i) {
		case synthKindSATA:
			nSATA++
		case synthKindNVMe:
			if nNVMe%10 == 5 {
				nLVM++
			}
			nNVMe++
		}
	}
	disks := make([]synthDisk, 0, n)
	sata, nvme, lvm, sas, sd := 0, 0, 0, 0, 0
	for i := 0; i < n; i++ {
		var d synthDisk
		switch synthKind(i) {
		case synthKindNVMe:
			k := nvme
			nvme++
			m := synthNVMes[k%len(synthNVMes)]
			d = synthDisk{
				Name: fmt.Sprintf("nvme%dn1", k), Part: fmt.Sprintf("nvme%dn1p1", k),
				// The per-path disk is added before its head, the head
				// before its partition scan (nvme_alloc_ns, then
				// nvme_mpath_set_live): three minors each, as on the
				// r630 fixture (path 259:0, head 259:1, p1 259:2).
				NVMe: true, Index: k, Maj: 259, Min: 3*k + 1, Model: m,
				Degraded: k%13 == 7,
			}
			if k%10 == 5 {
				// One NVMe drive in ten keeps half its space for LVM.
				lvm++
				d.LVM = lvm
			}
			if strings.HasPrefix(m.ID, "Samsung") {
				d.Serial = fmt.Sprintf("S5GXNF0R%06dX", 100000+k)
				d.WWN = fmt.Sprintf("eui.002538b%09x", 0x411000000+k)
			} else {
				d.Serial = fmt.Sprintf("2231%08X", 0x3A000000+k)
				d.WWN = fmt.Sprintf("eui.000000000000000100a07523%08x", 0x3a000000+k)
			}
			d.RootComplex, _, d.PCIFunc = synthSlot(k/127, k%127)
			// The subsystem takes its first controller's instance
			// (nvme_init_subsystem), so nvme<k>'s is nvme-subsys<k>.
			d.PathName = fmt.Sprintf("nvme%dc%dn1", k, k)
			d.PathDir = fmt.Sprintf("/sys/devices/%s/%s/%s/nvme/nvme%d/%s", d.RootComplex, synthRootPort(k/127, k%127), d.PCIFunc, k, d.PathName)
			d.SysDir = fmt.Sprintf("/sys/devices/virtual/nvme-subsystem/nvme-subsys%d/%s", k, d.Name)
			if k%2 == 0 {
				d.MountPoint = "/srv/" + d.Name
			}
		case synthKindSAS:
			k := sas
			sas++
			d = synthDisk{HDD: true, Index: k, Model: synthSASHDD, MPath: k + 1, MapMinor: nLVM + 2*k}
			d.Serial = fmt.Sprintf("ZR7%05X0000C%03d%04X", 0x0B000+k, 300+k%700, 0x4F00+k)
			d.WWN = fmt.Sprintf("0x5000c500e%07x", 0x2c40000+k)
			// 60 bays per JBOD; each JBOD's two expanders are cabled to
			// their own HBA, a PCI function in a segment of its own.
			jbod, bay := k/60, k%60
			for p := range d.Paths {
				maj, min := synthSDDevNo(sd)
				rc, rp, fn := synthSlot(0x20+jbod, p)
				host := nSATA + 2*jbod + p
				d.Paths[p] = synthPath{Name: synthSDName(sd), Maj: maj, Min: min, Host: host, Target: bay, RootComplex: rc, RP: rp, PCIFunc: fn,
					SysDir: fmt.Sprintf("/sys/devices/%s/%s/%s/host%d/port-%d:0/expander-%d:0/port-%d:0:%d/end_device-%d:0:%d/target%d:0:%d/%d:0:%d:0/block/%s",
						rc, rp, fn, host, host, host, host, bay, host, bay, host, bay, host, bay, synthSDName(sd))}
				sd++
			}
			d.Name, d.Maj, d.Min, d.SysDir = d.Paths[0].Name, d.Paths[0].Maj, d.Paths[0].Min, d.Paths[0].SysDir
			d.RootComplex, d.PCIFunc = d.Paths[0].RootComplex, d.Paths[0].PCIFunc
			d.MountPoint = "/srv/" + d.mapName()
		default:
			s := sata
			sata++
			hdd := s%9 >= 6
			m := synthSATAHDD
			if !hdd {
				m = synthSATASSDs[s%len(synthSATASSDs)]
			}
			maj, min := synthSDDevNo(sd)
			d = synthDisk{
				Name: synthSDName(sd), NVMe: false, HDD: hdd, Index: s, Maj: maj, Min: min, Model: m,
				WriteThrough: s%12 == 5,
				ZFS:          !hdd && s%4 == 1,
			}
			sd++
			d.Part = d.Name + "1"
			switch {
			case strings.HasPrefix(m.ID, "WDC"):
				d.Serial = fmt.Sprintf("2%03dA8%06d", 100+s%900, 400000+s)
				d.WWN = fmt.Sprintf("0x5001b444a%07x", 0x4a10000+s)
			case strings.HasPrefix(m.ID, "Samsung"):
				d.Serial = fmt.Sprintf("S4X6NF0M%06dZ", 300000+s)
				d.WWN = fmt.Sprintf("0x5002538e4%07x", 0x0b20000+s)
			default:
				d.Serial = fmt.Sprintf("ZR5%05X", 0x0A000+s)
				d.WWN = fmt.Sprintf("0x5000c500d%07x", 0x6e30000+s)
			}
			// 32 ports per AHCI function: the chipset's 0000:00:17.0, then
			// add-in controllers in their own PCI segments.
			if c := s / 32; c == 0 {
				d.RootComplex, d.PCIFunc = "pci0000:00", "0000:00:17.0"
				d.SysDir = "/sys/devices/pci0000:00/0000:00:17.0"
			} else {
				h := c - 1
				var rp string
				d.RootComplex, rp, d.PCIFunc = synthSlot(0x10+h/127, h%127)
				d.SysDir = "/sys/devices/" + d.RootComplex + "/" + rp + "/" + d.PCIFunc
			}
			d.SysDir += fmt.Sprintf("/ata%d/host%d/target%d:0:0/%d:0:0:0/block/%s", s+1, s, s, s, d.Name)
			if !d.ZFS && s%2 == 0 {
				d.MountPoint = "/srv/" + d.Name
			}
		}
		if i == 0 {
			d.MountPoint, d.ZFS = "/", false
		}
		disks = append(disks, d)
	}
	return disks
}

const (
	synthKindSATA = iota
	synthKindNVMe
	synthKindSAS
)

// synthKind is the kind of the i-th disk: two in five NVMe, one in twenty
// a multipathed SAS drive (never the first, the root disk), the rest SATA.
func synthKind(i int) int {
	switch {
	case i%5 == 1 || i%5 == 3:
		return synthKindNVMe
	case i%20 == 12:
		return synthKindSAS
	}
	return synthKindSATA
}

// synthBlockDevices is how many entries /sys/block of an n-disk synthetic
// machine has: a device per disk, the hidden per-path disk of each NVMe
// namespace, the second path of each multipathed drive, its map and the
// map's partition, the LVM volumes and the loop devices; and how many of
// them are NVMe per-path disks, which the report does not list.
func synthBlockDevices(n int) (entries, nvmePaths int) {
	v := len(synthLoops)
	for _, d := range synthPlan(n) {
		v++
		if d.NVMe {
			nvmePaths++
		}
		if d.LVM > 0 {
			v++
		}
		if d.MPath > 0 {
			v += 3
		}
	}
	return v + nvmePaths, nvmePaths
}

// synthSlot places the j-th device (0..126) of PCI segment dom behind its own
// root port (00:01.1 .. 00:13.7, AMD style), on bus j+1.
func synthSlot(dom, j int) (rootComplex, rootPort, function string) {
	return fmt.Sprintf("pci%04x:00", dom), synthRootPort(dom, j), fmt.Sprintf("%04x:%02x:00.0", dom, j+1)
}

func synthRootPort(dom, j int) string {
	return fmt.Sprintf("%04x:00:%02x.%d", dom, 1+j/7, 1+j%7)
}

// synthSDName is the kernel's sd_format_disk_name: sda..sdz, sdaa..sdzz, sdaaa.
func synthSDName(i int) string { return "sd" + synthLetters(i) }

// synthLetters is the bijective base-26 suffix of sd_format_disk_name:
// a..z, aa..zz, aaa.
func synthLetters(i int) string {
	var b []byte
	for i++; i > 0; i /= 26 {
		i--
		b = append([]byte{byte('a' + i%26)}, b...)
	}
	return string(b)
}

// synthSDDevNo is sd.c's numbering: major sd_major((index & 0xf0) >> 4)
// (8, 65-71, 128-135), first minor ((index & 0xf) << 4) | (index & 0xfff00),
// so the 257th disk (sdiw) is 8:256.
func synthSDDevNo(i int) (int, int) {
	var maj int
	switch idx := (i & 0xf0) >> 4; {
	case idx == 0:
		maj = 8
	case idx <= 7:
		maj = 64 + idx
	default:
		maj = 128 + idx - 8
	}
	return maj, ((i & 0xf) << 4) | (i & 0xfff00)
}

// synthWriter writes machine paths ("/sys/...") under root, remembering the
// directories it made; the first error sticks.
type synthWriter struct {
	root  string
	dirs  map[string]bool
	done  map[string]bool // root ports already written
	links map[string]bool // device links under /dev already made
	err   error
}

func newSynthWriter(root string) *synthWriter {
	return &synthWriter{root: root, dirs: map[string]bool{}, done: map[string]bool{}, links: map[string]bool{}}
}

func (w *synthWriter) mkdir(p string) {
	if w.err != nil || w.dirs[p] {
		return
	}
	if err := os.MkdirAll(filepath.Join(w.root, p), 0o755); err != nil {
		w.err = err
		return
	}
	for q := p; q != "/" && q != "." && !w.dirs[q]; q = path.Dir(q) {
		w.dirs[q] = true
	}
}

func (w *synthWriter) file(p, content string) {
	w.mkdir(path.Dir(p))
	if w.err == nil {
		w.err = os.WriteFile(filepath.Join(w.root, p), []byte(content), 0o644)
	}
}

// link makes p a relative symlink to the machine path target.
func (w *synthWriter) link(p, target string) {
	w.mkdir(path.Dir(p))
	if w.err == nil {
		w.err = os.Symlink(synthRel(p, target), filepath.Join(w.root, p))
	}
}

// udev writes a device's record into udev's database and makes the device
// links it lists (S: lines, relative to /dev) the way udev does
// (link_update in src/udev/udev-node.c): a relative symlink from
// /dev/disk/by-id/ata-… to ../../sda. Where two devices claim one link (a
// ZFS pool's by-uuid and by-label, the same for every member) udev keeps
// one: the first written stays here.
func (w *synthWriter) udev(devno, kname, record string) {
	w.file("/run/udev/data/b"+devno, record)
	for _, line := range strings.Split(record, "\n") {
		l, ok := strings.CutPrefix(line, "S:")
		if !ok || w.err != nil {
			continue
		}
		p := "/dev/" + l
		if w.links[p] {
			continue
		}
		w.links[p] = true
		w.link(p, "/dev/"+kname)
	}
}

// synthRel is the relative link text kernfs writes (kernfs_get_target_path):
// up from the link's directory to the first ancestor of the target's parent,
// then down, so /sys/block/nvme0n1/device reads ../../nvme0, not "..".
func synthRel(link, target string) string {
	base, tdir := path.Dir(link), path.Dir(target)
	ups := 0
	for base != "/" && tdir != base && !strings.HasPrefix(tdir, base+"/") {
		base = path.Dir(base)
		ups++
	}
	rest := strings.TrimPrefix(strings.TrimPrefix(target, base), "/")
	return strings.Repeat("../", ups) + rest
}

// writeSyntheticMachine writes a recorded machine with n disks into dir
// (which may exist; it should be empty).
func writeSyntheticMachine(dir string, n int) error {
	w := newSynthWriter(dir)
	disks := synthPlan(n)
	synthHost(w)
	var dmesg strings.Builder
	clock := synthClock{}
	dmesg.WriteString(clock.line("Linux version 6.8.0-45-generic (buildd@lcy02-amd64-115) (x86_64-linux-gnu-gcc-13 (Ubuntu 13.2.0-23ubuntu4) 13.2.0, GNU ld (GNU Binutils for Ubuntu) 2.42) #45-Ubuntu SMP PREEMPT_DYNAMIC Fri Aug 30 12:02:04 UTC 2024 (Ubuntu 6.8.0-45.45-generic 6.8.12)"))
	dmesg.WriteString(clock.line("Command line: " + synthCmdline))
	dmesg.WriteString(clock.line("DMI: Supermicro SSG-6049P-E1CR60L/X11DSC+, BIOS 3.8a 10/02/2023"))
	dmesg.WriteString(clock.line("ahci 0000:00:17.0: AHCI 0001.0301 32 slots 8 ports 6 Gbps 0xff impl SATA mode"))

	var manifest strings.Builder
	manifest.WriteString("# synthetic recorded machine: commands replayed by exact argv\n")
	manifest.WriteString("- argv: [dmesg]\n  stdout: dmesg.txt\n")
	var mountinfo, mounts strings.Builder
	// df -P -T -k -l and df -P -T -i -l of the ext4 filesystems: each 40 %
	// used, blocks and inodes, so no space finding is planned.
	var df, dfInodes strings.Builder
	df.WriteString("Filesystem     Type 1024-blocks     Used Available Capacity Mounted on\n")
	dfInodes.WriteString("Filesystem     Type   Inodes   IUsed    IFree IUse% Mounted on\n")
	dfLine := func(part, mnt string) {
		df.WriteString(fmt.Sprintf("/dev/%s ext4 1000000000 400000000 600000000 40%% %s\n", part, mnt))
		dfInodes.WriteString(fmt.Sprintf("/dev/%s ext4 61054976 24421990 36632986 40%% %s\n", part, mnt))
	}
	rootMajMin := "0:0"
	if len(disks) > 0 {
		rootMajMin = fmt.Sprintf("%d:%d", disks[0].Maj, disks[0].Min+1)
		mountinfo.WriteString(fmt.Sprintf("27 1 %s / / rw,relatime shared:1 - ext4 /dev/%s rw,errors=remount-ro\n", rootMajMin, disks[0].Part))
		mounts.WriteString(fmt.Sprintf("/dev/%s / ext4 rw,relatime,errors=remount-ro 0 0\n", disks[0].Part))
		dfLine(disks[0].Part, "/")
	}
	for _, l := range synthSystemMounts {
		mountinfo.WriteString(l.info + "\n")
		mounts.WriteString(l.mount + "\n")
	}
	mountID := 200
	var lvs []string
	zfsMembers := 0
	// One healthy SMART reading per protocol serves every disk of it.
	w.file("/commands/smartctl-ata.json", `{"smartctl":{"exit_status":0},"device":{"protocol":"ATA"},"smart_status":{"passed":true}}`+"\n")
	w.file("/commands/smartctl-nvme.json", `{"smartctl":{"exit_status":0},"device":{"protocol":"NVMe"},"smart_status":{"passed":true}}`+"\n")
	w.file("/commands/smartctl-scsi.json", `{"smartctl":{"exit_status":0},"device":{"protocol":"SCSI"},"smart_status":{"passed":true}}`+"\n")
	var mpll strings.Builder // multipath -ll of every map, all paths up
	for i := range disks {
		d := &disks[i]
		if d.MPath > 0 {
			// smartctl asks the drive through each of its paths.
			for _, p := range d.Paths {
				manifest.WriteString(fmt.Sprintf("- argv: [smartctl, -x, -n, standby, -j, /dev/%s]\n  stdout: smartctl-scsi.json\n", p.Name))
			}
			synthMultipath(w, d, &dmesg, &clock)
			synthMultipathListing(&mpll, d)
			name := d.mapName() + "-part1"
			mountID++
			mountinfo.WriteString(fmt.Sprintf("%d 27 253:%d / %s rw,relatime shared:%d - xfs /dev/mapper/%s rw,attr2,inode64,logbufs=8,logbsize=32k,noquota\n", mountID, d.MapMinor+1, d.MountPoint, mountID-100, name))
			mounts.WriteString(fmt.Sprintf("/dev/mapper/%s %s xfs rw,relatime,attr2,inode64,logbufs=8,logbsize=32k,noquota 0 0\n", name, d.MountPoint))
			df.WriteString(fmt.Sprintf("/dev/mapper/%s xfs 1000000000 400000000 600000000 40%% %s\n", name, d.MountPoint))
			continue
		}
		smart := "smartctl-ata.json"
		if d.NVMe {
			smart = "smartctl-nvme.json"
		}
		manifest.WriteString(fmt.Sprintf("- argv: [smartctl, -x, -n, standby, -j, /dev/%s]\n  stdout: %s\n", d.Name, smart))
		if d.NVMe {
			synthNVMe(w, d, &dmesg, &clock)
			// Identify Namespace: 512-byte blocks in use with a 4 KiB
			// format beside it of the same Relative Performance, as many
			// client drives ship (NVM Command Set spec, LBA Format Data
			// Structure): nothing to judge.
			w.file("/commands/nvme-id-ns.json", `{"nlbaf":1,"flbas":0,"lbafs":[{"ms":0,"ds":9,"rp":0},{"ms":0,"ds":12,"rp":0}]}`+"\n")
			manifest.WriteString(fmt.Sprintf("- argv: [nvme, id-ns, -o, json, /dev/%s]\n  stdout: nvme-id-ns.json\n", d.Name))
			// The drive's own Volatile Write Cache feature agrees with the
			// kernel's view written above (a drive without VWC rejects it).
			f := "nvme-get-feature-06-off.txt"
			if b, err := os.ReadFile(filepath.Join(w.root, d.SysDir, "queue", "write_cache")); err == nil && strings.HasPrefix(string(b), "write back") {
				f = "nvme-get-feature-06-on.txt"
				w.file("/commands/"+f, "get-feature:0x06 (Volatile Write Cache), Current value:0x00000001\n")
				manifest.WriteString(fmt.Sprintf("- argv: [nvme, get-feature, -f, \"0x06\", /dev/%s]\n  stdout: %s\n", d.Name, f))
			} else {
				w.file("/commands/"+f, "NVMe status: INVALID_FIELD: A reserved coded value or an unsupported value in a defined field(0x2)\n")
				manifest.WriteString(fmt.Sprintf("- argv: [nvme, get-feature, -f, \"0x06\", /dev/%s]\n  stdout: %s\n  exit: 2\n", d.Name, f))
			}
		} else {
			synthSATA(w, d, &dmesg, &clock)
			f := "hdparm-W-" + d.Name + ".txt"
			state := " write-caching =  1 (on)"
			if d.WriteThrough {
				state = " write-caching =  0 (off)"
			}
			w.file("/commands/"+f, "\n/dev/"+d.Name+":\n"+state+"\n")
			manifest.WriteString(fmt.Sprintf("- argv: [hdparm, -W, /dev/%s]\n  stdout: %s\n", d.Name, f))
		}
		if d.ZFS {
			zfsMembers++
		}
		if d.LVM > 0 {
			j := d.LVM - 1
			mountID++
			mountinfo.WriteString(fmt.Sprintf("%d 27 253:%d / /srv/lv%d rw,relatime shared:%d - xfs /dev/mapper/data%d-srv rw,attr2,inode64,logbufs=8,logbsize=32k,noquota\n", mountID, j, d.LVM, mountID-100, d.LVM))
			mounts.WriteString(fmt.Sprintf("/dev/mapper/data%d-srv /srv/lv%d xfs rw,relatime,attr2,inode64,logbufs=8,logbsize=32k,noquota 0 0\n", d.LVM, d.LVM))
			df.WriteString(fmt.Sprintf("/dev/mapper/data%d-srv xfs 1000000000 400000000 600000000 40%% /srv/lv%d\n", d.LVM, d.LVM))
			lvs = append(lvs, fmt.Sprintf(`{"vg_name":"data%d","lv_name":"srv","lv_attr":"-wi-ao----","lv_size":"%d","data_percent":"","metadata_percent":"","pool_lv":""}`, d.LVM, (d.Model.Sectors-2048-2015-d.part1Sectors()-2048)*512))
		}
		if d.MountPoint != "" && d.MountPoint != "/" {
			mountID++
			mountinfo.WriteString(fmt.Sprintf("%d 27 %d:%d / %s rw,relatime shared:%d - ext4 /dev/%s rw\n", mountID, d.Maj, d.Min+1, d.MountPoint, mountID-100, d.Part))
			mounts.WriteString(fmt.Sprintf("/dev/%s %s ext4 rw,relatime 0 0\n", d.Part, d.MountPoint))
			dfLine(d.Part, d.MountPoint)
		}
	}
	synthLoopDevices(w, &mountinfo, &mounts, &mountID)
	if mpll.Len() > 0 {
		w.file("/commands/multipath-ll.txt", mpll.String())
		manifest.WriteString("- argv: [multipath, -ll]\n  stdout: multipath-ll.txt\n")
	}
	if len(lvs) > 0 {
		w.file("/commands/lvs-report.json", `{"report":[{"lv":[`+strings.Join(lvs, ",")+`]}]}`+"\n")
		manifest.WriteString("- argv: [lvs, --reportformat, json, --units, b, --nosuffix, -o, \"vg_name,lv_name,lv_attr,lv_size,data_percent,metadata_percent,pool_lv\"]\n  stdout: lvs-report.json\n")
	}
	w.file("/commands/df.txt", df.String())
	manifest.WriteString("- argv: [df, -P, -T, -k, -l]\n  stdout: df.txt\n")
	w.file("/commands/df-inodes.txt", dfInodes.String())
	manifest.WriteString("- argv: [df, -P, -T, -i, -l]\n  stdout: df-inodes.txt\n")
	if zfsMembers > 0 {
		for j, ds := range []string{"", "/backup", "/vm", "/media"} {
			mountID++
			mountinfo.WriteString(fmt.Sprintf("%d 27 0:%d / /%s%s rw,noatime shared:%d - zfs %s%s rw,xattr,noacl,casesensitive\n", mountID, 60+j, synthPool, ds, mountID-100, synthPool, ds))
			mounts.WriteString(fmt.Sprintf("%s%s /%s%s zfs rw,noatime,xattr,noacl,casesensitive 0 0\n", synthPool, ds, synthPool, ds))
		}
		w.file("/commands/zpool-get-autotrim.txt", synthPool+"\toff\n")
		// Quoted: in a YAML flow sequence a plain name,value is two items.
		manifest.WriteString("- argv: [zpool, get, -H, -o, \"name,value\", autotrim]\n  stdout: zpool-get-autotrim.txt\n")
		w.file("/commands/zpool-status-P-t.txt", "  pool: "+synthPool+"\n state: ONLINE\n  scan: none requested\nconfig:\n\n\tNAME  STATE  READ WRITE CKSUM\n\t"+synthPool+"  ONLINE  0 0 0\n\nerrors: No known data errors\n")
		// zpool status -D prints each pool's status and its dedup table
		// summary; a pool that never deduplicated says so
		// (cmd/zpool/zpool_main.c, print_dedup_stats).
		w.file("/commands/zpool-status-D.txt", "  pool: "+synthPool+"\n state: ONLINE\n  scan: none requested\nconfig:\n\n\tNAME  STATE  READ WRITE CKSUM\n\t"+synthPool+"  ONLINE  0 0 0\n\nerrors: No known data errors\n\n dedup: no DDT entries\n")
		manifest.WriteString("- argv: [zpool, status, -D]\n  stdout: zpool-status-D.txt\n")
		w.file("/commands/zpool-iostat.txt", "")
		w.file("/commands/zfs-get.txt", "")
		// Empty: the pool's space is unknown, so no space finding is planned.
		w.file("/commands/zpool-list.txt", "")
		manifest.WriteString("- argv: [zpool, list, -Hp, -o, \"name,size,allocated,free,fragmentation,capacity,health\"]\n  stdout: zpool-list.txt\n")
		manifest.WriteString("- argv: [zpool, status, -P, -t]\n  stdout: zpool-status-P-t.txt\n- argv: [zpool, iostat, -H, -p, -P, -v, -l, -y, \"1\", \"1\"]\n  stdout: zpool-iostat.txt\n- argv: [zfs, get, -H, -p, -t, \"filesystem,volume\", -o, \"name,property,value\", \"compression,sync,logbias,recordsize\"]\n  stdout: zfs-get.txt\n")
	}
	dmesg.WriteString(clock.line("EXT4-fs (" + synthFirstPart(disks) + "): mounted filesystem with ordered data mode. Quota mode: none."))
	dmesg.WriteString(clock.line("systemd[1]: Started fstrim.timer - Discard unused filesystem blocks once a week."))
	w.file("/commands/dmesg.txt", dmesg.String())
	w.file("/commands/manifest.yaml", manifest.String())
	w.file("/proc/1/mountinfo", mountinfo.String())
	w.file("/proc/1/mounts", mounts.String())
	w.link("/proc/self", "/proc/1")
	w.link("/proc/mounts", "/proc/self/mounts")
	return w.err
}

func synthFirstPart(disks []synthDisk) string {
	if len(disks) == 0 {
		return "sda1"
	}
	return disks[0].Part
}

// synthClock hands out increasing dmesg timestamps.
type synthClock struct{ usec int64 }

func (c *synthClock) line(msg string) string {
	c.usec += 731
	return fmt.Sprintf("[%5d.%06d] %s\n", c.usec/1e6, c.usec%1e6, msg)
}

func synthSATA(w *synthWriter, d *synthDisk, dmesg *strings.Builder, clock *synthClock) {
	s := d.Index
	m := d.Model
	scsiAddr := fmt.Sprintf("%d:0:0:0", s)
	scsiDev := path.Dir(path.Dir(d.SysDir)) // .../H:0:0:0
	fn := d.SysDir[:strings.Index(d.SysDir, "/ata")]
	if s%32 == 0 {
		synthPCIFunction(w, fn, "ahci", "0x8086", "0x2826", "0x010601")
		if d.PCIFunc != "0000:00:17.0" {
			synthRootPortDir(w, path.Dir(fn))
		}
	}
	cacheType, wc, bootWC, udevWC := "write back", "write back", "enabled", "1"
	if d.WriteThrough {
		cacheType, wc, bootWC, udevWC = "write through", "write through", "disabled", "0"
	}
	scsiModel := m.ATA
	if len(scsiModel) > 16 {
		scsiModel = scsiModel[:16]
	}
	rev := m.Firmware
	if len(rev) > 4 {
		rev = rev[len(rev)-4:]
	}
	w.file(scsiDev+"/model", fmt.Sprintf("%-16s\n", scsiModel))
	w.file(scsiDev+"/vendor", "ATA     \n")
	w.file(scsiDev+"/rev", rev+"\n")
	w.file(scsiDev+"/state", "running\n")
	w.file(scsiDev+"/queue_depth", "32\n")
	w.link(scsiDev+"/driver", "/sys/bus/scsi/drivers/sd")
	w.file(scsiDev+"/scsi_disk/"+scsiAddr+"/cache_type", cacheType+"\n")
	w.file(scsiDev+"/scsi_disk/"+scsiAddr+"/FUA", "0\n")
	w.link("/sys/class/scsi_disk/"+scsiAddr, scsiDev+"/scsi_disk/"+scsiAddr)
	// The port's LPM policy: "lpm-pol 0" in the boot log below is
	// ATA_LPM_UNKNOWN, which libata shows as keep_firmware_settings
	// (ata_lpm_policy_names, drivers/ata/libata-sata.c).
	hostDir := path.Dir(path.Dir(scsiDev))
	shost := hostDir + "/scsi_host/" + path.Base(hostDir)
	w.file(shost+"/link_power_management_policy", "keep_firmware_settings\n")
	w.link("/sys/class/scsi_host/"+path.Base(hostDir), shost)

	rot, dg, dmax, sched := "0", "512", "2147450880", "[mq-deadline] none\n"
	if d.HDD {
		rot, dg, dmax = "1", "0", "0"
	}
	synthBlock(w, d, rot, wc, sched, dg, dmax, "64", "0")
	w.link(d.SysDir+"/device", scsiDev)

	port := s%32 + 1
	pathID := fmt.Sprintf("pci-%s-ata-%d", d.PCIFunc, port)
	idSerial := m.ID + "_" + d.Serial
	var u strings.Builder
	fmt.Fprintf(&u, "S:disk/by-id/ata-%s\nS:disk/by-id/wwn-%s\nS:disk/by-path/%s\nS:disk/by-path/%s.0\n", idSerial, d.WWN, pathID, pathID)
	fmt.Fprintf(&u, "I:%d\n", 4100000+s*137)
	u.WriteString("E:ID_ATA=1\nE:ID_TYPE=disk\nE:ID_BUS=ata\n")
	fmt.Fprintf(&u, "E:ID_MODEL=%s\nE:ID_MODEL_ENC=%s\nE:ID_REVISION=%s\nE:ID_SERIAL=%s\nE:ID_SERIAL_SHORT=%s\n", m.ID, strings.ReplaceAll(m.ATA, " ", `\x20`), m.Firmware, idSerial, d.Serial)
	fmt.Fprintf(&u, "E:ID_ATA_WRITE_CACHE=1\nE:ID_ATA_WRITE_CACHE_ENABLED=%s\n", udevWC)
	if d.HDD {
		u.WriteString("E:ID_ATA_ROTATION_RATE_RPM=7200\n")
	} else {
		u.WriteString("E:ID_ATA_FEATURE_SET_TRIM=1\nE:ID_ATA_ROTATION_RATE_RPM=0\n")
	}
	fmt.Fprintf(&u, "E:ID_WWN=%s\nE:ID_WWN_WITH_EXTENSION=%s\n", d.WWN, d.WWN)
	fmt.Fprintf(&u, "E:ID_PATH=%s.0\nE:ID_PATH_TAG=%s\n", pathID, strings.NewReplacer(":", "_", ".", "_", "-", "_").Replace(pathID+".0"))
	fmt.Fprintf(&u, "E:ID_PART_TABLE_UUID=%s\nE:ID_PART_TABLE_TYPE=gpt\n", synthUUID(1, d.Maj*1000+d.Min))
	u.WriteString("G:systemd\nQ:systemd\nV:1\n")
	w.udev(fmt.Sprintf("%d:%d", d.Maj, d.Min), d.Name, u.String())
	synthPartUdev(w, d, "ata-"+idSerial, "wwn-"+d.WWN, pathID, fmt.Sprintf("E:ID_BUS=ata\nE:ID_MODEL=%s\nE:ID_SERIAL=%s\nE:ID_SERIAL_SHORT=%s\n", m.ID, idSerial, d.Serial))

	sd := fmt.Sprintf("sd %s: [%s] ", scsiAddr, d.Name)
	dmesg.WriteString(clock.line(fmt.Sprintf("ata%d: SATA max UDMA/133 abar m2048@0xa0000000 port 0x%08x irq 40 lpm-pol 0", s+1, 0xa0000100+0x80*(s%32))))
	dmesg.WriteString(clock.line(fmt.Sprintf("ata%d: SATA link up 6.0 Gbps (SStatus 133 SControl 300)", s+1)))
	dmesg.WriteString(clock.line(fmt.Sprintf("ata%d.00: ATA-11: %s, %s, max UDMA/133", s+1, m.ATA, m.Firmware)))
	dmesg.WriteString(clock.line(fmt.Sprintf("scsi %s: Direct-Access     ATA      %-16s %s PQ: 0 ANSI: 5", scsiAddr, scsiModel, rev)))
	dmesg.WriteString(clock.line(fmt.Sprintf("%s%d 512-byte logical blocks: %s", sd, m.Sectors, m.SizeText)))
	if m.PhysBS != 512 {
		dmesg.WriteString(clock.line(fmt.Sprintf("%s%d-byte physical blocks", sd, m.PhysBS)))
	}
	dmesg.WriteString(clock.line(sd + "Write Protect is off"))
	dmesg.WriteString(clock.line(sd + "Mode Sense: 00 3a 00 00"))
	dmesg.WriteString(clock.line(sd + "Write cache: " + bootWC + ", read cache: enabled, doesn't support DPO or FUA"))
	dmesg.WriteString(clock.line(fmt.Sprintf("%sPreferred minimum I/O size %d bytes", sd, m.PhysBS)))
	dmesg.WriteString(clock.line(fmt.Sprintf(" %s: %s", d.Name, d.Part)))
	dmesg.WriteString(clock.line(sd + "Attached SCSI disk"))
}

// synthNVMe writes an NVMe drive with native multipath, in the layout of
// fixtures/r630-optane-schedutil (drivers/nvme/host/multipath.c, core.c):
//
//   - the controller nvme<k> under its PCI function, with its subsysnqn;
//   - its subsystem /sys/devices/virtual/nvme-subsystem/nvme-subsys<k>
//     (model, serial, firmware_rev as the controller's, subsysnqn,
//     subsystype, iopolicy, a link to the controller) and its
//     /sys/class/nvme-subsystem link;
//   - the hidden per-path disk nvme<k>c<k>n1 under the controller: in
//     /sys/block, hidden = 1, ana_state, device -> the controller, no
//     partitions and no udev record (udev ignores hidden disks);
//   - the namespace head nvme<k>n1 under the subsystem: hidden = 0, no
//     ana_state, device -> the subsystem, multipath/ linking its path, the
//     partitions, and the udev records the drive's identity is in.
func synthNVMe(w *synthWriter, d *synthDisk, dmesg *strings.Builder, clock *synthClock) {
	// nvme_core's APST limit, its default (drivers/nvme/host/core.c).
	w.file("/sys/module/nvme_core/parameters/default_ps_max_latency_us", "100000\n")
	k := d.Index
	m := d.Model
	ctrlDir := path.Dir(d.PathDir)    // .../nvme/nvme<k>
	fn := path.Dir(path.Dir(ctrlDir)) // the PCI function
	subsysDir := path.Dir(d.SysDir)   // .../nvme-subsystem/nvme-subsys<k>
	synthRootPortDir(w, path.Dir(fn))
	vendor, device := "0x144d", "0xa80a"
	// The drives' own subsystem NQNs, in the formats public nvme-cli
	// listings of a 980 PRO and a Micron drive show.
	nqn := "nqn.1994-11.com.samsung:nvme:980PRO:M.2:" + d.Serial
	if !strings.HasPrefix(m.ID, "Samsung") {
		vendor, device = "0x1344", "0x51c3"
		nqn = "nqn.2016-08.com.micron:nvme:nvm-subsystem-sn-" + d.Serial
	}
	synthPCIFunction(w, fn, "nvme", vendor, device, "0x010802")
	cur, curW := "16.0 GT/s PCIe", "4"
	if d.Degraded {
		cur, curW = "8.0 GT/s PCIe", "2"
	}
	w.file(fn+"/current_link_speed", cur+"\n")
	w.file(fn+"/current_link_width", curW+"\n")
	w.file(fn+"/max_link_speed", "16.0 GT/s PCIe\n")
	w.file(fn+"/max_link_width", "4\n")

	ctrl := fmt.Sprintf("nvme%d", k)
	model, serial, firmware := fmt.Sprintf("%-40s\n", m.ATA), fmt.Sprintf("%-20s\n", d.Serial), fmt.Sprintf("%-8s\n", m.Firmware)
	w.file(ctrlDir+"/model", model)
	w.file(ctrlDir+"/serial", serial)
	w.file(ctrlDir+"/firmware_rev", firmware)
	w.file(ctrlDir+"/transport", "pcie\n")
	w.file(ctrlDir+"/address", d.PCIFunc+"\n")
	w.file(ctrlDir+"/state", "live\n")
	w.file(ctrlDir+"/subsysnqn", nqn+"\n")
	w.file(ctrlDir+"/dev", fmt.Sprintf("240:%d\n", k))
	w.link(ctrlDir+"/device", fn)
	w.link("/sys/class/nvme/"+ctrl, ctrlDir)

	w.file(subsysDir+"/model", model)
	w.file(subsysDir+"/serial", serial)
	w.file(subsysDir+"/firmware_rev", firmware)
	w.file(subsysDir+"/subsysnqn", nqn+"\n")
	w.file(subsysDir+"/subsystype", "nvm\n")
	w.file(subsysDir+"/iopolicy", "numa\n")
	w.link(subsysDir+"/"+ctrl, ctrlDir)
	w.link("/sys/class/nvme-subsystem/"+path.Base(subsysDir), subsysDir)

	// The per-path disk's size and queue read as the head's, as on the
	// r630 fixture (the head's limits are stacked from its paths':
	// nvme_update_ns_info, drivers/nvme/host/core.c).
	const rot, wc, sched, dg, dmax, nr, fua = "0", "write back", "[none] mq-deadline\n", "512", "2199023255040", "1023", "1"
	pd := *d
	pd.Name, pd.Min, pd.SysDir, pd.Part = d.PathName, d.Min-1, d.PathDir, ""
	synthBlock(w, &pd, rot, wc, sched, dg, dmax, nr, fua)
	w.link(d.PathDir+"/device", ctrlDir)
	w.file(d.PathDir+"/nsid", "1\n")
	w.file(d.PathDir+"/wwid", d.WWN+"\n")
	w.file(d.PathDir+"/ana_state", "optimized\n")

	synthBlock(w, d, rot, wc, sched, dg, dmax, nr, fua)
	w.link(d.SysDir+"/device", subsysDir)
	w.file(d.SysDir+"/nsid", "1\n")
	w.file(d.SysDir+"/wwid", d.WWN+"\n")
	w.link(d.SysDir+"/multipath/"+d.PathName, d.PathDir)

	idSerial := strings.ReplaceAll(m.ID, " ", "_") + "_" + d.Serial
	pathID := fmt.Sprintf("pci-%s-nvme-1", d.PCIFunc)
	var u strings.Builder
	fmt.Fprintf(&u, "S:disk/by-id/nvme-%s\nS:disk/by-id/nvme-%s_1\nS:disk/by-id/nvme-%s\nS:disk/by-path/%s\n", idSerial, idSerial, d.WWN, pathID)
	fmt.Fprintf(&u, "I:%d\n", 3900000+k*211)
	fmt.Fprintf(&u, "E:ID_SERIAL_SHORT=%s\nE:ID_WWN=%s\nE:ID_MODEL=%s\nE:ID_REVISION=%s\nE:ID_NSID=1\nE:ID_SERIAL=%s\n", d.Serial, d.WWN, m.ID, m.Firmware, m.ID+"_"+d.Serial)
	fmt.Fprintf(&u, "E:ID_PATH=%s\nE:ID_PATH_TAG=%s\n", pathID, strings.NewReplacer(":", "_", ".", "_", "-", "_").Replace(pathID))
	fmt.Fprintf(&u, "E:ID_PART_TABLE_UUID=%s\nE:ID_PART_TABLE_TYPE=gpt\n", synthUUID(1, d.Maj*1000+d.Min))
	u.WriteString("G:systemd\nQ:systemd\nV:1\n")
	w.udev(fmt.Sprintf("%d:%d", d.Maj, d.Min), d.Name, u.String())
	synthPartUdev(w, d, "nvme-"+idSerial, "nvme-"+d.WWN, pathID, fmt.Sprintf("E:ID_MODEL=%s\nE:ID_SERIAL=%s\nE:ID_SERIAL_SHORT=%s\n", m.ID, m.ID+"_"+d.Serial, d.Serial))
	if d.LVM > 0 {
		synthLVM(w, d, "nvme-"+idSerial, "nvme-"+d.WWN, pathID)
	}

	dmesg.WriteString(clock.line(fmt.Sprintf("nvme %s: pci function %s", ctrl, d.PCIFunc)))
	if d.Degraded {
		dmesg.WriteString(clock.line(fmt.Sprintf("pci %s: 15.752 Gb/s available PCIe bandwidth, limited by 8.0 GT/s PCIe x2 link at %s (capable of 63.012 Gb/s with 16.0 GT/s PCIe x4 link)", d.PCIFunc, d.PCIFunc)))
	}
	dmesg.WriteString(clock.line(fmt.Sprintf("nvme %s: 16/0/0 default/read/poll queues", ctrl)))
	dmesg.WriteString(clock.line(fmt.Sprintf(" %s: %s", d.Name, d.Part)))
}

// synthBlock writes the block device's own attributes, its queue and its
// single partition (none where d.Part is empty).
func synthBlock(w *synthWriter, d *synthDisk, rot, wc, sched, dg, dmax, nr, fua string) {
	m := d.Model
	b := d.SysDir
	w.link("/sys/block/"+d.Name, b)
	w.file(b+"/dev", fmt.Sprintf("%d:%d\n", d.Maj, d.Min))
	w.file(b+"/size", strconv.FormatUint(m.Sectors, 10)+"\n")
	w.file(b+"/removable", "0\n")
	w.file(b+"/ro", "0\n")
	// Of an NVMe namespace, only the per-path disk is hidden
	// (GENHD_FL_HIDDEN, drivers/nvme/host/multipath.c).
	hidden := "0"
	if d.NVMe && b == d.PathDir {
		hidden = "1"
	}
	w.file(b+"/hidden", hidden+"\n")
	w.file(b+"/ext_range", "256\n")
	q := b + "/queue/"
	w.file(q+"rotational", rot+"\n")
	w.file(q+"write_cache", wc+"\n")
	w.file(q+"scheduler", sched)
	w.file(q+"discard_granularity", dg+"\n")
	w.file(q+"discard_max_bytes", dmax+"\n")
	w.file(q+"discard_max_hw_bytes", dmax+"\n")
	w.file(q+"logical_block_size", "512\n")
	w.file(q+"physical_block_size", strconv.Itoa(m.PhysBS)+"\n")
	w.file(q+"nr_requests", nr+"\n")
	w.file(q+"fua", fua+"\n")
	w.mkdir(b + "/holders")
	w.mkdir(b + "/slaves")
	if d.Part == "" {
		return
	}
	p := b + "/" + d.Part
	w.file(p+"/dev", fmt.Sprintf("%d:%d\n", d.Maj, d.Min+1))
	w.file(p+"/size", strconv.FormatUint(d.part1Sectors(), 10)+"\n")
	w.file(p+"/partition", "1\n")
	w.file(p+"/start", "2048\n")
	w.file(p+"/ro", "0\n")
	w.mkdir(p + "/holders")
}

// synthPartUdev writes the partition's udev record: ext4, or a zfs_member of
// synthPool; identity properties are imported from the disk, as udev does.
func synthPartUdev(w *synthWriter, d *synthDisk, byID, byWWN, pathID, identity string) {
	partUUID := synthUUID(2, d.Maj*1000+d.Min)
	var u strings.Builder
	fmt.Fprintf(&u, "S:disk/by-id/%s-part1\nS:disk/by-id/%s-part1\nS:disk/by-path/%s-part1\nS:disk/by-partuuid/%s\n", byID, byWWN, pathID, partUUID)
	if d.ZFS {
		fmt.Fprintf(&u, "S:disk/by-label/%s\nS:disk/by-uuid/%d\n", synthPool, uint64(14251929411391431000))
	} else {
		fmt.Fprintf(&u, "S:disk/by-uuid/%s\n", synthUUID(3, d.Maj*1000+d.Min))
	}
	u.WriteString(identity)
	if d.ZFS {
		fmt.Fprintf(&u, "E:ID_FS_VERSION=5000\nE:ID_FS_LABEL=%s\nE:ID_FS_LABEL_ENC=%s\nE:ID_FS_UUID=14251929411391431000\nE:ID_FS_UUID_ENC=14251929411391431000\nE:ID_FS_UUID_SUB=%d\nE:ID_FS_UUID_SUB_ENC=%d\nE:ID_FS_TYPE=zfs_member\nE:ID_FS_USAGE=filesystem\n", synthPool, synthPool, 900000000000+d.Min, 900000000000+d.Min)
		u.WriteString("E:ID_PART_ENTRY_TYPE=6a898cc3-1dd2-11b2-99a6-080020736631\n")
	} else {
		fs := synthUUID(3, d.Maj*1000+d.Min)
		fmt.Fprintf(&u, "E:ID_FS_UUID=%s\nE:ID_FS_UUID_ENC=%s\nE:ID_FS_VERSION=1.0\nE:ID_FS_BLOCKSIZE=4096\nE:ID_FS_TYPE=ext4\nE:ID_FS_USAGE=filesystem\n", fs, fs)
		u.WriteString("E:ID_PART_ENTRY_TYPE=0fc63daf-8483-4772-8e79-3d69d8477de4\n")
	}
	fmt.Fprintf(&u, "E:ID_PART_ENTRY_SCHEME=gpt\nE:ID_PART_ENTRY_UUID=%s\nE:ID_PART_ENTRY_NUMBER=1\nE:ID_PART_ENTRY_OFFSET=2048\nE:ID_PART_ENTRY_SIZE=%d\nE:ID_PART_ENTRY_DISK=%d:%d\n", partUUID, d.part1Sectors(), d.Maj, d.Min)
	u.WriteString("G:systemd\nQ:systemd\nV:1\n")
	w.udev(fmt.Sprintf("%d:%d", d.Maj, d.Min+1), d.Part, u.String())
}

// synthLVM writes partition 2 of d as an LVM physical volume and the one
// logical volume on it, data<N>/srv, as the kernel and udev lay out a
// device-mapper device: /sys/devices/virtual/block/dm-<N-1> with dm/name,
// dm/uuid (LVM-<VG UUID><LV UUID>), slaves/ and the partition's holders/
// link (Documentation/ABI/testing/sysfs-block-dm); udev's links for the
// volume from lvm2's and systemd's rules (10-dm.rules: mapper/<vg>-<lv>;
// 13-dm-disk.rules: by-id/dm-name-, by-id/dm-uuid-, by-uuid; 11-dm-lvm.rules:
// <vg>/<lv>) and by-id/lvm-pv-uuid- for the partition (69-dm-lvm.rules).
// The second partition takes a block extended minor (major 259) above the
// NVMe namespaces' own.
func synthLVM(w *synthWriter, d *synthDisk, byID, byWWN, pathID string) {
	j := d.LVM - 1
	part := d.Name + "p2"
	partDev := fmt.Sprintf("259:%d", 1<<18+j)
	start := 2048 + d.part1Sectors()
	size := d.Model.Sectors - 2048 - 2015 - d.part1Sectors()
	pdir := d.SysDir + "/" + part
	w.file(pdir+"/dev", partDev+"\n")
	w.file(pdir+"/size", strconv.FormatUint(size, 10)+"\n")
	w.file(pdir+"/partition", "2\n")
	w.file(pdir+"/start", strconv.FormatUint(start, 10)+"\n")
	w.file(pdir+"/ro", "0\n")
	vg, lv := fmt.Sprintf("data%d", d.LVM), "srv"
	pvUUID := synthLVMUUID(1, j)
	partUUID := synthUUID(4, d.Maj*1000+d.Min)
	w.udev(partDev, part, fmt.Sprintf("S:disk/by-id/%s-part2\nS:disk/by-id/%s-part2\nS:disk/by-path/%s-part2\nS:disk/by-partuuid/%s\nS:disk/by-id/lvm-pv-uuid-%s\n", byID, byWWN, pathID, partUUID, pvUUID)+
		fmt.Sprintf("E:ID_FS_UUID=%s\nE:ID_FS_UUID_ENC=%s\nE:ID_FS_VERSION=LVM2 001\nE:ID_FS_TYPE=LVM2_member\nE:ID_FS_USAGE=raid\n", pvUUID, pvUUID)+
		fmt.Sprintf("E:ID_PART_ENTRY_SCHEME=gpt\nE:ID_PART_ENTRY_UUID=%s\nE:ID_PART_ENTRY_TYPE=e6d6d379-f507-44c2-a23c-238f2a3df928\nE:ID_PART_ENTRY_NUMBER=2\nE:ID_PART_ENTRY_OFFSET=%d\nE:ID_PART_ENTRY_SIZE=%d\nE:ID_PART_ENTRY_DISK=%d:%d\n", partUUID, start, size, d.Maj, d.Min)+
		"G:systemd\nQ:systemd\nV:1\n")

	dm := fmt.Sprintf("dm-%d", j)
	vdir := "/sys/devices/virtual/block/" + dm
	dmUUID := "LVM-" + strings.ReplaceAll(synthLVMUUID(2, j)+synthLVMUUID(3, j), "-", "")
	synthDM(w, j, size-2048, vg+"-"+lv, dmUUID, "0", "none")
	w.link(vdir+"/slaves/"+part, pdir)
	w.link(pdir+"/holders/"+dm, vdir)
	fsUUID := synthUUID(5, j)
	w.udev(fmt.Sprintf("253:%d", j), dm, fmt.Sprintf("S:disk/by-id/dm-name-%s-%s\nS:disk/by-id/dm-uuid-%s\nS:disk/by-uuid/%s\nS:mapper/%s-%s\nS:%s/%s\n", vg, lv, dmUUID, fsUUID, vg, lv, vg, lv)+
		fmt.Sprintf("E:DM_UDEV_PRIMARY_SOURCE_FLAG=1\nE:DM_NAME=%s-%s\nE:DM_UUID=%s\nE:DM_SUSPENDED=0\nE:DM_VG_NAME=%s\nE:DM_LV_NAME=%s\n", vg, lv, dmUUID, vg, lv)+
		fmt.Sprintf("E:ID_FS_UUID=%s\nE:ID_FS_UUID_ENC=%s\nE:ID_FS_TYPE=xfs\nE:ID_FS_USAGE=filesystem\nG:systemd\nQ:systemd\nV:1\n", fsUUID, fsUUID))
}

// synthMultipath writes a dual-ported SAS drive of the JBOD as a real host
// with multipath-tools shows it:
//
//   - two sd devices, one per HBA (mpt3sas), under the SAS transport's
//     host/port/expander/port/end_device/target chain
//     (drivers/scsi/scsi_transport_sas.c), each with the drive's WWN; no
//     partitions, since multipath-tools' del-part-nodes.rules runs
//     "partx -d" on a path (DM_DEL_PART_NODES=1); each path's holders/ is
//     the map;
//   - the map, a request-based dm device (drivers/md/dm-mpath.c) with
//     dm/name the user_friendly_names alias and dm/uuid mpath-<wwid>
//     (drivers/md/dm-sysfs.c; libmultipath's UUID_PREFIX), slaves/ both
//     paths, holders/ its partition;
//   - the partition kpartx makes on the map (kpartx -p -part: dm/name
//     <map>-part1, dm/uuid part1-mpath-<wwid>), a linear dm device
//     holding an XFS filesystem.
//
// udev's records: the paths carry what multipath.rules sets on a path
// (DM_MULTIPATH_DEVICE_PATH=1, ID_FS_TYPE=mpath_member, SYSTEMD_READY=0)
// next to the SCSI identity of 60-persistent-storage.rules, and claim
// by-id/scsi-<wwid> and by-id/wwn-<wwn>; the map claims them too with
// link_priority=50 (11-dm-mpath.rules, from kpartx_id's DM_TYPE, DM_SERIAL
// and DM_WWN), so they lead to the map, and udev keeps each path's own
// by-path link. The map and the partition get dm-name-, dm-uuid- and
// mapper/ links (13-dm-disk.rules, 10-dm.rules); the partition also
// by-id/scsi-<map>-part1 (dm-parts.rules: DM_TYPE-DM_NAME) and by-uuid.
// The map's record follows a public `udevadm info` of an Ubuntu
// multipath map (DM_ACTIVATION, MPATH_DEVICE_READY, L:50).
func synthMultipath(w *synthWriter, d *synthDisk, dmesg *strings.Builder, clock *synthClock) {
	m := d.Model
	wwid := d.wwid()
	name := d.mapName()
	mapDev, partDev := fmt.Sprintf("253:%d", d.MapMinor), fmt.Sprintf("253:%d", d.MapMinor+1)
	mapDM, partDM := fmt.Sprintf("dm-%d", d.MapMinor), fmt.Sprintf("dm-%d", d.MapMinor+1)
	mdir, pdir := "/sys/devices/virtual/block/"+mapDM, "/sys/devices/virtual/block/"+partDM
	fsUUID, partUUID := synthUUID(6, d.Index), synthUUID(7, d.Index)
	size := d.part1Sectors()

	// The map first: the links it shares with its paths are its own
	// (link_priority 50 against the paths' 0), and the writer keeps the
	// first device that claims a link.
	// dm-mpath is request-based: its queue has an I/O scheduler.
	synthDM(w, d.MapMinor, m.Sectors, name, "mpath-"+wwid, "1", "[mq-deadline] kyber bfq none")
	w.file(mdir+"/queue/physical_block_size", strconv.Itoa(m.PhysBS)+"\n")
	w.file(mdir+"/queue/logical_block_size", "512\n")
	w.udev(mapDev, mapDM, fmt.Sprintf("S:disk/by-id/dm-name-%s\nS:disk/by-id/wwn-%s\nS:disk/by-id/scsi-%s\nS:mapper/%s\nS:disk/by-id/dm-uuid-mpath-%s\nL:50\n", name, d.WWN, wwid, name, wwid)+
		fmt.Sprintf("E:DM_UDEV_DISABLE_LIBRARY_FALLBACK_FLAG=1\nE:DM_UDEV_PRIMARY_SOURCE_FLAG=1\nE:DM_ACTIVATION=1\nE:DM_NAME=%s\nE:DM_UUID=mpath-%s\nE:DM_SUSPENDED=0\nE:DM_UDEV_RULES_VSN=2\n", name, wwid)+
		fmt.Sprintf("E:MPATH_SBIN_PATH=/sbin\nE:MPATH_DEVICE_READY=1\nE:DM_TYPE=scsi\nE:DM_WWN=%s\nE:DM_SERIAL=%s\n", d.WWN, wwid)+
		fmt.Sprintf("E:ID_PART_TABLE_UUID=%s\nE:ID_PART_TABLE_TYPE=gpt\nE:SYSTEMD_READY=1\nG:systemd\nQ:systemd\nV:1\n", synthUUID(1, 1<<20+d.Index)))

	synthDM(w, d.MapMinor+1, size, name+"-part1", "part1-mpath-"+wwid, "1", "none")
	w.link(pdir+"/slaves/"+mapDM, mdir)
	w.link(mdir+"/holders/"+partDM, pdir)
	w.udev(partDev, partDM, fmt.Sprintf("S:disk/by-id/dm-name-%s-part1\nS:disk/by-id/dm-uuid-part1-mpath-%s\nS:disk/by-id/scsi-%s-part1\nS:disk/by-uuid/%s\nS:mapper/%s-part1\nL:50\n", name, wwid, name, fsUUID, name)+
		fmt.Sprintf("E:DM_UDEV_DISABLE_LIBRARY_FALLBACK_FLAG=1\nE:DM_UDEV_PRIMARY_SOURCE_FLAG=1\nE:DM_ACTIVATION=1\nE:DM_NAME=%s-part1\nE:DM_UUID=part1-mpath-%s\nE:DM_SUSPENDED=0\nE:DM_UDEV_RULES_VSN=2\n", name, wwid)+
		fmt.Sprintf("E:DM_MPATH=%s\nE:DM_PART=1\nE:DM_TYPE=scsi\n", name)+
		fmt.Sprintf("E:ID_FS_UUID=%s\nE:ID_FS_UUID_ENC=%s\nE:ID_FS_TYPE=xfs\nE:ID_FS_USAGE=filesystem\n", fsUUID, fsUUID)+
		fmt.Sprintf("E:ID_PART_ENTRY_SCHEME=gpt\nE:ID_PART_ENTRY_UUID=%s\nE:ID_PART_ENTRY_TYPE=0fc63daf-8483-4772-8e79-3d69d8477de4\nE:ID_PART_ENTRY_NUMBER=1\nE:ID_PART_ENTRY_OFFSET=2048\nE:ID_PART_ENTRY_SIZE=%d\nE:ID_PART_ENTRY_DISK=%s\n", partUUID, size, mapDev)+
		"E:SYSTEMD_READY=1\nG:systemd\nQ:systemd\nV:1\n")

	scsiModel, vendor := fmt.Sprintf("%-16s", m.ATA), "SEAGATE "
	for _, p := range d.Paths {
		addr := fmt.Sprintf("%d:0:%d:0", p.Host, p.Target)
		scsiDev := path.Dir(path.Dir(p.SysDir))
		hostDir := scsiDev[:strings.Index(scsiDev, "/port-")]
		fn := path.Dir(hostDir)
		if p.Target == 0 {
			synthRootPortDir(w, path.Dir(fn))
			synthPCIFunction(w, fn, "mpt3sas", "0x1000", "0x00e6", "0x010700")
			w.link("/sys/class/scsi_host/"+path.Base(hostDir), hostDir+"/scsi_host/"+path.Base(hostDir))
			w.file(hostDir+"/scsi_host/"+path.Base(hostDir)+"/proc_name", "mpt3sas\n")
		}
		w.file(scsiDev+"/model", scsiModel+"\n")
		w.file(scsiDev+"/vendor", vendor+"\n")
		w.file(scsiDev+"/rev", m.Firmware+"\n")
		w.file(scsiDev+"/state", "running\n")
		w.file(scsiDev+"/queue_depth", "254\n")
		w.file(scsiDev+"/wwid", "naa."+strings.TrimPrefix(d.WWN, "0x")+"\n")
		w.link(scsiDev+"/driver", "/sys/bus/scsi/drivers/sd")
		w.file(scsiDev+"/scsi_disk/"+addr+"/cache_type", "write back\n")
		w.file(scsiDev+"/scsi_disk/"+addr+"/FUA", "1\n")
		w.link("/sys/class/scsi_disk/"+addr, scsiDev+"/scsi_disk/"+addr)

		pd := *d
		pd.Name, pd.Maj, pd.Min, pd.SysDir, pd.Part = p.Name, p.Maj, p.Min, p.SysDir, ""
		synthBlock(w, &pd, "1", "write back", "[mq-deadline] none\n", "0", "0", "254", "1")
		w.link(p.SysDir+"/device", scsiDev)
		w.link(p.SysDir+"/holders/"+mapDM, mdir)
		w.link(mdir+"/slaves/"+p.Name, p.SysDir)

		// The expander's SAS address and the drive's phy in it
		// (path_id's handle_scsi_sas, systemd src/udev/udev-builtin-path_id.c).
		pathID := fmt.Sprintf("pci-%s-sas-exp0x500304801f%02x%02xbf-phy%d-lun-0", p.PCIFunc, d.Index/60, p.Host%256, p.Target)
		var u strings.Builder
		fmt.Fprintf(&u, "S:disk/by-id/scsi-%s\nS:disk/by-id/wwn-%s\nS:disk/by-path/%s\n", wwid, d.WWN, pathID)
		fmt.Fprintf(&u, "I:%d\n", 4700000+p.Maj*1000+p.Min)
		fmt.Fprintf(&u, "E:ID_SCSI=1\nE:ID_VENDOR=SEAGATE\nE:ID_VENDOR_ENC=SEAGATE\\x20\nE:ID_MODEL=%s\nE:ID_MODEL_ENC=%s\nE:ID_REVISION=%s\nE:ID_TYPE=disk\n", m.ID, strings.ReplaceAll(scsiModel, " ", `\x20`), m.Firmware)
		fmt.Fprintf(&u, "E:ID_SERIAL=%s\nE:ID_SERIAL_SHORT=%s\nE:ID_WWN=%s\nE:ID_WWN_WITH_EXTENSION=%s\nE:ID_BUS=scsi\nE:ID_SCSI_SERIAL=%s\n", wwid, wwid[1:], d.WWN, d.WWN, d.Serial)
		fmt.Fprintf(&u, "E:ID_PATH=%s\nE:ID_PATH_TAG=%s\n", pathID, strings.NewReplacer(":", "_", ".", "_", "-", "_").Replace(pathID))
		fmt.Fprintf(&u, "E:ID_PART_TABLE_UUID=%s\nE:ID_PART_TABLE_TYPE=gpt\n", synthUUID(1, 1<<20+d.Index))
		u.WriteString("E:DM_MULTIPATH_DEVICE_PATH=1\nE:ID_FS_TYPE=mpath_member\nE:SYSTEMD_READY=0\nE:DM_DEL_PART_NODES=1\nG:systemd\nQ:systemd\nV:1\n")
		w.udev(fmt.Sprintf("%d:%d", p.Maj, p.Min), p.Name, u.String())

		sd := fmt.Sprintf("sd %s: [%s] ", addr, p.Name)
		dmesg.WriteString(clock.line(fmt.Sprintf("scsi %s: Direct-Access     SEAGATE  %s %s PQ: 0 ANSI: 7", addr, scsiModel, m.Firmware)))
		dmesg.WriteString(clock.line(fmt.Sprintf("%s%d 512-byte logical blocks: %s", sd, m.Sectors, m.SizeText)))
		dmesg.WriteString(clock.line(fmt.Sprintf("%s%d-byte physical blocks", sd, m.PhysBS)))
		dmesg.WriteString(clock.line(sd + "Write Protect is off"))
		dmesg.WriteString(clock.line(sd + "Mode Sense: db 00 10 08"))
		dmesg.WriteString(clock.line(sd + "Write cache: enabled, read cache: enabled, supports DPO and FUA"))
		dmesg.WriteString(clock.line(fmt.Sprintf(" %s: %s1", p.Name, p.Name)))
		dmesg.WriteString(clock.line(sd + "Attached SCSI disk"))
	}
}

// synthMultipathListing appends the map of d to a multipath -ll listing
// with both paths up, in the modern format (libmultipath print.c): the
// failover policy's one path per group, the first group active.
func synthMultipathListing(b *strings.Builder, d *synthDisk) {
	fmt.Fprintf(b, "%s (%s) dm-%d SEAGATE,%s\n", d.mapName(), d.wwid(), d.MapMinor, d.Model.ATA)
	fmt.Fprintf(b, "size=%dG features='0' hwhandler='1 alua' wp=rw\n", d.Model.Sectors*512>>30)
	for i, p := range d.Paths {
		tree, leaf, status := "|-+-", "| `-", "active"
		if i == len(d.Paths)-1 {
			tree, leaf = "`-+-", "  `-"
		}
		if i > 0 {
			status = "enabled"
		}
		fmt.Fprintf(b, "%s policy='service-time 0' prio=50 status=%s\n", tree, status)
		fmt.Fprintf(b, "%s %d:0:%d:0 %s %d:%d active ready running\n", leaf, p.Host, p.Target, p.Name, p.Maj, p.Min)
	}
}

// synthDM writes device-mapper device dm-<minor> (major 253): its size,
// dm/name, dm/uuid and dm/suspended (drivers/md/dm-sysfs.c), its queue,
// an empty holders/ and its /sys/block link; the caller links slaves/.
func synthDM(w *synthWriter, minor int, sectors uint64, name, uuid, rot, sched string) {
	vdir := fmt.Sprintf("/sys/devices/virtual/block/dm-%d", minor)
	w.file(vdir+"/dev", fmt.Sprintf("253:%d\n", minor))
	w.file(vdir+"/size", strconv.FormatUint(sectors, 10)+"\n")
	w.file(vdir+"/removable", "0\n")
	w.file(vdir+"/ro", "0\n")
	w.file(vdir+"/dm/name", name+"\n")
	w.file(vdir+"/dm/uuid", uuid+"\n")
	w.file(vdir+"/dm/suspended", "0\n")
	w.file(vdir+"/queue/rotational", rot+"\n")
	w.file(vdir+"/queue/scheduler", sched+"\n")
	w.file(vdir+"/queue/write_cache", "write back\n")
	w.mkdir(vdir + "/holders")
	w.link("/sys/block/"+fmt.Sprintf("dm-%d", minor), vdir)
}

// synthLVMUUID is an LVM UUID as lvm prints it: 32 characters of [0-9a-zA-Z]
// in groups of 6-4-4-4-4-4-6 (lib/uuid/uuid.c id_write_format).
func synthLVMUUID(kind, i int) string {
	s := fmt.Sprintf("Sy%02dn%027d", kind, i)
	return s[0:6] + "-" + s[6:10] + "-" + s[10:14] + "-" + s[14:18] + "-" + s[18:22] + "-" + s[22:26] + "-" + s[26:32]
}

// synthLoops are the snap packages of an Ubuntu server, each a squashfs
// image on a loop device: loop devices get no /dev/disk/by-id link from
// udev (60-persistent-storage.rules names disks by their bus identity), so
// the doctor looks for one in /dev/disk/by-id.
var synthLoops = []string{"core22_1380", "lxd_29351", "snapd_21759", "core20_2318", "lxd_28373", "snapd_21465"}

// synthLoopDevices writes the loop devices of synthLoops (major 7,
// /sys/devices/virtual/block/loopN with loop/backing_file,
// drivers/block/loop.c) and their udev records, and mounts them where
// snapd does (/snap/<name>/<revision>, read-only squashfs).
func synthLoopDevices(w *synthWriter, mountinfo, mounts *strings.Builder, mountID *int) {
	for i, snap := range synthLoops {
		name := fmt.Sprintf("loop%d", i)
		vdir := "/sys/devices/virtual/block/" + name
		w.file(vdir+"/dev", fmt.Sprintf("7:%d\n", i))
		w.file(vdir+"/size", strconv.Itoa(130000+i*17000)+"\n")
		w.file(vdir+"/removable", "0\n")
		w.file(vdir+"/ro", "1\n")
		w.file(vdir+"/loop/backing_file", "/var/lib/snapd/snaps/"+snap+".snap\n")
		w.file(vdir+"/loop/autoclear", "0\n")
		w.file(vdir+"/queue/rotational", "0\n")
		w.file(vdir+"/queue/scheduler", "none\n")
		w.file(vdir+"/queue/write_cache", "write through\n")
		w.mkdir(vdir + "/holders")
		w.mkdir(vdir + "/slaves")
		w.link("/sys/block/"+name, vdir)
		w.udev(fmt.Sprintf("7:%d", i), name, "E:ID_FS_VERSION=4.0\nE:ID_FS_TYPE=squashfs\nE:ID_FS_USAGE=filesystem\nE:SYSTEMD_READY=1\nG:systemd\nQ:systemd\nV:1\n")
		app, rev, _ := strings.Cut(snap, "_")
		*mountID++
		fmt.Fprintf(mountinfo, "%d 27 7:%d / /snap/%s/%s ro,nodev,relatime shared:%d - squashfs /dev/%s ro,errors=continue,threads=single\n", *mountID, i, app, rev, *mountID-100, name)
		fmt.Fprintf(mounts, "/dev/%s /snap/%s/%s squashfs ro,nodev,relatime,errors=continue,threads=single 0 0\n", name, app, rev)
	}
}

func synthUUID(kind, i int) string {
	return fmt.Sprintf("%08x-%04x-4%03x-8%03x-%012x", 0x5e1f0000+kind, i>>16&0xffff, i>>8&0xfff, i&0xfff, 0x1d0c7002a000+int64(i))
}

func synthPCIFunction(w *synthWriter, fn, driver, vendor, device, class string) {
	w.file(fn+"/vendor", vendor+"\n")
	w.file(fn+"/device", device+"\n")
	w.file(fn+"/class", class+"\n")
	w.file(fn+"/numa_node", "0\n")
	w.link(fn+"/driver", "/sys/bus/pci/drivers/"+driver)
}

func synthRootPortDir(w *synthWriter, rp string) {
	if w.done[rp] {
		return
	}
	w.done[rp] = true
	w.file(rp+"/class", "0x060400\n")
	w.file(rp+"/numa_node", "0\n")
	w.link(rp+"/driver", "/sys/bus/pci/drivers/pcieport")
}

const synthCmdline = "BOOT_IMAGE=/vmlinuz-6.8.0-45-generic root=UUID=5e1f0003-0000-4000-8000-1d0c7002a000 ro quiet"

type synthMount struct{ info, mount string }

var synthSystemMounts = []synthMount{
	{"22 27 0:21 / /sys rw,nosuid,nodev,noexec,relatime shared:7 - sysfs sysfs rw", "sysfs /sys sysfs rw,nosuid,nodev,noexec,relatime 0 0"},
	{"23 27 0:22 / /proc rw,nosuid,nodev,noexec,relatime shared:13 - proc proc rw", "proc /proc proc rw,nosuid,nodev,noexec,relatime 0 0"},
	{"24 27 0:5 / /dev rw,nosuid,relatime shared:2 - devtmpfs udev rw,size=131862148k,nr_inodes=32965537,mode=755,inode64", "udev /dev devtmpfs rw,nosuid,relatime,size=131862148k,nr_inodes=32965537,mode=755,inode64 0 0"},
	{"25 24 0:23 / /dev/pts rw,nosuid,noexec,relatime shared:3 - devpts devpts rw,gid=5,mode=620,ptmxmode=000", "devpts /dev/pts devpts rw,nosuid,noexec,relatime,gid=5,mode=620,ptmxmode=000 0 0"},
	{"26 27 0:24 / /run rw,nosuid,nodev,noexec,relatime shared:5 - tmpfs tmpfs rw,size=26378264k,mode=755,inode64", "tmpfs /run tmpfs rw,nosuid,nodev,noexec,relatime,size=26378264k,mode=755,inode64 0 0"},
	{"28 22 0:6 / /sys/kernel/security rw,nosuid,nodev,noexec,relatime shared:8 - securityfs securityfs rw", "securityfs /sys/kernel/security securityfs rw,nosuid,nodev,noexec,relatime 0 0"},
	{"29 24 0:25 / /dev/shm rw,nosuid,nodev shared:4 - tmpfs tmpfs rw,inode64", "tmpfs /dev/shm tmpfs rw,nosuid,nodev,inode64 0 0"},
	{"30 26 0:26 / /run/lock rw,nosuid,nodev,noexec,relatime shared:6 - tmpfs tmpfs rw,size=5120k,inode64", "tmpfs /run/lock tmpfs rw,nosuid,nodev,noexec,relatime,size=5120k,inode64 0 0"},
	{"31 22 0:27 / /sys/fs/cgroup rw,nosuid,nodev,noexec,relatime shared:9 - cgroup2 cgroup2 rw,nsdelegate,memory_recursiveprot", "cgroup2 /sys/fs/cgroup cgroup2 rw,nosuid,nodev,noexec,relatime,nsdelegate,memory_recursiveprot 0 0"},
	{"32 22 0:28 / /sys/fs/pstore rw,nosuid,nodev,noexec,relatime shared:10 - pstore pstore rw", "pstore /sys/fs/pstore pstore rw,nosuid,nodev,noexec,relatime 0 0"},
	{"33 22 0:29 / /sys/firmware/efi/efivars rw,nosuid,nodev,noexec,relatime shared:11 - efivarfs efivarfs rw", "efivarfs /sys/firmware/efi/efivars efivarfs rw,nosuid,nodev,noexec,relatime 0 0"},
	{"34 22 0:30 / /sys/fs/bpf rw,nosuid,nodev,noexec,relatime shared:12 - bpf bpf rw,mode=700", "bpf /sys/fs/bpf bpf rw,nosuid,nodev,noexec,relatime,mode=700 0 0"},
	{"35 23 0:31 / /proc/sys/fs/binfmt_misc rw,relatime shared:14 - autofs systemd-1 rw,fd=32,pgrp=1,timeout=0,minproto=5,maxproto=5,direct,pipe_ino=4712", "systemd-1 /proc/sys/fs/binfmt_misc autofs rw,relatime,fd=32,pgrp=1,timeout=0,minproto=5,maxproto=5,direct,pipe_ino=4712 0 0"},
	{"36 24 0:19 / /dev/mqueue rw,nosuid,nodev,noexec,relatime shared:15 - mqueue mqueue rw", "mqueue /dev/mqueue mqueue rw,nosuid,nodev,noexec,relatime 0 0"},
	{"37 24 0:32 / /dev/hugepages rw,nosuid,nodev,relatime shared:16 - hugetlbfs hugetlbfs rw,pagesize=2M", "hugetlbfs /dev/hugepages hugetlbfs rw,nosuid,nodev,relatime,pagesize=2M 0 0"},
	{"38 22 0:7 / /sys/kernel/debug rw,nosuid,nodev,noexec,relatime shared:17 - debugfs debugfs rw", "debugfs /sys/kernel/debug debugfs rw,nosuid,nodev,noexec,relatime 0 0"},
	{"39 22 0:12 / /sys/kernel/tracing rw,nosuid,nodev,noexec,relatime shared:18 - tracefs tracefs rw", "tracefs /sys/kernel/tracing tracefs rw,nosuid,nodev,noexec,relatime 0 0"},
	{"40 22 0:33 / /sys/fs/fuse/connections rw,nosuid,nodev,noexec,relatime shared:19 - fusectl fusectl rw", "fusectl /sys/fs/fuse/connections fusectl rw,nosuid,nodev,noexec,relatime 0 0"},
	{"41 22 0:20 / /sys/kernel/config rw,nosuid,nodev,noexec,relatime shared:20 - configfs configfs rw", "configfs /sys/kernel/config configfs rw,nosuid,nodev,noexec,relatime 0 0"},
}

// synthHost writes the host-wide files: DMI, CPUs and cpufreq, procfs,
// os-release and an enabled fstrim.timer.
func synthHost(w *synthWriter) {
	for k, v := range map[string]string{
		"sys_vendor": "Supermicro", "product_name": "SSG-6049P-E1CR60L", "product_version": "0123456789",
		"board_vendor": "Supermicro", "board_name": "X11DSC+", "bios_vendor": "American Megatrends International, LLC.",
		"bios_version": "3.8a", "bios_date": "10/02/2023", "chassis_type": "17", "chassis_vendor": "Supermicro",
	} {
		w.file("/sys/devices/virtual/dmi/id/"+k, v+"\n")
	}
	w.link("/sys/class/dmi/id", "/sys/devices/virtual/dmi/id")

	const ncpu = 16
	cpu := "/sys/devices/system/cpu/"
	for _, f := range []string{"online", "possible", "present"} {
		w.file(cpu+f, fmt.Sprintf("0-%d\n", ncpu-1))
	}
	w.file(cpu+"offline", "\n")
	w.file(cpu+"intel_pstate/status", "active\n")
	var cpuinfo strings.Builder
	for i := 0; i < ncpu; i++ {
		pol := fmt.Sprintf("%scpufreq/policy%d/", cpu, i)
		for k, v := range map[string]string{
			"scaling_governor": "performance", "scaling_driver": "intel_pstate",
			"scaling_cur_freq": strconv.Itoa(3100000 - 37000*i), "scaling_min_freq": "1000000", "scaling_max_freq": "3500000",
			"cpuinfo_min_freq": "1000000", "cpuinfo_max_freq": "3500000", "cpuinfo_transition_latency": "0",
			"scaling_available_governors": "performance powersave", "related_cpus": strconv.Itoa(i),
			"affected_cpus": strconv.Itoa(i), "scaling_setspeed": "<unsupported>",
			"energy_performance_preference": "performance",
		} {
			w.file(pol+k, v+"\n")
		}
		w.link(fmt.Sprintf("%scpu%d/cpufreq", cpu, i), pol[:len(pol)-1])
		w.file(fmt.Sprintf("%scpu%d/online", cpu, i), "1\n")
		fmt.Fprintf(&cpuinfo, "processor\t: %d\nvendor_id\t: GenuineIntel\ncpu family\t: 6\nmodel\t\t: 85\n", i)
		fmt.Fprintf(&cpuinfo, "model name\t: Intel(R) Xeon(R) Silver 4215R CPU @ 3.20GHz\nstepping\t: 7\nmicrocode\t: 0x5003707\n")
		fmt.Fprintf(&cpuinfo, "cpu MHz\t\t: %d.%03d\ncache size\t: 11264 KB\nphysical id\t: %d\nsiblings\t: 8\ncore id\t\t: %d\ncpu cores\t: 8\n", 3100-37*i, 117*i%1000, i/8, i%8)
		fmt.Fprintf(&cpuinfo, "apicid\t\t: %d\ninitial apicid\t: %d\nfpu\t\t: yes\nfpu_exception\t: yes\ncpuid level\t: 22\nwp\t\t: yes\n", 2*i, 2*i)
		cpuinfo.WriteString("flags\t\t: fpu vme de pse tsc msr pae mce cx8 apic sep mtrr pge mca cmov pat pse36 clflush dts acpi mmx fxsr sse sse2 ss ht tm pbe syscall nx pdpe1gb rdtscp lm constant_tsc art arch_perfmon pebs bts rep_good nopl xtopology nonstop_tsc cpuid aperfmperf pni pclmulqdq dtes64 monitor ds_cpl vmx smx est tm2 ssse3 sdbg fma cx16 xtpr pdcm pcid dca sse4_1 sse4_2 x2apic movbe popcnt tsc_deadline_timer aes xsave avx f16c rdrand lahf_lm abm 3dnowprefetch cpuid_fault epb cat_l3 cdp_l3 invpcid_single intel_ppin ssbd mba ibrs ibpb stibp ibrs_enhanced tpr_shadow flexpriority ept vpid ept_ad fsgsbase tsc_adjust bmi1 avx2 smep bmi2 erms invpcid cqm mpx rdt_a avx512f avx512dq rdseed adx smap clflushopt clwb intel_pt avx512cd avx512bw avx512vl xsaveopt xsavec xgetbv1 xsaves cqm_llc cqm_occup_llc cqm_mbm_total cqm_mbm_local dtherm ida arat pln pts pku ospke avx512_vnni md_clear flush_l1d arch_capabilities\n")
		cpuinfo.WriteString("bugs\t\t: spectre_v1 spectre_v2 spec_store_bypass swapgs taa itlb_multihit mmio_stale_data retbleed eibrs_pbrsb gds bhi\nbogomips\t: 6400.00\nclflush size\t: 64\ncache_alignment\t: 64\naddress sizes\t: 46 bits physical, 48 bits virtual\npower management:\n\n")
	}
	w.file("/proc/cpuinfo", cpuinfo.String())
	w.file("/proc/cmdline", synthCmdline+"\n")
	w.file("/proc/meminfo", "MemTotal:       263782792 kB\nMemFree:        201638412 kB\nMemAvailable:   243117060 kB\nBuffers:          402152 kB\nCached:         38920544 kB\nSwapCached:            0 kB\nActive:         21044764 kB\nInactive:       33219816 kB\nDirty:              1204 kB\nWriteback:             0 kB\nSwapTotal:       8388604 kB\nSwapFree:        8388604 kB\n")
	w.file("/proc/pressure/io", "some avg10=0.31 avg60=0.22 avg300=0.18 total=91726354\nfull avg10=0.12 avg60=0.09 avg300=0.07 total=48266193\n")
	w.file("/proc/pressure/cpu", "some avg10=0.00 avg60=0.02 avg300=0.01 total=12893741\nfull avg10=0.00 avg60=0.00 avg300=0.00 total=0\n")
	w.file("/proc/pressure/memory", "some avg10=0.00 avg60=0.00 avg300=0.00 total=2231\nfull avg10=0.00 avg60=0.00 avg300=0.00 total=1764\n")
	w.file("/proc/sys/kernel/osrelease", "6.8.0-45-generic\n")
	w.file("/proc/sys/kernel/hostname", "storage-01\n")
	w.file("/etc/hostname", "storage-01\n")
	w.file("/etc/os-release", "PRETTY_NAME=\"Ubuntu 24.04.1 LTS\"\nNAME=\"Ubuntu\"\nVERSION_ID=\"24.04\"\nVERSION=\"24.04.1 LTS (Noble Numbat)\"\nVERSION_CODENAME=noble\nID=ubuntu\nID_LIKE=debian\nHOME_URL=\"https://www.ubuntu.com/\"\nUBUNTU_CODENAME=noble\n")
	w.file("/lib/systemd/system/fstrim.timer", "[Unit]\nDescription=Discard unused filesystem blocks once a week\nDocumentation=man:fstrim\nConditionVirtualization=!container\nConditionPathExists=!/etc/initrd-release\n\n[Timer]\nOnCalendar=weekly\nAccuracySec=1h\nPersistent=true\nRandomizedDelaySec=100min\n\n[Install]\nWantedBy=timers.target\n")
	w.file("/lib/systemd/system/fstrim.service", "[Unit]\nDescription=Discard unused blocks on filesystems from /etc/fstab\nDocumentation=man:fstrim(8)\nConditionVirtualization=!container\n\n[Service]\nType=oneshot\nExecStart=/sbin/fstrim --listed-in /etc/fstab:/proc/self/mountinfo --verbose --quiet-unsupported\nPrivateDevices=no\nPrivateNetwork=yes\nPrivateUsers=no\nProtectSystem=strict\nProtectHome=read-only\nMemoryDenyWriteExecute=yes\nSystemCallFilter=@default @file-system @basic-io @system-service\n")
	w.link("/etc/systemd/system/timers.target.wants/fstrim.timer", "/lib/systemd/system/fstrim.timer")
	for _, d := range []string{"/sys/bus/pci/drivers/ahci", "/sys/bus/pci/drivers/nvme", "/sys/bus/pci/drivers/pcieport", "/sys/bus/scsi/drivers/sd", "/sys/block", "/run/udev/data", "/dev/disk/by-id"} {
		w.mkdir(d)
	}
}
