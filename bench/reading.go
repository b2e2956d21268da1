package bench

import (
	"fmt"
	"math"
	"strings"
)

// --- the doctor's reading of the numbers ---

var ssdClasses = map[string]bool{"sata-ssd": true, "sas-ssd": true, "nvme-gen3": true, "nvme-gen4": true, "nvme-gen5": true, "optane": true}

// explains lists, per symptom, the findings that explain it.
var explains = map[string][]string{
	"writes": {"write-cache-disabled", "write-cache-state-mismatch", "trim-not-scheduled", "trim-unsupported", "zfs-background-work", "md-background-work", "io-pressure-high", "device-saturated", "smart-failing", "zfs-device-slow"},
	"all":    {"pcie-link-degraded", "cpu-governor-powersave", "zfs-background-work", "md-background-work", "io-pressure-high", "device-saturated", "kernel-io-errors", "kernel-thermal-throttling", "smart-link-errors", "smart-temperature"},
	"sync":   {"cpu-governor-powersave", "write-cache-disabled", "zfs-sync-writes-log"},
	"cache":  {"bench-file-smaller-than-ram", "bench-file-smaller-than-arc", "bench-direct-io-unsupported", "bench-zfs-direct-io"},
}

func (o *Result) found(symptom string) []string {
	var ids []string
	for _, id := range explains[symptom] {
		if o.Preflight.Has(id) {
			ids = append(ids, id)
		}
	}
	return ids
}

func pctRange(rows []Row, keep func(Row) bool) (lo, hi float64, n int) {
	lo, hi = math.Inf(1), 0
	for _, r := range rows {
		if r.Pct == nil || !keep(r) {
			continue
		}
		lo, hi, n = min(lo, *r.Pct), max(hi, *r.Pct), n+1
	}
	return lo, hi, n
}

func PctText(lo, hi float64) string {
	f := func(v float64) string {
		if v < 10 {
			return fmt.Sprintf("%.1f", v)
		}
		return fmt.Sprintf("%.0f", v)
	}
	if f(lo) == f(hi) {
		return f(lo) + " %"
	}
	return f(lo) + "–" + f(hi) + " %"
}

// reading derives the doctor's reading from the measured fractions of the
// datasheet, the device class and the preflight's findings.
func reading(o *Result) []string {
	var out []string
	if o.Tool == "dd" {
		out = append(out, "measured with dd (fio is not used): one stream, no queue depth, coarse timing; treat these as a rough check and install fio for figures to rely on")
	}
	if o.Target.Memory {
		out = append(out, "this is memory, not a disk: "+o.Target.FSType+" keeps its files in RAM, so these figures are RAM and CPU speed")
	} else {
		out = append(out, datasheetReading(o)...)
	}
	out = append(out, syncReading(o)...)
	out = append(out, steadyReading(o)...)
	out = append(out, sweepReading(o)...)
	if o.Preflight.After.Busy() {
		out = append(out, "other I/O on the devices right after the last job (bench-competing-io-after, its processes under the preflight): the figures may be lower than the hardware")
	}
	if o.Preflight.Competing.Busy() {
		out = append(out, "run with --force although other processes did I/O on the devices before it: the figures share the device with them")
	}
	if !o.Direct && o.Tool == "fio" {
		out = append(out, "buffered I/O: O_DIRECT is not used here, so queue depths are labelled as achieved and reads may be the page cache's")
	}
	if ids := o.Preflight.Critical(); len(ids) > 0 && o.Preflight.Forced {
		out = append(out, "run with --force despite critical findings ("+strings.Join(ids, ", ")+"): the figures measure them")
	}
	if d := o.Datasheet; d != nil && d.Note != "" {
		out = append(out, d.Note)
	}
	return out
}

// loopReading says what a loop device's figures are: its backing file's,
// read and written through the kernel's page cache unless the loop device
// does direct I/O (drivers/block/loop.c, lo_rw_aio with IOCB_DIRECT only
// when dio is set), so reads of cached pages are RAM speed.
func loopReading(t Facts) string {
	file := "a backing file"
	if t.LoopBacking != "" {
		file = "its backing file " + t.LoopBacking
	}
	switch {
	case t.LoopDirectIO != nil && *t.LoopDirectIO:
		return fmt.Sprintf("a loop device (%s): the figures are those of %s with direct I/O, and of the filesystem and disk under it; there is no hardware datasheet to hold them against", t.Loop, file)
	case t.LoopDirectIO != nil:
		return fmt.Sprintf("a loop device (%s) without direct I/O: the figures are those of %s through the page cache, so reads it holds are RAM speed, not any disk's; there is no hardware datasheet to hold them against", t.Loop, file)
	}
	return fmt.Sprintf("a loop device (%s): the figures are those of %s, through the page cache unless the loop device does direct I/O (/sys/block/%s/loop/dio), so reads may be RAM speed, not any disk's; there is no hardware datasheet to hold them against", t.Loop, file, t.Loop)
}

func cite(ids []string) string {
	if len(ids) == 0 {
		return ""
	}
	return " — the doctor found: " + strings.Join(ids, ", ")
}

func isRead(r Row) bool  { return r.Op == "read" }
func isWrite(r Row) bool { return r.Op == "write" && r.Kind != "sync" && r.Kind != "dd-dsync" }

// datasheetReading holds reads and writes against the datasheet: cache
// hits, a write path at a few percent, the path rather than the media, or
// within specification.
func datasheetReading(o *Result) []string {
	var out []string
	d := o.Datasheet
	className := "device"
	if d != nil && d.ClassName != "" {
		className = d.ClassName
	}
	switch {
	case d == nil:
		out = append(out, "no datasheet is known for the device under this path: the figures stand alone (add the model to a --datasheets file to compare)")
	case d.Class == "virtual" && d.SeqReadMBs == 0 && d.SeqWriteMBs == 0 && d.RandReadIO == 0 && d.RandWriteIO == 0 && o.Target.Loop != "":
		out = append(out, loopReading(o.Target))
	case d.Class == "virtual" && d.SeqReadMBs == 0 && d.SeqWriteMBs == 0 && d.RandReadIO == 0 && d.RandWriteIO == 0:
		out = append(out, "a virtual disk: the figures are the host's storage and the hypervisor's I/O path; there is no hardware datasheet to hold them against")
	}
	before := len(out)
	rlo, rhi, rn := pctRange(o.Rows, isRead)
	wlo, whi, wn := pctRange(o.Rows, isWrite)
	if rn > 0 && rhi > 150 {
		out = append(out, fmt.Sprintf("reads at up to %s of the datasheet: faster than a %s can go, so they came from a cache (page cache or ARC), not the disk%s", PctText(rhi, rhi), className, cite(o.found("cache"))))
	}
	if wn > 0 && whi < 10 {
		out = append(out, slowWrites(o, className, d != nil && ssdClasses[d.Class], rlo, rhi, rn, wlo, whi))
	}
	if rn > 0 && wn > 0 && rhi < 50 && whi < 50 {
		msg := fmt.Sprintf("reads (%s) and writes (%s) both below half the datasheet: the path, not the media — PCIe link, controller, CPU power states, or other work on the device", PctText(rlo, rhi), PctText(wlo, whi))
		out = append(out, msg+cite(o.found("all")))
	}
	if rn+wn > 0 && min(rlo, wlo) >= 50 && max(rhi, whi) <= 150 {
		out = append(out, fmt.Sprintf("within the datasheet (%s): the hardware does what it is specified for; if the application is slow, look above the disk", PctText(min(rlo, wlo), max(rhi, whi))))
	}
	if rn+wn > 0 && len(out) == before {
		// None of the patterns above: say where the figures stand.
		var parts []string
		if rn > 0 {
			parts = append(parts, "reads at "+PctText(rlo, rhi))
		}
		if wn > 0 {
			parts = append(parts, "writes at "+PctText(wlo, whi))
		}
		out = append(out, strings.Join(parts, ", ")+" of the datasheet"+cite(o.found("all")))
	}
	return out
}

// slowWrites reads writes under 10 % of the datasheet.
func slowWrites(o *Result, className string, ssd bool, rlo, rhi float64, rn int, wlo, whi float64) string {
	if !ssd {
		return fmt.Sprintf("writes at %s of datasheet on a %s%s", PctText(wlo, whi), className, cite(o.found("writes")))
	}
	msg := fmt.Sprintf("writes at %s of datasheet on a %s: check the write cache and TRIM before anything else", PctText(wlo, whi), className)
	if rn > 0 && rlo >= 50 {
		msg += fmt.Sprintf(" (reads at %s are fine, so the media and the link are not the problem)", PctText(rlo, rhi))
	}
	if ids := o.found("writes"); len(ids) > 0 {
		return msg + cite(ids)
	}
	return msg + " — the doctor found no cause on this machine: look at hdparm -W, the drive's firmware, and whether it was ever trimmed"
}

// syncReading reads one thread's synchronous commits against the
// device's write latency.
func syncReading(o *Result) []string {
	var out []string
	d := o.Datasheet
	for _, r := range o.Rows {
		if r.Kind != "sync" || r.Threads != 1 {
			continue
		}
		msg := fmt.Sprintf("one thread commits %s 4 KiB writes/s, p50 %s, p99.9 %s", Num(r.IOPS), Micros(r.Lat.P50), Micros(r.Lat.P999))
		if d != nil && d.WriteLatUs > 0 && r.Lat.P50 > 5*d.WriteLatUs {
			msg += fmt.Sprintf(": %.0f× the device's ~%s write latency, so most of each commit is spent above the device or in cache flushes", r.Lat.P50/d.WriteLatUs, Micros(d.WriteLatUs))
			if !d.PLP {
				msg += " (a drive without power-loss protection must flush its cache on every commit: low sync figures are its nature)"
			}
			msg += cite(o.found("sync"))
		}
		out = append(out, msg)
	}
	return out
}

// steadyReading holds sustained writes against the short burst.
func steadyReading(o *Result) []string {
	var burst, steady *Row
	for i := range o.Rows {
		r := &o.Rows[i]
		if r.Kind == "seq" && r.Op == "write" && burst == nil {
			burst = r
		}
		if r.Kind == "steady" {
			steady = r
		}
	}
	if steady == nil {
		return nil
	}
	msg := fmt.Sprintf("sustained writes settle at %s MB/s", Num(steady.MBs))
	if steady.Steady != nil && !steady.Steady.Attained {
		msg = fmt.Sprintf("sustained writes did not settle within --steady-max (last %s MB/s): run longer, or with a bigger --size", Num(steady.MBs))
	}
	if burst != nil && burst.MBs > 0 && steady.MBs < 0.5*burst.MBs {
		msg += fmt.Sprintf(", %.0f %% of the short test's %s MB/s: an SLC or DRAM cache absorbed the short tests; the sustained figure is the drive's", 100*steady.MBs/burst.MBs, Num(burst.MBs))
	}
	return []string{msg}
}

func sweepReading(o *Result) []string {
	s := o.Sweep
	switch {
	case s == nil:
		return nil
	case s.KneeLoad > 0:
		return []string{fmt.Sprintf("sweep knee at %s (load %d): beyond it, %s", s.Knee, s.KneeLoad, s.Reason)}
	}
	return []string{"sweep: " + s.Reason}
}

// Num prints a figure with three significant digits at most, as the bench
// tables and readings show figures.
func Num(v float64) string {
	switch {
	case v >= 100:
		return fmt.Sprintf("%.0f", v)
	case v >= 10:
		return fmt.Sprintf("%.1f", v)
	}
	return fmt.Sprintf("%.2f", v)
}

// Micros prints a latency in µs, or in ms from 1,000 µs on.
func Micros(us float64) string {
	switch {
	case us <= 0:
		return "-"
	case us >= 10000:
		return fmt.Sprintf("%.0f ms", us/1000)
	case us >= 1000:
		return fmt.Sprintf("%.1f ms", us/1000)
	case us >= 100:
		return fmt.Sprintf("%.0f µs", us)
	}
	return fmt.Sprintf("%.1f µs", us)
}
