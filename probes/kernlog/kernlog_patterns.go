package kernlog

import (
	"regexp"
	"strings"

	"github.com/diskdoctor/diskdoctor/internal/parse"
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
	FSCorrupt       = "fs-corruption"      // BTRFS forced readonly, unable to find ref, parent transid verify failed
	HungTask        = "hung-task"          // INFO: task … blocked for more than N seconds
	Thermal         = "thermal-throttle"   // CPU clock throttled by temperature
	WriteCache      = "write-cache"        // sd … Write cache: disabled
	PCIeBandwidth   = "pcie-bandwidth"     // available PCIe bandwidth, limited by …
	FSAllocStall    = "fs-alloc-stall"     // XFS: possible memory allocation deadlock (no disk named)
)

// What a pattern's "dev" group names.
const (
	RefBlock = "block" // sda, nvme0n1, dm-1, sda1
	RefATA   = "ata"   // ata3 (a libata port)
	RefNVMe  = "nvme"  // nvme0 (a controller)
	RefPCI   = "pci"   // 0000:01:00.0
	RefHost  = "host"  // not about one device
	RefSCSI  = "scsi"  // 2:0:0:0 (a SCSI device, by its address)
)

// Pattern is one kind of kernel message.
type Pattern struct {
	Name     string
	Category string
	Ref      string
	Re       *regexp.Regexp // the named group "dev" is the device it names
}

func pat(name, cat, ref, re string) Pattern {
	return Pattern{Name: name, Category: cat, Ref: ref, Re: regexp.MustCompile(re)}
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
	pat("sd-write-cache", WriteCache, RefBlock, sdPrefix+`Write cache: (?:enabled|disabled)`),
	// scsi_print_sense_hdr / sd_print_sense_hdr (drivers/scsi/scsi_logging.c,
	// constants.c): "Sense Key : Medium Error [current]" in 4.x–6.x,
	// "Sense Key : Medium Error [current] [descriptor]" in 2.6–3.x.
	pat("scsi-medium-error", MediumError, RefBlock, sdPrefix+`Sense Key : Medium Error`),
	// scsi_print_sense_hdr's additional sense, 2.6–6.x: "Add. Sense:
	// Unrecovered read error - auto reallocate failed".
	pat("scsi-unrecovered-read", MediumError, RefBlock, sdPrefix+`Add\. Sense: Unrecovered read error`),
	// print_req_error / blk_print_req_error (block/blk-core.c) for
	// BLK_STS_MEDIUM: "critical medium error, dev sdd, sector …", 4.x and
	// later (with the "print_req_error: " prefix in 4.x–5.x).
	pat("blk-critical-medium", MediumError, RefBlock, `critical medium error, dev (?P<dev>[\w-]+)`),
	// scsi_io_completion / sd_done result line: "FAILED Result:
	// hostbyte=DID_OK driverbyte=DRIVER_SENSE" (3.x–5.x), "FAILED Result:
	// hostbyte=DID_BAD_TARGET driverbyte=DRIVER_OK cmd_age=0s" (5.x–6.x).
	pat("scsi-failed-result", CommandFailed, RefBlock, sdPrefix+`FAILED Result: `),
	// scsi_prep_state_check (drivers/scsi/scsi_lib.c), 2.6–6.x.
	pat("scsi-offline", DeviceFailed, RefBlock, sdPrefix+`rejecting I/O to offline device`),
	// The same message through sdev_printk (scsi_prep_state_check,
	// drivers/scsi/scsi_lib.c), which names the device by its address
	// only: "sd 2:0:0:0: rejecting I/O to offline device".
	pat("scsi-offline-addr", DeviceFailed, RefSCSI, `^(?:sd|scsi) (?P<dev>\d+:\d+:\d+:\d+): rejecting I/O to offline device`),
	// nvme_log_error (drivers/nvme/host/core.c), 5.18 and later: "nvme0n1:
	// I/O Cmd(0x2) @ LBA 1953520, 8 blocks, I/O Error (sct 0x2 / sc 0x81) DNR";
	// status code type 2 is a media error. On a path device (nvme0c0n1)
	// with native multipath.
	pat("nvme-media-error", MediumError, RefBlock, `^(?P<dev>`+nvmeNS+`): I/O Cmd\(0x[0-9a-f]+\) @ LBA \d+, \d+ blocks, (?:Unrecovered Read Error|.*\(sct 0x2 / )`),
	// nvme_log_error, any other status.
	pat("nvme-io-error", IOError, RefBlock, `^(?P<dev>`+nvmeNS+`): I/O Cmd\(0x[0-9a-f]+\) @ LBA \d+, \d+ blocks, `),
	// blk_update_request (4.x: "blk_update_request: I/O error, dev sda,
	// sector 123"), print_req_error (4.17–5.x, with "op 0x0:(READ) flags
	// …"), blk_print_req_error (5.x–6.x, no prefix: "I/O error, dev sda,
	// sector 0 op 0x1:(WRITE) flags 0x800 phys_seg 0 prio class 0"), and
	// end_request (2.6–3.x: "end_request: I/O error, dev sda, sector 123").
	pat("blk-io-error", IOError, RefBlock, `(?:^|: )(?:critical )?I/O error, dev (?P<dev>[\w-]+), sector`),
	// buffer_io_error (fs/buffer.c): "Buffer I/O error on device sda1,
	// logical block 0" (2.6–4.x), "Buffer I/O error on dev dm-1, logical
	// block 0, lost sync page write" (4.x–6.x).
	pat("buffer-io-error", IOError, RefBlock, `^Buffer I/O error on (?:dev(?:ice)? )?(?P<dev>[\w-]+), `),
	// md's personality error handlers (raid1_error, raid10_error in
	// drivers/md/raid1.c, raid10.c; raid5_error in raid5.c), 3.x–6.x:
	// "md/raid1:md0: Disk failure on sdc1, disabling device." and
	// "md/raid:md0: Disk failure on sdc1, disabling device.". md gave the
	// member up: its disk failed.
	pat("md-disk-failure", DeviceFailed, RefBlock, `^md/raid\d*:md\w+: Disk failure on (?P<dev>[\w-]+), disabling device`),
	// ata_eh_link_report (drivers/ata/libata-eh.c), 2.6–6.x: the error
	// description of a failed command, "… Emask 0x9 (media error)".
	pat("ata-media-error", MediumError, RefATA, ataPrefix+`.*Emask 0x[0-9a-f]+ \(media error\)`),
	// ata_eh_link_report's status decoding, 2.6.2x–6.x: "ata6.00: error:
	// { UNC }" (uncorrectable data).
	pat("ata-unc", MediumError, RefATA, ataPrefix+`error: \{[^}]*\bUNC\b`),
	// ata_eh_link_report, 2.6–6.x: "ata1.00: exception Emask 0x10 SAct
	// 0x0 SErr 0xf0100 action 0x6 frozen".
	pat("ata-exception", ATAException, RefATA, ataPrefix+`exception Emask `),
	// ata_eh_link_report: "… (ATA bus error)", "… (HSM violation)".
	pat("ata-bus-error", LinkError, RefATA, ataPrefix+`.*\((?:ATA bus error|HSM violation)\)`),
	// ata_eh_link_report's SError decoding, 2.6.2x–6.x: "ata1: SError: {
	// UnrecovData PHYRdyChg 10B8B }".
	pat("ata-serror-crc", LinkError, RefATA, ataPrefix+`SError: \{[^}]*\b(?:BadCRC|Handshk|UnrecovData|10B8B|Dispar|LinkSeq)\b`),
	// ata_exec_internal_sg "qc timeout (cmd 0xec)" (2.6–5.x; newer kernels
	// add "after 5000 msecs"); ata_eh_link_report "… Emask 0x4 (timeout)".
	pat("ata-cmd-timeout", Timeout, RefATA, ataPrefix+`(?:qc timeout|.*Emask 0x[0-9a-f]+ \(timeout\))`),
	// ata_eh_link_report "failed command: READ FPDMA QUEUED" (2.6.3x–6.x);
	// ata_dev_read_id "failed to IDENTIFY (I/O error, err_mask=0x4)".
	pat("ata-failed-command", CommandFailed, RefATA, ataPrefix+`(?:failed command: |failed to IDENTIFY)`),
	// ata_eh_revalidate_and_attach (drivers/ata/libata-eh.c), 2.6.2x–6.x:
	// "ata1.00: revalidation failed (errno=-5)", the device did not
	// answer IDENTIFY after a reset.
	pat("ata-revalidation-failed", CommandFailed, RefATA, ataPrefix+`revalidation failed`),
	// ata_eh_reset / sata_link_hardreset, 2.6–6.x: "ata1: hard resetting
	// link", "ata3.01: hard resetting link" behind a port multiplier.
	pat("ata-reset", LinkReset, RefATA, ataPrefix+`(?:(?:hard|soft) )?resetting link`),
	// sata_down_spd_limit (libata-core.c), 2.6–6.x.
	pat("ata-limit-speed", LinkLimited, RefATA, ataPrefix+`limiting SATA link speed to (?P<speed>[\d.]+) Gbps`),
	// sata_print_link_status, 2.6–6.x: "ata1: SATA link up 6.0 Gbps
	// (SStatus 133 SControl 300)".
	pat("ata-link-up", LinkUp, RefATA, ataPrefix+`SATA link up (?P<speed>[\d.]+) Gbps`),
	// ata_eh_speed_down, 2.6.2x–6.x.
	pat("ata-ncq-off", NCQDisabled, RefATA, ataPrefix+`NCQ disabled due to excessive errors`),
	// ata_dev_disable: "ata1.00: disable device" (3.x–6.x); older kernels
	// printed "ata1.00: disabled".
	pat("ata-disable", DeviceFailed, RefATA, ataPrefix+`(?:disable device|disabled)$`),
	// nvme_timeout (drivers/nvme/host/pci.c): "I/O 119 QID 2 timeout,
	// aborting" (4.x to early 6.x: 5.13 and 5.15 in the corpus), "I/O 0
	// (I/O Cmd) QID 1 timeout, aborting" (some 6.x), and on current 6.x
	// kernels "I/O tag 489 (d1e9) opcode 0x1 (I/O Cmd) QID 3 timeout,
	// aborting req_op:WRITE(1) size:4096" (6.13 in the corpus); "…
	// timeout, completion polled" (a lost interrupt).
	pat("nvme-abort", Timeout, RefNVMe, nvmPrefix+nvmeTimeoutCmd+`timeout, (?:aborting|completion polled)`),
	// nvme_timeout's second timeout of an aborted command "…, reset
	// controller" and "…, disable controller" (same forms as above);
	// nvme_warn_reset "controller is down; will reset: CSTS=0x…" (4.x–6.x);
	// nvme_reset_work's "resetting controller" (4.x).
	pat("nvme-reset", ControllerReset, RefNVMe, nvmPrefix+`(?:`+nvmeTimeoutCmd+`timeout, (?:reset|disable) controller|controller is down; will reset|resetting controller)`),
	// nvme_wait_ready / nvme_reset_work / nvme_remove_dead_ctrl (pci.c),
	// 4.x–6.x: "Device not ready; aborting reset, CSTS=0x1", "Removing
	// after probe failure status: -19", "Disabling device after reset
	// failure: -19": the controller is gone.
	pat("nvme-not-ready", DeviceFailed, RefNVMe, nvmPrefix+`(?:Device not ready; aborting reset|Removing after probe failure|Disabling device after reset failure)`),
	// ext4_handle_error / save_error_info (fs/ext4/super.c), 3.x–6.x.
	pat("ext4-readonly", FSReadOnly, RefBlock, `^EXT4-fs \((?P<dev>[\w-]+)\): Remounting filesystem read-only`),
	// xfs_do_force_shutdown (fs/xfs/xfs_fsops.c), 3.x–6.x.
	pat("xfs-shutdown", FSReadOnly, RefBlock, `^XFS \((?P<dev>[\w-]+)\): .*Shutting down filesystem`),
	// btrfs_dev_stat_inc_and_print (fs/btrfs/volumes.c), 3.x–6.x: "BTRFS
	// error (device sdb3): bdev /dev/sda3 errs: wr 1, …": the error is
	// the bdev's, not the device in parentheses (the name btrfs gives the
	// whole filesystem, often the member that survived). The mount-time
	// "BTRFS info" copy repeats old counters and is no new error.
	pat("btrfs-dev-errs", FSError, RefBlock, `^BTRFS (?:error|warning|critical) \(device [\w.-]+(?::? state \w+)?\): bdev /dev/(?:mapper/)?(?P<dev>[\w.-]+) errs: wr`),
	// btrfs_handle_fs_error (fs/btrfs/messages.c, super.c in 3.x–6.1):
	// btrfs stops writing after a transaction abort, most often on
	// metadata it found inconsistent. The device in parentheses is the
	// name of the filesystem, not a disk that failed a request (those are
	// the I/O error and "bdev … errs" lines): filesystem corruption, not
	// an I/O error of that disk.
	pat("btrfs-readonly", FSCorrupt, RefBlock, `^BTRFS.*\(device (?P<dev>[\w-]+)(?::? state \w+)?\).*forced readonly`),
	// lookup_inline_extent_backref / __btrfs_free_extent "unable to find
	// ref byte nr …" and read_block_for_search's "parent transid verify
	// failed on …" (fs/btrfs), 3.x–6.x: the extent tree or a tree block's
	// generation is inconsistent, the same corruption.
	pat("btrfs-corrupt", FSCorrupt, RefBlock, `^BTRFS (?:error|critical|warning) \(device (?P<dev>[\w-]+)(?::? state \w+)?\): (?:unable to find ref|parent transid verify failed)`),
	// __ext4_error "EXT4-fs error (device dm-1) in …" and
	// ext4_commit_super's "EXT4-fs (dm-1): I/O error while writing
	// superblock", 3.x–6.x.
	pat("ext4-error", FSError, RefBlock, `^EXT4-fs (?:error \(device (?P<dev>[\w-]+)\)|\((?P<dev2>[\w-]+)\): I/O error)`),
	// xfs_buf_ioerror_alert "metadata I/O error in …" and the corruption
	// reports (fs/xfs), 3.x–6.x.
	pat("xfs-error", FSError, RefBlock, `^XFS \((?P<dev>[\w-]+)\): (?:metadata I/O error|.*[Cc]orruption)`),
	// btrfs_err / btrfs_crit (fs/btrfs), 3.x–6.x.
	pat("btrfs-error", FSError, RefBlock, `^BTRFS (?:error|critical) \(device (?P<dev>[\w-]+)`),
	// XFS retrying an allocation it may not fail (kernlog_xfs.go): memory,
	// not the disk; the message names no filesystem.
	pat("xfs-alloc-stall", FSAllocStall, RefHost, xfsAllocStallRe),
	// check_hung_task (kernel/hung_task.c), 2.6–6.x: "INFO: task
	// mdadm:65108 blocked for more than 122 seconds."
	pat("hung-task", HungTask, RefHost, `^INFO: task \S+ blocked for more than \d+ seconds`),
	// therm_throt_process (arch/x86/kernel/cpu/mce/therm_throt.c), 2.6–6.x:
	// "CPU3: Package temperature above threshold, cpu clock throttled
	// (total events = 1)".
	pat("cpu-thermal", Thermal, RefHost, `^(?:CPU\d+|mce): (?:\[Hardware Error\]: )?(?:Core|Package) temperature above threshold, cpu clock throttled`),
	// __pcie_print_link_status (drivers/pci/pci.c), 4.17–6.x.
	pat("pci-bandwidth", PCIeBandwidth, RefPCI, `^pci (?P<dev>[0-9a-f:.]+): .*available PCIe bandwidth, limited by`),
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
