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

// Kernel log categories: what a message says about storage.
const (
	IOError         = "io-error"           // I/O error, dev sda, sector …; Buffer I/O error
	MediumError     = "medium-error"       // Sense Key : Medium Error, UNC, critical medium error
	ATAException    = "ata-exception"      // libata error handler: exception Emask …
	CommandFailed   = "command-failed"     // failed command: READ FPDMA QUEUED; SCSI FAILED Result
	Timeout         = "timeout"            // command timeouts (ATA, NVMe I/O … timeout, aborting)
	LinkReset       = "link-reset"         // hard resetting link
	LinkError       = "link-error"         // ATA bus error, interface CRC / SError
	LinkLimited     = "link-speed-limited" // limiting SATA link speed to 1.5 Gbps
	LinkUp          = "link-up"            // SATA link up 6.0 Gbps (not an error; speeds)
	NCQDisabled     = "ncq-disabled"       // NCQ disabled due to excessive errors
	ControllerReset = "controller-reset"   // NVMe timeout, reset controller
	DeviceFailed    = "device-failed"      // Device not ready; aborting reset; disable device; offline
	FSError         = "fs-error"           // EXT4-fs error, XFS metadata I/O error, BTRFS error
	FSReadOnly      = "fs-readonly"        // Remounting filesystem read-only, XFS shutting down
	HungTask        = "hung-task"          // INFO: task … blocked for more than N seconds
	Thermal         = "thermal-throttle"   // CPU clock throttled by temperature
	WriteCache      = "write-cache"        // sd … Write cache: disabled
	PCIeBandwidth   = "pcie-bandwidth"     // available PCIe bandwidth, limited by …
)

// What a pattern's "dev" group names.
const (
	RefBlock = "block" // sda, nvme0n1, dm-1, sda1
	RefATA   = "ata"   // ata3 (a libata port)
	RefNVMe  = "nvme"  // nvme0 (a controller)
	RefPCI   = "pci"   // 0000:01:00.0
	RefHost  = "host"  // not about one device
)

// Pattern is one kind of kernel message.
type Pattern struct {
	Name     string
	Needles  []string // one of them is in every line the pattern matches: a cheap test before the regexp
	Category string
	Ref      string
	Re       *regexp.Regexp // the named group "dev" is the device it names
}

func pat(name string, needles []string, cat, ref, re string) Pattern {
	return Pattern{Name: name, Needles: needles, Category: cat, Ref: ref, Re: regexp.MustCompile(re)}
}

func (p *Pattern) mayMatch(text string) bool {
	for _, n := range p.Needles {
		if strings.Contains(text, n) {
			return true
		}
	}
	return len(p.Needles) == 0
}

const (
	// sd_printk (drivers/scsi/sd.h): "sd H:C:T:L: [sdX] "; scsi_print_sense
	// adds "tag#N " in 4.x and later. 2.6 and 3.x kernels put two spaces
	// after the name on some sense lines ("[sdc]  Sense Key : …"), and some
	// 3.x kernels printed the prefix on a line of its own (see
	// Classify's sdAlone).
	sdPrefix = `^sd \d+:\d+:\d+:\d+: \[(?P<dev>[\w-]+)\]\s+(?:tag#\d+ )?`
	// ata_port_printk "ata3: ", ata_link_printk "ata3: " (host link) or
	// "ata3.01: " (a port multiplier link), ata_dev_printk "ata3.00: "
	// (drivers/ata/libata-core.c; the ".NN" is pmp + devno, so ata3.01
	// and ata3.15 are different devices behind one port: 15 is the
	// multiplier's own control link).
	ataPrefix = `^(?P<dev>ata\d+(?:\.\d+)?): `
	// dev_warn on the controller device: "nvme nvme0: ".
	nvmPrefix = `^(?:nvme )?(?P<dev>nvme\d+): `
	// A namespace as the block layer names it: the head nvme0n1, or with
	// native multipath (CONFIG_NVME_MULTIPATH, Debian's default) a path
	// device nvme<subsys>c<ctrl>n<ns> that belongs to the head nvme<subsys>n<ns>.
	nvmeNS = `nvme\d+(?:c\d+)?n\d+`
)

// KlogPatterns is the library, most specific first: a line is the first
// pattern it matches. Each names the kernel function that prints the
// message and the kernels whose format it matches; kernlog_patterns_test.go
// has a line of each form.
var patterns = []Pattern{
	// sd_read_cache_type (drivers/scsi/sd.c), every kernel since 2.6:
	// "sd 2:0:0:0: [sda] Write cache: disabled, read cache: enabled, …".
	pat("sd-write-cache", []string{"Write cache: "}, WriteCache, RefBlock, sdPrefix+`Write cache: (?:enabled|disabled)`),
	// scsi_print_sense_hdr / sd_print_sense_hdr (drivers/scsi/scsi_logging.c,
	// constants.c): "Sense Key : Medium Error [current]" in 4.x–6.x,
	// "Sense Key : Medium Error [current] [descriptor]" in 2.6–3.x.
	pat("scsi-medium-error", []string{"Medium Error"}, MediumError, RefBlock, sdPrefix+`Sense Key : Medium Error`),
	// scsi_print_sense_hdr's additional sense, 2.6–6.x: "Add. Sense:
	// Unrecovered read error - auto reallocate failed".
	pat("scsi-unrecovered-read", []string{"Unrecovered read error"}, MediumError, RefBlock, sdPrefix+`Add\. Sense: Unrecovered read error`),
	// print_req_error / blk_print_req_error (block/blk-core.c) for
	// BLK_STS_MEDIUM: "critical medium error, dev sdd, sector …", 4.x and
	// later (with the "print_req_error: " prefix in 4.x–5.x).
	pat("blk-critical-medium", []string{"critical medium error"}, MediumError, RefBlock, `critical medium error, dev (?P<dev>[\w-]+)`),
	// scsi_io_completion / sd_done result line: "FAILED Result:
	// hostbyte=DID_OK driverbyte=DRIVER_SENSE" (3.x–5.x), "FAILED Result:
	// hostbyte=DID_BAD_TARGET driverbyte=DRIVER_OK cmd_age=0s" (5.x–6.x).
	pat("scsi-failed-result", []string{"FAILED Result"}, CommandFailed, RefBlock, sdPrefix+`FAILED Result: `),
	// scsi_prep_state_check (drivers/scsi/scsi_lib.c), 2.6–6.x.
	pat("scsi-offline", []string{"offline device"}, DeviceFailed, RefBlock, sdPrefix+`rejecting I/O to offline device`),
	// nvme_log_error (drivers/nvme/host/core.c), 5.18 and later: "nvme0n1:
	// I/O Cmd(0x2) @ LBA 1953520, 8 blocks, I/O Error (sct 0x2 / sc 0x81) DNR";
	// status code type 2 is a media error. On a path device (nvme0c0n1)
	// with native multipath.
	pat("nvme-media-error", []string{" @ LBA "}, MediumError, RefBlock, `^(?P<dev>`+nvmeNS+`): I/O Cmd\(0x[0-9a-f]+\) @ LBA \d+, \d+ blocks, (?:Unrecovered Read Error|.*\(sct 0x2 / )`),
	// nvme_log_error, any other status.
	pat("nvme-io-error", []string{" @ LBA "}, IOError, RefBlock, `^(?P<dev>`+nvmeNS+`): I/O Cmd\(0x[0-9a-f]+\) @ LBA \d+, \d+ blocks, `),
	// blk_update_request (4.x: "blk_update_request: I/O error, dev sda,
	// sector 123"), print_req_error (4.17–5.x, with "op 0x0:(READ) flags
	// …"), blk_print_req_error (5.x–6.x, no prefix: "I/O error, dev sda,
	// sector 0 op 0x1:(WRITE) flags 0x800 phys_seg 0 prio class 0"), and
	// end_request (2.6–3.x: "end_request: I/O error, dev sda, sector 123").
	pat("blk-io-error", []string{"I/O error, dev"}, IOError, RefBlock, `(?:^|: )(?:critical )?I/O error, dev (?P<dev>[\w-]+), sector`),
	// buffer_io_error (fs/buffer.c): "Buffer I/O error on device sda1,
	// logical block 0" (2.6–4.x), "Buffer I/O error on dev dm-1, logical
	// block 0, lost sync page write" (4.x–6.x).
	pat("buffer-io-error", []string{"Buffer I/O error"}, IOError, RefBlock, `^Buffer I/O error on (?:dev(?:ice)? )?(?P<dev>[\w-]+), `),
	// md's personality error handlers (raid1_error, raid10_error in
	// drivers/md/raid1.c, raid10.c; raid5_error in raid5.c), 3.x–6.x:
	// "md/raid1:md0: Disk failure on sdc1, disabling device." and
	// "md/raid:md0: Disk failure on sdc1, disabling device.". md gave the
	// member up: its disk failed.
	pat("md-disk-failure", []string{"Disk failure on"}, DeviceFailed, RefBlock, `^md/raid\d*:md\w+: Disk failure on (?P<dev>[\w-]+), disabling device`),
	// ata_eh_link_report (drivers/ata/libata-eh.c), 2.6–6.x: the error
	// description of a failed command, "… Emask 0x9 (media error)".
	pat("ata-media-error", []string{"(media error)"}, MediumError, RefATA, ataPrefix+`.*Emask 0x[0-9a-f]+ \(media error\)`),
	// ata_eh_link_report's status decoding, 2.6.2x–6.x: "ata6.00: error:
	// { UNC }" (uncorrectable data).
	pat("ata-unc", []string{"UNC"}, MediumError, RefATA, ataPrefix+`error: \{[^}]*\bUNC\b`),
	// ata_eh_link_report, 2.6–6.x: "ata1.00: exception Emask 0x10 SAct
	// 0x0 SErr 0xf0100 action 0x6 frozen".
	pat("ata-exception", []string{"exception Emask"}, ATAException, RefATA, ataPrefix+`exception Emask `),
	// ata_eh_link_report: "… (ATA bus error)", "… (HSM violation)".
	pat("ata-bus-error", []string{"(ATA bus error)", "(HSM violation)"}, LinkError, RefATA, ataPrefix+`.*\((?:ATA bus error|HSM violation)\)`),
	// ata_eh_link_report's SError decoding, 2.6.2x–6.x: "ata1: SError: {
	// UnrecovData PHYRdyChg 10B8B }".
	pat("ata-serror-crc", []string{"SError"}, LinkError, RefATA, ataPrefix+`SError: \{[^}]*\b(?:BadCRC|Handshk|UnrecovData|10B8B|Dispar|LinkSeq)\b`),
	// ata_exec_internal_sg "qc timeout (cmd 0xec)" (2.6–5.x; newer kernels
	// add "after 5000 msecs"); ata_eh_link_report "… Emask 0x4 (timeout)".
	pat("ata-cmd-timeout", []string{"timeout"}, Timeout, RefATA, ataPrefix+`(?:qc timeout|.*Emask 0x[0-9a-f]+ \(timeout\))`),
	// ata_eh_link_report "failed command: READ FPDMA QUEUED" (2.6.3x–6.x);
	// ata_dev_read_id "failed to IDENTIFY (I/O error, err_mask=0x4)".
	pat("ata-failed-command", []string{"failed "}, CommandFailed, RefATA, ataPrefix+`(?:failed command: |failed to IDENTIFY)`),
	// ata_eh_reset / sata_link_hardreset, 2.6–6.x: "ata1: hard resetting
	// link", "ata3.01: hard resetting link" behind a port multiplier.
	pat("ata-reset", []string{"resetting link"}, LinkReset, RefATA, ataPrefix+`(?:(?:hard|soft) )?resetting link`),
	// sata_down_spd_limit (libata-core.c), 2.6–6.x.
	pat("ata-limit-speed", []string{"limiting SATA link speed"}, LinkLimited, RefATA, ataPrefix+`limiting SATA link speed to (?P<speed>[\d.]+) Gbps`),
	// sata_print_link_status, 2.6–6.x: "ata1: SATA link up 6.0 Gbps
	// (SStatus 133 SControl 300)".
	pat("ata-link-up", []string{"SATA link up"}, LinkUp, RefATA, ataPrefix+`SATA link up (?P<speed>[\d.]+) Gbps`),
	// ata_eh_speed_down, 2.6.2x–6.x.
	pat("ata-ncq-off", []string{"NCQ disabled"}, NCQDisabled, RefATA, ataPrefix+`NCQ disabled due to excessive errors`),
	// ata_dev_disable: "ata1.00: disable device" (3.x–6.x); older kernels
	// printed "ata1.00: disabled".
	pat("ata-disable", []string{"disable device", "disabled"}, DeviceFailed, RefATA, ataPrefix+`(?:disable device|disabled)$`),
	// nvme_timeout (drivers/nvme/host/pci.c): "I/O 119 QID 2 timeout,
	// aborting" (4.x to early 6.x: 5.13 and 5.15 in the corpus), "I/O 0
	// (I/O Cmd) QID 1 timeout, aborting" (some 6.x), and on current 6.x
	// kernels "I/O tag 489 (d1e9) opcode 0x1 (I/O Cmd) QID 3 timeout,
	// aborting req_op:WRITE(1) size:4096" (6.13 in the corpus); "…
	// timeout, completion polled" (a lost interrupt).
	pat("nvme-abort", []string{"timeout, "}, Timeout, RefNVMe, nvmPrefix+nvmeTimeoutCmd+`timeout, (?:aborting|completion polled)`),
	// nvme_timeout's second timeout of an aborted command "…, reset
	// controller" and "…, disable controller" (same forms as above);
	// nvme_warn_reset "controller is down; will reset: CSTS=0x…" (4.x–6.x);
	// nvme_reset_work's "resetting controller" (4.x).
	pat("nvme-reset", []string{"reset controller", "disable controller", "will reset", "resetting controller"}, ControllerReset, RefNVMe, nvmPrefix+`(?:`+nvmeTimeoutCmd+`timeout, (?:reset|disable) controller|controller is down; will reset|resetting controller)`),
	// nvme_wait_ready / nvme_reset_work / nvme_remove_dead_ctrl (pci.c),
	// 4.x–6.x: "Device not ready; aborting reset, CSTS=0x1", "Removing
	// after probe failure status: -19", "Disabling device after reset
	// failure: -19": the controller is gone.
	pat("nvme-not-ready", []string{"Device not ready", "probe failure", "reset failure"}, DeviceFailed, RefNVMe, nvmPrefix+`(?:Device not ready; aborting reset|Removing after probe failure|Disabling device after reset failure)`),
	// ext4_handle_error / save_error_info (fs/ext4/super.c), 3.x–6.x.
	pat("ext4-readonly", []string{"read-only"}, FSReadOnly, RefBlock, `^EXT4-fs \((?P<dev>[\w-]+)\): Remounting filesystem read-only`),
	// xfs_do_force_shutdown (fs/xfs/xfs_fsops.c), 3.x–6.x.
	pat("xfs-shutdown", []string{"Shutting down filesystem"}, FSReadOnly, RefBlock, `^XFS \((?P<dev>[\w-]+)\): .*Shutting down filesystem`),
	// btrfs_handle_fs_error (fs/btrfs/messages.c, super.c in 3.x–6.1).
	pat("btrfs-readonly", []string{"forced readonly"}, FSReadOnly, RefBlock, `^BTRFS.*\(device (?P<dev>[\w-]+)\).*forced readonly`),
	// __ext4_error "EXT4-fs error (device dm-1) in …" and
	// ext4_commit_super's "EXT4-fs (dm-1): I/O error while writing
	// superblock", 3.x–6.x.
	pat("ext4-error", []string{"EXT4-fs"}, FSError, RefBlock, `^EXT4-fs (?:error \(device (?P<dev>[\w-]+)\)|\((?P<dev2>[\w-]+)\): I/O error)`),
	// xfs_buf_ioerror_alert "metadata I/O error in …" and the corruption
	// reports (fs/xfs), 3.x–6.x.
	pat("xfs-error", []string{"XFS ("}, FSError, RefBlock, `^XFS \((?P<dev>[\w-]+)\): (?:metadata I/O error|.*[Cc]orruption)`),
	// btrfs_err / btrfs_crit (fs/btrfs), 3.x–6.x.
	pat("btrfs-error", []string{"BTRFS"}, FSError, RefBlock, `^BTRFS (?:error|critical) \(device (?P<dev>[\w-]+)`),
	// check_hung_task (kernel/hung_task.c), 2.6–6.x: "INFO: task
	// mdadm:65108 blocked for more than 122 seconds."
	pat("hung-task", []string{"blocked for more than"}, HungTask, RefHost, `^INFO: task \S+ blocked for more than \d+ seconds`),
	// therm_throt_process (arch/x86/kernel/cpu/mce/therm_throt.c), 2.6–6.x:
	// "CPU3: Package temperature above threshold, cpu clock throttled
	// (total events = 1)".
	pat("cpu-thermal", []string{"temperature above threshold"}, Thermal, RefHost, `^(?:CPU\d+|mce): (?:\[Hardware Error\]: )?(?:Core|Package) temperature above threshold, cpu clock throttled`),
	// __pcie_print_link_status (drivers/pci/pci.c), 4.17–6.x.
	pat("pci-bandwidth", []string{"available PCIe bandwidth"}, PCIeBandwidth, RefPCI, `^pci (?P<dev>[0-9a-f:.]+): .*available PCIe bandwidth, limited by`),
}

// nvmeTimeoutCmd is the command part of nvme_timeout's messages in each
// kernel generation: "I/O 119 QID 2 ", "I/O 0 (I/O Cmd) QID 1 ", "I/O tag
// 489 (d1e9) opcode 0x1 (I/O Cmd) QID 3 ".
const nvmeTimeoutCmd = `I/O (?:tag )?\d+ (?:\([0-9a-f]{4}\) )?(?:opcode 0x[0-9a-f]+ )?(?:\([^)]*\) )?QID \d+ `

// Event is one kernel message that matched a pattern.
type Event struct {
	Pattern  string
	Category string
	Ref      string   // what the line names: sda, ata3, nvme0, 0000:01:00.0, dm-1
	Devices  []string // the disks it is attributed to; empty: none known
	Speed    float64  // Gb/s, for link-up and link-speed-limited
	Line     Line
	// Boot: logged during boot (timestamp under BootWindow seconds).
	// Age: seconds before the log was read (uptime minus timestamp); nil
	// when the line has no timestamp or uptime is unknown.
	Boot bool
	Age  *float64
}

// BootWindow is how long after power-on a message counts as boot-time
// device probing.
const BootWindow = 120.0

// Classify matches every line against the library and attributes
// it to disks. A continuation line (indented, e.g. the "res …" line under
// an ATA command) inherits the device of the line above it. uptime is
// /proc/uptime's first field, or a negative number when unknown.
func Classify(k *Log, topo *Topology, uptime float64) []Event {
	if k == nil {
		return nil
	}
	if topo == nil {
		topo = &Topology{}
	}
	var out []Event
	prevRef, prevKind, prevTime := "", "", -1.0
	sdAlone := ""
	for _, l := range k.Lines {
		text := l.Text
		if m := sdPrefixAlone.FindString(text); m != "" {
			// Kernels before 4.5 could print "sd 2:0:0:0: [sdc] " on its
			// own line (scsi_print_sense's prefix) and the sense text on
			// the next: the two are one message.
			sdAlone = strings.TrimRight(m, " \t")
			continue
		}
		if sdAlone != "" {
			if splitSenseText.MatchString(text) {
				text = sdAlone + "  " + text
			}
			sdAlone = ""
		}
		if strings.HasPrefix(text, " ") || strings.HasPrefix(text, "\t") {
			// continuation of the previous message
			if prevKind != RefATA {
				continue
			}
			text = prevRef + ": " + strings.TrimSpace(text)
			if l.Time < 0 {
				l.Time = prevTime
			}
		} else {
			prevRef, prevKind, prevTime = "", "", l.Time
		}
		for i := range patterns {
			p := &patterns[i]
			if !p.mayMatch(text) {
				continue
			}
			m := p.Re.FindStringSubmatch(text)
			if m == nil {
				continue
			}
			e := Event{Pattern: p.Name, Category: p.Category, Line: l}
			for i, n := range p.Re.SubexpNames() {
				switch n {
				case "dev", "dev2":
					if m[i] != "" {
						e.Ref = m[i]
					}
				case "speed":
					e.Speed, _ = parse.Finite(m[i])
				}
			}
			e.Devices = topo.Attribute(p.Ref, e.Ref)
			if l.Time >= 0 {
				e.Boot = l.Time < BootWindow
				if uptime >= l.Time && !l.EarlierBoot {
					age := uptime - l.Time
					e.Age = &age
				}
			}
			out = append(out, e)
			break
		}
		if !strings.HasPrefix(text, "ata") {
			continue
		}
		if m := ataLinePrefix.FindStringSubmatch(text); m != nil {
			prevRef, prevKind = m[1], RefATA
		}
	}
	return out
}

var (
	sdPrefixAlone = regexp.MustCompile(`^sd \d+:\d+:\d+:\d+: \[[\w-]+\]\s*$`)
	// The texts scsi_print_sense and scsi_print_result printed after a
	// prefix line in 2.6–4.4: "Sense Key : Medium Error [current]
	// [descriptor]", "Add. Sense: Unrecovered read error - auto reallocate
	// failed", "Result: hostbyte=DID_OK driverbyte=DRIVER_SENSE", "CDB:
	// Read(10): 28 00 …", "Unhandled sense code".
	splitSenseText = regexp.MustCompile(`^\s*(?:Sense Key :|Add\. Sense:|Result: |CDB: |Unhandled (?:sense|error) code)`)
)

var ataLinePrefix = regexp.MustCompile(`^(ata\d+(?:\.\d+)?): `)

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

// The topology's expressions are guarded (guardedRegexp): a 1,000-disk
// boot log has 5,600 "ata" and "sd" lines, and each expression allocated
// its match on every one. FuzzTopologyGuards holds each guard to its
// expression.
var (
	logSCSIName = guardedRegexp{regexp.MustCompile(`^sd (\d+):(\d+:\d+:\d+): \[(\w+)\] `),
		func(s string) bool { return strings.HasPrefix(s, "sd ") }}
	logSCSIHost = regexp.MustCompile(`^scsi host(\d+): (\S+)`)
	logATAPI    = guardedRegexp{regexp.MustCompile(`^(ata\d+)\.\d+: ATAPI: `),
		func(s string) bool { return strings.HasPrefix(s, "ata") && strings.Contains(s, ": ATAPI: ") }}
	// sata_pmp_init (drivers/ata/libata-pmp.c), 2.6.24–6.x: "ata3.15: Port
	// Multiplier 1.2, 0x197b:0x0325 r0, 5 ports, feat 0x5/0xf".
	logPMP = guardedRegexp{regexp.MustCompile(`^(ata\d+)\.15: Port Multiplier `),
		func(s string) bool {
			return strings.HasPrefix(s, "ata") && strings.Contains(s, ".15: Port Multiplier ")
		}}
	logNVMeParts = guardedRegexp{regexp.MustCompile(`^\s*((nvme\d+)n\d+): `),
		func(s string) bool { return strings.HasPrefix(strings.TrimLeft(s, " \t\n\f\r"), "nvme") }}
	logNVMeName = regexp.MustCompile(`\b((nvme\d+)n\d+)\b`)
	logNVMePCI  = regexp.MustCompile(`^nvme (nvme\d+): pci function (\S+)`)
	ataDrivers  = map[string]bool{"ahci": true, "ata_piix": true, "pata_atiixp": true, "sata_nv": true, "sata_via": true, "sata_sil24": true, "sata_mv": true, "pata_amd": true, "pata_jmicron": true, "ata_generic": true}
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
	if len(t.Disks) == 0 {
		t.LogOnly = true
	}
	hostDriver := map[string]string{}
	nvmePCI := map[string]string{}
	var ataHosts []string
	for _, l := range k.Lines {
		if !strings.HasPrefix(l.Text, "nvme ") && !strings.HasPrefix(l.Text, "scsi host") {
			continue
		}
		if m := logNVMePCI.FindStringSubmatch(l.Text); m != nil {
			nvmePCI[m[1]] = m[2]
		}
		if m := logSCSIHost.FindStringSubmatch(l.Text); m != nil {
			if _, seen := hostDriver[m[1]]; !seen {
				hostDriver[m[1]] = m[2]
				if ataDrivers[m[2]] {
					ataHosts = append(ataHosts, m[1])
				}
			}
		}
	}
	sysfsATA := len(t.ATA) > 0
	for _, l := range k.Lines {
		if !strings.HasPrefix(l.Text, "ata") && !strings.HasPrefix(l.Text, "sd ") && !strings.Contains(l.Text, "nvme") {
			continue
		}
		// Each expression runs only on the lines its literal part allows
		// (a 1,000-disk boot log has 5,600 "ata" and "sd" lines, and
		// each expression allocated its match on every one).
		if m := logATAPI.find(l.Text); m != nil {
			t.ATAPI[m[1]] = true
		}
		if m := logPMP.find(l.Text); m != nil {
			t.PMP[m[1]] = true
		}
		if m := logSCSIName.find(l.Text); m != nil {
			host, addr, dev := m[1], m[1]+":"+m[2], m[3]
			if _, ok := t.SCSI[addr]; !ok {
				t.SCSI[addr] = dev
			}
			if !t.Disks[dev] {
				t.Disks[dev] = true
			}
			if t.Transport[dev] == "" {
				switch drv := hostDriver[host]; {
				case drv == "usb-storage" || drv == "uas":
					t.Transport[dev] = "usb"
				case ataDrivers[drv]:
					t.Transport[dev] = "sata"
				}
			}
			if !sysfsATA {
				for i, h := range ataHosts {
					if h == host {
						t.addATA("ata"+strconv.Itoa(i+1), addr, dev)
					}
				}
			}
		}
		if m := logNVMeParts.find(l.Text); m != nil {
			if ctrl, ns := m[2], m[1]; len(t.NVMe[ctrl]) == 0 {
				t.NVMe[ctrl] = []string{ns}
				t.Disks[ns] = true
				t.Transport[ns] = "nvme"
				if a := nvmePCI[ctrl]; a != "" && len(t.PCI[a]) == 0 {
					t.PCI[a] = []string{ns}
				}
			}
		}
	}
	if t.LogOnly {
		for _, l := range k.Lines {
			if !strings.Contains(l.Text, "nvme") {
				continue
			}
			for _, m := range logNVMeName.FindAllStringSubmatch(l.Text, -1) {
				t.NVMe[m[2]] = appendUnique(t.NVMe[m[2]], m[1])
			}
		}
		if len(hostDriver) == 0 {
			// An excerpt without the boot messages: on the usual single
			// AHCI controller, port ata<n> is SCSI host n-1.
			for addr, dev := range t.SCSI {
				host, _, _ := strings.Cut(addr, ":")
				if n, err := strconv.Atoi(host); err == nil {
					if _, ok := t.ATA["ata"+strconv.Itoa(n+1)]; !ok {
						t.addATA("ata"+strconv.Itoa(n+1), addr, dev)
					}
				}
			}
		}
	}
	for port := range t.ATAPI {
		// An optical drive is not one of the disks, whatever its host.
		delete(t.ATA, port)
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
		if (t.LogOnly || len(t.Inventory) > 0) && nvmeCtrl.MatchString(ref) {
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
	}
	return nil
}

var nvmeCtrl = regexp.MustCompile(`^nvme\d+$`)

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
	if !t.LogOnly && len(t.Inventory) > 0 && !t.Inventory[name] && wholeDisk.MatchString(name) {
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
			if t.Disks[disk] || t.LogOnly || (len(t.Inventory) > 0 && !t.Inventory[disk]) {
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

// Group is every occurrence of one message (same category, device and
// text once numbers are set aside): 5,000 identical resets are one group.
type Group struct {
	Category    string
	Pattern     string
	Device      string // the disk; "" for host-wide messages
	Ref         string
	Key         string
	Count       int
	First, Last Line
	Boot        bool     // every occurrence was logged during boot
	Age         *float64 // age of the newest occurrence, when known
}

// Key is a message with its numbers set aside: sectors, tags, ages.
// Each number (numberRun) becomes "#" and each run of white space (\s+)
// one space. It is the two regular expressions' replacement, written as
// one pass over the bytes: on a large log the two ReplaceAllString calls
// were a third of the kernel-log check's time (FuzzKlogKey holds it to
// the expressions).
func Key(text string) string {
	var b strings.Builder
	b.Grow(len(text))
	for i := 0; i < len(text); {
		c := text[i]
		if isSpaceRE(c) {
			b.WriteByte(' ')
			for i < len(text) && isSpaceRE(text[i]) {
				i++
			}
			continue
		}
		if j := numberAt(text, i); j > i {
			b.WriteByte('#')
			i = j
			continue
		}
		b.WriteByte(c)
		i++
	}
	return b.String()
}

// numberAt is the end of numberRun's match at i, or i when there is none:
// 0x and hex digits; or, from a word boundary, hex digits with a decimal
// digit among them up to a word boundary, then any number of [.:/] and hex
// digits up to a word boundary (1.5, 0000:03:00.0, 4/8).
func numberAt(s string, i int) int {
	if s[i] == '0' && i+2 < len(s) && s[i+1] == 'x' && isHexDigit(s[i+2]) {
		return hexRunEnd(s, i+2)
	}
	if !isHexDigit(s[i]) || (i > 0 && isWordByte(s[i-1])) {
		return i
	}
	j := hexRunEnd(s, i)
	if j < len(s) && isWordByte(s[j]) {
		return i
	}
	if strings.IndexFunc(s[i:j], func(r rune) bool { return r >= '0' && r <= '9' }) < 0 {
		return i
	}
	for j+1 < len(s) && (s[j] == '.' || s[j] == ':' || s[j] == '/') && isHexDigit(s[j+1]) {
		k := hexRunEnd(s, j+1)
		if k < len(s) && isWordByte(s[k]) {
			break
		}
		j = k
	}
	return j
}

func hexRunEnd(s string, i int) int {
	for i < len(s) && isHexDigit(s[i]) {
		i++
	}
	return i
}

func isHexDigit(c byte) bool {
	return c >= '0' && c <= '9' || c >= 'a' && c <= 'f' || c >= 'A' && c <= 'F'
}

// isWordByte is \w of RE2 (ASCII): what \b tells apart.
func isWordByte(c byte) bool {
	return c >= '0' && c <= '9' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c == '_'
}

// isSpaceRE is \s of RE2: [\t\n\f\r ].
func isSpaceRE(c byte) bool {
	return c == ' ' || c == '\t' || c == '\n' || c == '\f' || c == '\r'
}

// GroupEvents groups events per disk (an event about two disks counts
// for both), host-wide ones under "". Groups keep log order of their first
// line.
func GroupEvents(events []Event) []Group {
	idx := map[string]int{}
	var out []Group
	for _, e := range events {
		devs := e.Devices
		if len(devs) == 0 {
			devs = []string{""}
		}
		key := Key(e.Line.Text)
		for _, d := range devs {
			k := d + "\x00" + e.Pattern + "\x00" + key
			i, ok := idx[k]
			if !ok {
				idx[k] = len(out)
				out = append(out, Group{Category: e.Category, Pattern: e.Pattern, Device: d, Ref: e.Ref, Key: key, First: e.Line, Boot: true})
				i = len(out) - 1
			}
			g := &out[i]
			g.Count++
			g.Last = e.Line
			g.Boot = g.Boot && e.Boot
			g.Age = e.Age
		}
	}
	return out
}

// SATALinkState is what the log says about one libata port's speed.
type SATALinkState struct {
	Port      string
	FirstUp   float64 // Gb/s of the first "link up" in the log
	LastUp    float64
	MaxUp     float64
	Limited   float64 // the speed libata limited the link to; 0: never
	LastEvent Event
}

// SATALinks summarises link-up and link-limit messages per port.
func SATALinks(events []Event) map[string]*SATALinkState {
	out := map[string]*SATALinkState{}
	for _, e := range events {
		if e.Category != LinkUp && e.Category != LinkLimited {
			continue
		}
		port := e.Ref
		s := out[port]
		if s == nil {
			s = &SATALinkState{Port: port}
			out[port] = s
		}
		if e.Category == LinkUp {
			if s.FirstUp == 0 {
				s.FirstUp = e.Speed
			}
			s.LastUp = e.Speed
			if e.Speed > s.MaxUp {
				s.MaxUp = e.Speed
			}
		} else {
			s.Limited = e.Speed
		}
		s.LastEvent = e
	}
	return out
}

// Downgraded reports whether the port runs slower than it did or could:
// libata limited its speed after errors, or the last link-up is slower than
// an earlier one. A port that came up slow once and stayed there (an old
// drive, a DVD writer at 1.5 Gbps) is not downgraded by the log alone.
func (s *SATALinkState) Downgraded() bool {
	return s != nil && (s.Limited > 0 || (s.LastUp > 0 && s.LastUp < s.MaxUp))
}
