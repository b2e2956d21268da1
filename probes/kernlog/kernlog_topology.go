package kernlog

import (
	"fmt"
	"regexp"
	"sort"
	"strconv"
	"strings"

	"github.com/diskdoctor/diskdoctor/internal/parse"
	"github.com/diskdoctor/diskdoctor/probes/block"
)

// Topology maps what kernel messages name to disks: libata ports,
// SCSI addresses, NVMe controllers, PCI functions, partitions and stacked
// devices. It comes from sysfs (NewKlogTopology) and, where sysfs is not
// there (a log read on its own), from the log's own probe messages
// (LearnFromLog).
type Topology struct {
	ATA map[string]string // ata3 -> sda (the port's disk, when it has one)
	// ATADev: libata's device names, "ata3.00", and behind a port
	// multiplier "ata3.01", "ata3.02": pmp + devno, from the SCSI
	// address H:C:T:L (libata scans a multiplier's links as channel C, a
	// PATA slave as target T).
	ATADev  map[string]string
	PMP     map[string]bool     // ata3 -> true: a port multiplier is attached
	SCSI    map[string]string   // 2:0:0:0 -> sda
	NVMe    map[string][]string // nvme0 -> nvme0n1
	PCI     map[string][]string // 0000:01:00.0 -> nvme0n1
	Parents map[string][]string // sda1 -> sda, dm-1 -> nvme1n1 (through holders)
	Disks   map[string]bool     // the disks (judged devices) messages may be about

	// From the log: SCSI hosts of USB storage, ATAPI (optical) ports, and
	// the transport of each disk named in it.
	Transport map[string]string // sdc -> usb
	ATAPI     map[string]bool   // ata3 -> true

	// Inventory: the disks sysfs lists (nil without sysfs). A disk the log
	// names that is not in it has left /sys/block: gone.
	Inventory map[string]bool
	// Listed: /sys/block was read, even if it listed nothing. Every disk
	// gone is the worst case, not a log read on its own: with Listed and
	// an empty Inventory, each disk the log names is gone.
	Listed bool

	// LogOnly: no inventory, only the log (a log read on its own); whole-disk
	// names in messages (sda, nvme0n1) are then taken as disks.
	LogOnly bool
}

var ataInPath = regexp.MustCompile(`/(ata\d+)/`)

// NewTopology builds the map from the inventory. pci maps NVMe
// controllers to their PCI function addresses.
func NewTopology(devs []*block.Device, pci map[string]string) *Topology {
	t := &Topology{}
	t.init()
	for _, d := range devs {
		if d.NVMePath {
			continue
		}
		t.Inventory[d.Name] = true
		if !d.Virtual {
			t.Disks[d.Name] = true
			t.Transport[d.Name] = d.Transport
			if m := ataInPath.FindStringSubmatch(d.SysPath); m != nil {
				t.addATA(m[1], d.SCSIAddr, d.Name)
			}
			if d.SCSIAddr != "" {
				t.SCSI[d.SCSIAddr] = d.Name
			}
			for _, c := range d.Controllers {
				t.NVMe[c] = appendUnique(t.NVMe[c], d.Name)
				if a := pci[c]; a != "" {
					t.PCI[a] = appendUnique(t.PCI[a], d.Name)
				}
			}
		}
		for _, h := range d.Holders {
			t.Parents[h] = appendUnique(t.Parents[h], d.Name)
		}
		for _, p := range d.Partitions {
			t.Parents[p.Name] = appendUnique(t.Parents[p.Name], d.Name)
			for _, h := range p.Holders {
				t.Parents[h] = appendUnique(t.Parents[h], d.Name)
			}
		}
	}
	return t
}

func (t *Topology) init() {
	if t.ATA == nil {
		t.ATA, t.SCSI, t.NVMe, t.PCI = map[string]string{}, map[string]string{}, map[string][]string{}, map[string][]string{}
		t.Parents, t.Disks, t.Transport, t.ATAPI = map[string][]string{}, map[string]bool{}, map[string]string{}, map[string]bool{}
		t.ATADev, t.PMP, t.Inventory = map[string]string{}, map[string]bool{}, map[string]bool{}
	}
}

// addATA records a disk on libata port "ata3" at SCSI address H:C:T:L: the
// port's disk, and the device name ata3.NN (NN = C + T: a multiplier link
// is channel C, a PATA slave target 1).
func (t *Topology) addATA(port, scsiAddr, disk string) {
	if _, ok := t.ATA[port]; !ok {
		t.ATA[port] = disk
	}
	f := strings.Split(scsiAddr, ":")
	if len(f) != 4 {
		return
	}
	c, err1 := strconv.Atoi(f[1])
	tg, err2 := strconv.Atoi(f[2])
	if err1 != nil || err2 != nil || c < 0 || tg < 0 || c+tg > 15 {
		return
	}
	t.ATADev[fmt.Sprintf("%s.%02d", port, c+tg)] = disk
	if c > 0 {
		t.PMP[port] = true
	}
	if t.ATA[port] != disk {
		// Two disks on one port: port-level messages are about both.
		t.ATA[port] = ""
	}
}

// LinksByDisk is, for every disk the topology links, the libata link its
// "SATA link up" messages name: ata3, or ata3.01 behind a port multiplier.
// It is built in one pass (asked disk by disk, each question walked both
// maps: quadratic on a large machine). Where two links name one disk, the
// first in natural order is given.
func (t *Topology) LinksByDisk() map[string]string {
	out := make(map[string]string, len(t.ATADev)+len(t.ATA))
	devs := make([]string, 0, len(t.ATADev))
	for dev := range t.ATADev {
		devs = append(devs, dev)
	}
	sort.Slice(devs, func(i, j int) bool { return parse.NaturalLess(devs[i], devs[j]) })
	for _, dev := range devs {
		d := t.ATADev[dev]
		if _, done := out[d]; done || d == "" {
			continue
		}
		port, _, _ := strings.Cut(dev, ".")
		if t.PMP[port] {
			out[d] = dev
		} else {
			out[d] = port
		}
	}
	ports := make([]string, 0, len(t.ATA))
	for port := range t.ATA {
		ports = append(ports, port)
	}
	sort.Slice(ports, func(i, j int) bool { return parse.NaturalLess(ports[i], ports[j]) })
	for _, port := range ports {
		if d := t.ATA[port]; d != "" {
			if _, done := out[d]; !done {
				out[d] = port
			}
		}
	}
	return out
}

var (
	logSCSIName = regexp.MustCompile(`^sd (\d+):(\d+:\d+:\d+): \[(\w+)\] `)
	logSCSIHost = regexp.MustCompile(`^scsi host(\d+): (\S+)`)
	logATAPI    = regexp.MustCompile(`^(ata\d+)\.\d+: ATAPI: `)
	// sata_pmp_init (drivers/ata/libata-pmp.c), 2.6.24–6.x: "ata3.15: Port
	// Multiplier 1.2, 0x197b:0x0325 r0, 5 ports, feat 0x5/0xf".
	logPMP       = regexp.MustCompile(`^(ata\d+)\.15: Port Multiplier `)
	logNVMeParts = regexp.MustCompile(`^\s*((nvme\d+)n\d+): `)
	logNVMeName  = regexp.MustCompile(`\b((nvme\d+)n\d+)\b`)
	logNVMePCI   = regexp.MustCompile(`^nvme (nvme\d+): pci function (\S+)`)
	ataDrivers   = map[string]bool{"ahci": true, "ata_piix": true, "pata_atiixp": true, "sata_nv": true, "sata_via": true, "sata_sil24": true, "sata_mv": true, "pata_amd": true, "pata_jmicron": true, "ata_generic": true}
)

// LearnFromLog fills what sysfs did not say from the log's own device
// probing: "sd 10:0:0:0: [sdc]" names a disk at SCSI host 10, "scsi host10:
// usb-storage" makes it a USB disk, "ata3.00: ATAPI:" an optical drive.
// libata registers its ports in order, one SCSI host each, so the n-th
// ATA-driver host line belongs to port ata<n> (used only when sysfs has no
// ata path for the port).
func (t *Topology) LearnFromLog(k *Log) {
	t.init()
	if k == nil {
		return
	}
	// No disk from sysfs: the log's probe messages are all there is to
	// place its names, whether sysfs was not read (a log on its own) or
	// listed nothing (every disk gone).
	fromLog := len(t.Disks) == 0
	if fromLog && !t.Listed {
		t.LogOnly = true
	}
	hosts := logHostsOf(k)
	sysfsATA := len(t.ATA) > 0
	for _, l := range k.Lines {
		if m := logATAPI.FindStringSubmatch(l.Text); m != nil {
			t.ATAPI[m[1]] = true
		}
		if m := logPMP.FindStringSubmatch(l.Text); m != nil {
			t.PMP[m[1]] = true
		}
		if m := logSCSIName.FindStringSubmatch(l.Text); m != nil {
			t.learnSCSIName(m[1], m[1]+":"+m[2], m[3], hosts, sysfsATA)
		}
		if m := logNVMeParts.FindStringSubmatch(l.Text); m != nil {
			t.learnNVMeNamespace(m[2], m[1], hosts)
		}
	}
	if fromLog {
		t.learnLogOnly(k, hosts)
	}
	for port := range t.ATAPI {
		// An optical drive is not one of the disks, whatever its host.
		delete(t.ATA, port)
	}
}

// logHosts is what a log's host lines say: each SCSI host's driver
// ("scsi host10: usb-storage"), the ATA-driver hosts in the order libata
// registered them, and each NVMe controller's PCI function ("nvme nvme0:
// pci function 0000:01:00.0").
type logHosts struct {
	driver   map[string]string
	ataHosts []string
	nvmePCI  map[string]string
}

func logHostsOf(k *Log) logHosts {
	h := logHosts{driver: map[string]string{}, nvmePCI: map[string]string{}}
	for _, l := range k.Lines {
		if m := logNVMePCI.FindStringSubmatch(l.Text); m != nil {
			h.nvmePCI[m[1]] = m[2]
		}
		if m := logSCSIHost.FindStringSubmatch(l.Text); m != nil {
			if _, seen := h.driver[m[1]]; !seen {
				h.driver[m[1]] = m[2]
				if ataDrivers[m[2]] {
					h.ataHosts = append(h.ataHosts, m[1])
				}
			}
		}
	}
	return h
}

// learnSCSIName takes in "sd 10:0:0:0: [sdc]": disk dev at SCSI address
// addr of host, its transport from the host's driver, and, when sysfs had
// no ata paths, its libata port from the host's place among the ATA hosts.
func (t *Topology) learnSCSIName(host, addr, dev string, hosts logHosts, sysfsATA bool) {
	if _, ok := t.SCSI[addr]; !ok {
		t.SCSI[addr] = dev
	}
	if !t.Disks[dev] {
		t.Disks[dev] = true
	}
	if t.Transport[dev] == "" {
		switch drv := hosts.driver[host]; {
		case drv == "usb-storage" || drv == "uas":
			t.Transport[dev] = "usb"
		case ataDrivers[drv]:
			t.Transport[dev] = "sata"
		}
	}
	if !sysfsATA {
		for i, h := range hosts.ataHosts {
			if h == host {
				t.addATA("ata"+strconv.Itoa(i+1), addr, dev)
			}
		}
	}
}

// learnNVMeNamespace takes in the first namespace ns a log names of NVMe
// controller ctrl ("nvme0n1: p1 p2").
func (t *Topology) learnNVMeNamespace(ctrl, ns string, hosts logHosts) {
	if len(t.NVMe[ctrl]) != 0 {
		return
	}
	t.NVMe[ctrl] = []string{ns}
	t.Disks[ns] = true
	t.Transport[ns] = "nvme"
	if a := hosts.nvmePCI[ctrl]; a != "" && len(t.PCI[a]) == 0 {
		t.PCI[a] = []string{ns}
	}
}

// learnLogOnly is what a topology with no inventory (a log alone) takes
// in besides: every NVMe namespace named, and, in an excerpt without the
// host lines, the libata ports of the usual single AHCI controller.
func (t *Topology) learnLogOnly(k *Log, hosts logHosts) {
	for _, l := range k.Lines {
		for _, m := range logNVMeName.FindAllStringSubmatch(l.Text, -1) {
			t.NVMe[m[2]] = appendUnique(t.NVMe[m[2]], m[1])
		}
	}
	if len(hosts.driver) != 0 {
		return
	}
	// On the usual single AHCI controller, port ata<n> is SCSI host n-1.
	for addr, dev := range t.SCSI {
		host, _, _ := strings.Cut(addr, ":")
		if n, err := strconv.Atoi(host); err == nil {
			if _, ok := t.ATA["ata"+strconv.Itoa(n+1)]; !ok {
				t.addATA("ata"+strconv.Itoa(n+1), addr, dev)
			}
		}
	}
}

var partName = regexp.MustCompile(`^((?:nvme\d+n\d+|mmcblk\d+)p|(?:sd|vd|xvd|hd)[a-z]+)\d+$`)

// Attribute maps what a line names to disks.
func (t *Topology) Attribute(kind, ref string) []string {
	if ref == "" {
		return nil
	}
	switch kind {
	case RefATA:
		return t.ataDisks(ref)
	case RefNVMe:
		if ns := t.NVMe[ref]; len(ns) > 0 {
			return append([]string(nil), ns...)
		}
		if (t.LogOnly || t.HasInventory()) && nvmeCtrl.MatchString(ref) {
			// A controller whose namespace neither sysfs nor the log
			// names (it left, or the excerpt starts after its probe):
			// its messages are its own, under its own name.
			return []string{ref}
		}
		return nil
	case RefPCI:
		return append([]string(nil), t.PCI[ref]...)
	case RefBlock:
		return t.disksOf(ref, 0)
	case RefSCSI:
		if d := t.SCSI[ref]; d != "" {
			return []string{d}
		}
	}
	return nil
}

var nvmeCtrl = regexp.MustCompile(`^nvme\d+$`)

// HasInventory: sysfs said which disks there are (an empty /sys/block
// included), so a disk the log names and sysfs does not is gone.
func (t *Topology) HasInventory() bool { return len(t.Inventory) > 0 || t.Listed }

// ataDisks maps a libata name to disks: a device (ata3.00, ata3.01) to its
// disk; a port (ata3) to its disk, or to every disk behind its port
// multiplier. A device behind a multiplier that cannot be placed, and the
// multiplier itself (ata3.15), are no disk.
func (t *Topology) ataDisks(ref string) []string {
	port, dev, isDev := strings.Cut(ref, ".")
	if t.ATAPI[port] {
		return nil
	}
	if isDev {
		if d := t.ATADev[ref]; d != "" {
			return []string{d}
		}
		if !t.PMP[port] && dev == "00" {
			// No SCSI address known for it: the port's one device.
			if d := t.ATA[port]; d != "" && !t.hasOtherDev(port, ref) {
				return []string{d}
			}
		}
		return nil
	}
	if d := t.ATA[port]; d != "" {
		return []string{d}
	}
	var out []string
	for name, d := range t.ATADev {
		if strings.HasPrefix(name, port+".") {
			out = appendUnique(out, d)
		}
	}
	sort.Strings(out)
	return out
}

func (t *Topology) hasOtherDev(port, ref string) bool {
	for name := range t.ATADev {
		if name != ref && strings.HasPrefix(name, port+".") {
			return true
		}
	}
	return false
}

var wholeDisk = regexp.MustCompile(`^(?:sd[a-z]+|nvme\d+n\d+|vd[a-z]+|xvd[a-z]+|hd[a-z]+|mmcblk\d+)$`)

var nvmePathDev = regexp.MustCompile(`^nvme(\d+)c\d+n(\d+)(p\d+)?$`)

func (t *Topology) disksOf(name string, depth int) []string {
	if m := nvmePathDev.FindStringSubmatch(name); m != nil {
		// A native-multipath path device (nvme0c1n1): its namespace head
		// (nvme0n1) is the disk.
		name = "nvme" + m[1] + "n" + m[2] + m[3]
	}
	if t.Disks[name] || (t.LogOnly && wholeDisk.MatchString(name)) {
		return []string{name}
	}
	if !t.LogOnly && t.HasInventory() && !t.Inventory[name] && wholeDisk.MatchString(name) {
		// A whole disk sysfs no longer lists: it is gone, and its
		// messages are still about it.
		return []string{name}
	}
	if depth > 8 {
		return nil
	}
	var out []string
	for _, p := range t.Parents[name] {
		for _, d := range t.disksOf(p, depth+1) {
			out = appendUnique(out, d)
		}
	}
	if len(out) == 0 {
		// A partition the inventory did not list: sda1 -> sda, nvme0n1p2 -> nvme0n1.
		if m := partName.FindStringSubmatch(name); m != nil {
			disk := strings.TrimSuffix(m[1], "p")
			if strings.HasPrefix(m[1], "nvme") || strings.HasPrefix(m[1], "mmcblk") {
				disk = m[1][:len(m[1])-1]
			}
			if t.Disks[disk] || t.LogOnly || (t.HasInventory() && !t.Inventory[disk]) {
				out = []string{disk}
			}
		}
	}
	return out
}

func appendUnique(s []string, v string) []string {
	for _, x := range s {
		if x == v {
			return s
		}
	}
	return append(s, v)
}
