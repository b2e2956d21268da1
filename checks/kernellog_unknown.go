package checks

import (
	"fmt"
	"regexp"
	"strings"

	"github.com/diskdoctor/diskdoctor/probes/ahci"
	"github.com/diskdoctor/diskdoctor/probes/block"
	"github.com/diskdoctor/diskdoctor/probes/kernlog"
	"github.com/diskdoctor/diskdoctor/probes/nvmehmb"
	"github.com/diskdoctor/diskdoctor/probes/usb"
)

// errorWords picks the kernel lines that read as a fault: an error,
// failure, abort, timeout, reset, a device offline or dead, drives
// remapped out of sight. dmesg without -x carries no level, so the words
// stand in for KERN_ERR and KERN_WARNING. A word may end a function
// name the driver prints ("uas_eh_abort_handler", drivers/usb/storage/
// uas.c; "_base_fault_reset_work", mpt3sas_base.c): "_" counts as a
// boundary before it.
var errorWords = regexp.MustCompile(`(?i)(?:\b|_)(?:errors?|fail(?:ed|ure|ing)?|abort\w*|time(?:d)? ?out|reset\w*|offline|non-operational|dead|died|remapped|fault\w*)\b`)

// benignWords are lines that carry an error word but report no fault:
// nvme_setup_ctrl's "Shutdown timeout set to N seconds" (RTD3,
// drivers/nvme/host/core.c), a mount option "errors=remount-ro", and the
// SCSI unit attention every disk reports after power-on
// ("Power-on or device reset occurred", scsi_report_sense).
var benignWords = regexp.MustCompile(`Shutdown timeout set to|errors=|Power-on or device reset occurred`)

// maxUnknownEvidence bounds the unrecognised lines kept per disk.
const maxUnknownEvidence = 5

// klogUnknown finds, per judged disk, the error-like kernel lines about
// the disk or the bus above it (its name or partitions, SCSI address,
// libata port, USB device, SCSI host, NVMe controller, a PCI function in
// its path) that nothing in the doctor recognised: not the kernel-log
// patterns, not the USB, AHCI, SAS HBA or NVMe HMB lines, not ext4's
// error summary. A disk with such lines is not
// "checked and fine" (klog_understood nil) and the lines are counted in a
// skipped entry whose hint lists them.
func klogUnknown(env *Env, log *kernlog.Log, topo *kernlog.Topology, devs []*block.Device, obs []*Observation) {
	var cand []kernlog.Line
	for _, l := range log.Lines {
		if !indented(l.Raw) && errorWords.MatchString(l.Text) && !benignWords.MatchString(l.Text) {
			cand = append(cand, l)
		}
	}
	known := recognised(&kernlog.Log{Lines: cand}, topo)
	var unknown []kernlog.Line
	for _, l := range cand {
		if !known[l.Num] {
			unknown = append(unknown, l)
		}
	}
	byDev := map[string]*Observation{}
	for _, o := range obs {
		if o.Kind == KindDevice {
			byDev[o.Subject] = o
		}
	}
	for _, d := range devs {
		o := byDev[d.Name]
		if o == nil {
			continue
		}
		var lines []kernlog.Line
		if len(unknown) > 0 {
			about := aboutDisk(d)
			for _, l := range unknown {
				if about.MatchString(l.Text) {
					lines = append(lines, l)
				}
			}
		}
		if len(lines) == 0 {
			o.Set("klog_unrecognised", 0)
			o.Set("klog_understood", true)
			continue
		}
		var ev []Evidence
		var show []string
		for i, l := range lines {
			if i < maxUnknownEvidence {
				ev = append(ev, klogEv(l))
				show = append(show, fmt.Sprintf("line %d: %s", l.Num, cutRunes(l.Text, 160)))
			}
		}
		o.Set("klog_unrecognised", len(lines), ev...)
		o.Set("klog_understood", nil)
		env.Skip("kernel-log", d.Name, withHint(
			fmt.Errorf("%s about the disk or its bus not understood", countOf(len(lines), "error line", "error lines")),
			"the doctor does not know these lines, so it does not call the disk's log fine: "+strings.Join(show, " | ")))
	}
}

// recognised is the set of line numbers something in the doctor reads.
func recognised(k *kernlog.Log, topo *kernlog.Topology) map[int]bool {
	known := map[int]bool{}
	for _, e := range kernlog.Classify(k, topo, -1) {
		known[e.Line.Num] = true
	}
	u := usb.ScanLog(k)
	for _, m := range []map[string][]kernlog.Line{u.Resets, u.Aborts, u.DeviceResets, u.HostDied} {
		for _, ls := range m {
			for _, l := range ls {
				known[l.Num] = true
			}
		}
	}
	for _, l := range u.UASIgnored {
		known[l.Num] = true
	}
	for _, c := range ahci.Scan(k) {
		for _, l := range c.Lines {
			known[l.Num] = true
		}
	}
	for _, l := range hbaLines(k) {
		known[l.Num] = true
	}
	for _, e := range nvmehmb.Scan(k) {
		known[e.Line.Num] = true
	}
	// ext4's recorded-error summary is the fs-errors check's evidence.
	for _, l := range k.Lines {
		if kernlog.EXT4ErrorInfoLine(l.Text) {
			known[l.Num] = true
		}
	}
	return known
}

var pciAddr = regexp.MustCompile(`^[0-9a-f]{4}:[0-9a-f]{2}:[0-9a-f]{2}\.[0-9a-f]$`)

// aboutDisk matches a line that names the disk or something above it.
func aboutDisk(d *block.Device) *regexp.Regexp {
	alts := []string{regexp.QuoteMeta(d.Name) + `(?:p?\d+)?`}
	if d.SCSIAddr != "" {
		alts = append(alts, regexp.QuoteMeta(d.SCSIAddr))
	}
	for _, c := range d.Controllers {
		alts = append(alts, regexp.QuoteMeta(c))
	}
	for _, part := range strings.Split(d.SysPath, "/") {
		switch {
		case pciAddr.MatchString(part):
			alts = append(alts, regexp.QuoteMeta(part))
		case strings.HasPrefix(part, "ata") && len(part) > 3 && strings.Trim(part[3:], "0123456789") == "":
			alts = append(alts, regexp.QuoteMeta(part)+`(?:\.\d+)?`)
		case strings.HasPrefix(part, "host") && len(part) > 4 && strings.Trim(part[4:], "0123456789") == "":
			alts = append(alts, "scsi "+regexp.QuoteMeta(part))
		}
	}
	if dir, _ := usb.DeviceOf(d.SysPath); dir != "" {
		name := dir[strings.LastIndex(dir, "/")+1:]
		alts = append(alts, `usb `+regexp.QuoteMeta(name)+`:`, regexp.QuoteMeta(name)+`:\d+\.\d+`)
	}
	return regexp.MustCompile(`(?:^|[^\w.:-])(?:` + strings.Join(alts, "|") + `)(?:$|[^\w.-])`)
}

func cutRunes(s string, n int) string {
	r := []rune(s)
	if len(r) <= n {
		return s
	}
	return string(r[:n]) + "…"
}
