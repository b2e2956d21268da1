package kernlog

import (
	"regexp"
	"strconv"
)

// NCQ is what libata printed about one device's native command queueing
// when it configured the device, and what it said about NCQ later.
type NCQ struct {
	Device string // ata3.00
	// Described: the configure line names NCQ at all, i.e. the drive
	// reports NCQ in IDENTIFY (ata_dev_config_ncq prints nothing for a
	// drive without it).
	Described bool
	// NotUsed: "NCQ (not used)", the device carries ATA_QUIRK_NONCQ (the
	// kernel's quirk list, or libata.force=noncq).
	NotUsed bool
	// HostDepth and DriveDepth: "NCQ (depth 0/32)" is a host without NCQ
	// (ATA_FLAG_NCQ unset: 0 of the drive's 32), "NCQ (depth 31/32)" older
	// kernels' ahci, "NCQ (depth 32)" both at 32 (HostDepth = DriveDepth).
	HostDepth, DriveDepth int
	Line                  Line // the configure line; zero when Described is false
	// Disabled is "NCQ disabled due to excessive errors" (ata_eh_speed_down),
	// nil when the log holds none.
	Disabled *Line
	// Forced is libata.force's "FORCE: horkage modified (noncq)" (up to
	// 6.12) or "FORCE: modified (noncq)", nil when none.
	Forced *Line
}

// Off: the drive has NCQ and the kernel does not use it.
func (n NCQ) Off() bool {
	return n.Described && (n.NotUsed || n.HostDepth == 0 || n.Disabled != nil)
}

var (
	// ata_dev_configure → ata_dev_config_ncq (drivers/ata/libata-core.c),
	// 2.6.2x–6.x: "ata1.00: 976773168 sectors, multi 16: LBA48 NCQ (depth
	// 31/32), AA"; the description is one of "NCQ (not used)", "NCQ (depth
	// H/D)", "NCQ (depth D)", followed by ", AA" or other features.
	ncqConfigure = regexp.MustCompile(`^(ata\d+\.\d+): .*\bNCQ \((not used|depth (\d{1,4})(?:/(\d{1,4}))?)\)`)
	ncqForced    = regexp.MustCompile(`^(ata\d+\.\d+): FORCE: (?:horkage )?modified \(noncq\)`)
	ncqDisabled  = regexp.MustCompile(`^(ata\d+\.\d+): NCQ disabled due to excessive errors`)
	// ata_host_register (libata-core.c), 2.6–6.x: "ata1: SATA max UDMA/133
	// cmd 0x1f0 ctl 0x3f6 bmdma 0xf000 irq 14": S for a port with
	// ATA_FLAG_SATA, P for a parallel one.
	portKind = regexp.MustCompile(`^(ata\d+): ([SP])ATA max `)
)

// NCQLines is, per libata device, its last configure line's NCQ
// description and the later NCQ messages; a device whose configure line
// names no NCQ is left out unless a later message is about it.
func (k *Log) NCQLines() map[string]NCQ {
	out := map[string]NCQ{}
	if k == nil {
		return out
	}
	for _, l := range k.Lines {
		if m := ncqConfigure.FindStringSubmatch(l.Text); m != nil {
			n := out[m[1]]
			n.Device, n.Described, n.Line = m[1], true, l
			n.NotUsed = m[2] == "not used"
			n.HostDepth, n.DriveDepth = 0, 0
			if !n.NotUsed {
				h, _ := strconv.Atoi(m[3])
				n.HostDepth, n.DriveDepth = h, h
				if m[4] != "" {
					n.DriveDepth, _ = strconv.Atoi(m[4])
				}
			}
			out[m[1]] = n
			continue
		}
		if m := ncqForced.FindStringSubmatch(l.Text); m != nil {
			n := out[m[1]]
			n.Device, n.Forced = m[1], &l
			out[m[1]] = n
			continue
		}
		if m := ncqDisabled.FindStringSubmatch(l.Text); m != nil {
			n := out[m[1]]
			n.Device, n.Disabled = m[1], &l
			out[m[1]] = n
		}
	}
	return out
}

// PortKind is libata's registration line of a port: SATA or PATA.
type PortKind struct {
	SATA bool
	Line Line
}

// PortKinds is, per libata port (ata1), whether libata registered it as a
// SATA or a parallel port; the last line per port wins.
func (k *Log) PortKinds() map[string]PortKind {
	out := map[string]PortKind{}
	if k == nil {
		return out
	}
	for _, l := range k.Lines {
		if m := portKind.FindStringSubmatch(l.Text); m != nil {
			out[m[1]] = PortKind{SATA: m[2] == "S", Line: l}
		}
	}
	return out
}
