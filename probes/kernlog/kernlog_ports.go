package kernlog

import (
	"regexp"
	"strings"
)

// DisabledDevice is a libata device (ata3.00) or a SCSI device (2:0:0:0)
// the kernel gave up on that no disk is attributed to: it never got a
// block device name, or the log does not say which one it had.
type DisabledDevice struct {
	Device string // ata3.00, or a SCSI address 2:0:0:0
	Port   string // ata3; "" for a SCSI device
	// Model is what ata_dev_configure printed when the device was probed
	// ("ata3.00: ATA-9: ST4000DM000-1F2168, CC54, max UDMA/133"); "" when
	// the log holds no such line.
	Model     string
	ModelLine Line
	Line      Line // the last line that disabled it
	// Recovered is a later "ata3.00: configured for UDMA/133": the
	// device was probed again and answered; nil when it never came back.
	Recovered *Line
	// Before counts the port's messages up to the disabled line, by
	// category, each the incidents of the pattern that saw most of them
	// (as a disk's are counted).
	Before map[string]int
}

var (
	// ata_dev_configure (drivers/ata/libata-core.c), 2.6–6.x: "ata3.00:
	// ATA-9: ST4000DM000-1F2168, CC54, max UDMA/133" (model, firmware,
	// fastest mode); CFA for CompactFlash. ATAPI devices are optical
	// drives, left to the topology (Topology.ATAPI).
	ataIdentity = regexp.MustCompile(`^(ata\d+\.\d+): (?:ATA-\d+|CFA): (.+), [^,]*, max `)
	// ata_dev_set_mode (libata-core.c), 2.6–6.x: "ata3.00: configured for
	// UDMA/133", printed each time the device is (re)configured.
	ataConfigured = regexp.MustCompile(`^(ata\d+\.\d+): configured for `)
)

// DisabledDevices finds the devices the kernel disabled or took offline
// ("ata3.00: disabled", "ata3.00: disable device" from ata_dev_disable in
// drivers/ata/libata-core.c; "sd 2:0:0:0: rejecting I/O to offline
// device" from scsi_prep_state_check in drivers/scsi/scsi_lib.c) whose
// messages no disk is attributed to, in log order. events are Classify's
// for k with topo.
func DisabledDevices(k *Log, events []Event, topo *Topology) []DisabledDevice {
	if k == nil {
		return nil
	}
	if topo == nil {
		topo = &Topology{}
	}
	perPort := map[string]map[string]int{}
	patternCat := map[string]string{}
	idx := map[string]int{}
	var out []DisabledDevice
	for _, e := range events {
		if len(e.Devices) != 0 || e.Category == LinkUp {
			continue
		}
		port := ""
		if e.Ref != "" && strings.HasPrefix(e.Ref, "ata") {
			port, _, _ = strings.Cut(e.Ref, ".")
			if topo.ATAPI[port] {
				continue
			}
			if perPort[port] == nil {
				perPort[port] = map[string]int{}
			}
			perPort[port][e.Pattern]++
			patternCat[e.Pattern] = e.Category
		}
		if e.Pattern != "ata-disable" && e.Pattern != "scsi-offline-addr" {
			continue
		}
		i, ok := idx[e.Ref]
		if !ok {
			idx[e.Ref] = len(out)
			out = append(out, DisabledDevice{Device: e.Ref, Port: port})
			i = len(out) - 1
		}
		d := &out[i]
		d.Line = e.Line
		d.Before = map[string]int{}
		for p, n := range perPort[port] {
			if c := patternCat[p]; n > d.Before[c] {
				d.Before[c] = n
			}
		}
	}
	if len(out) == 0 {
		return nil
	}
	for _, l := range k.Lines {
		if m := ataIdentity.FindStringSubmatch(l.Text); m != nil {
			if i, ok := idx[m[1]]; ok {
				out[i].Model, out[i].ModelLine = strings.TrimSpace(m[2]), l
			}
			continue
		}
		if m := ataConfigured.FindStringSubmatch(l.Text); m != nil {
			if i, ok := idx[m[1]]; ok && l.Num > out[i].Line.Num {
				r := l
				out[i].Recovered = &r
			}
		}
	}
	return out
}
