package report

import (
	"fmt"
	"slices"
	"strings"

	"github.com/diskdoctor/diskdoctor/checks"
	"github.com/diskdoctor/diskdoctor/rules"
)

// deviceTable is the compact inventory of judged devices, fitted to the
// width by cutting and then leaving out columns (the model last); virtual
// devices are counted, not listed. With -v a legend under it says what
// each column's values mean; the default screen does not grow.
func deviceTable(t *textWriter, rep *rules.Report, verbose bool) {
	cols := []column{
		{header: "DEVICE"},
		{header: "MODEL", drop: 9, shrink: true, minW: 12},
		{header: "BUS", drop: 3},
		{header: "SIZE", drop: 5, right: true},
		{header: "CLASS", drop: 2},
		{header: "CACHE", drop: 8},
		{header: "TRIM", drop: 7},
		{header: "SCHED", drop: 1},
		{header: "MOUNTS / POOLS", drop: 4, shrink: true, minW: 14},
	}
	var rows [][]string
	var skipped, gone []string
	judged := 0
	for _, d := range rep.Devices {
		name, _ := d["name"].(string)
		if d[checks.FactKlogGone] == true {
			// Named by the kernel log, no longer in /sys/block: not a
			// virtual device or a path, a disk that left.
			gone = append(gone, clean(name))
			continue
		}
		if j, _ := d[checks.FactJudged].(bool); !j {
			skipped = append(skipped, clean(name))
			continue
		}
		judged++
		if judged > maxDeviceRows {
			continue
		}
		rows = append(rows, []string{clean(name), clean(s(d[checks.FactModel])), clean(s(d[checks.FactTransport])), size(d[checks.FactSizeBytes]), clean(s(d[checks.FactClass])), cache(d), trimCell(d), clean(s(d[checks.FactScheduler])), clean(usage(d))})
	}
	if judged > 0 {
		t.table(cols, rows, func() {
			if judged > maxDeviceRows {
				t.line(fmt.Sprintf("… %d more devices (--format json lists all)", judged-maxDeviceRows))
			}
		})
	}
	if len(rep.Devices) == 0 {
		t.line(t.p.Dim.Render("no block device in /sys/block"))
	}
	if len(gone) > 0 {
		t.wrapped("", 0, 2, "gone (in the kernel log, no longer in /sys/block): "+abbreviate(gone, 12), t.p.Dim)
	}
	if len(skipped) > 0 {
		t.wrapped("", 0, 2, "not judged (virtual, or NVMe paths; name one with --device): "+abbreviate(skipped, 12), t.p.Dim)
	}
	if verbose && judged > 0 {
		t.blank()
		for _, l := range deviceLegend {
			t.wrapped("  ", 2, 4, l, t.p.Dim)
		}
	}
}

// deviceLegend explains the device table's columns and values, one line
// a column (docs/usage.md has the same, in full).
var deviceLegend = []string{
	"BUS: how the disk is attached (sata, sas, nvme, usb, virtio, scsi, iscsi, fc, raid).",
	"CLASS: the kind of device its datasheet figures are for (nvme-gen4, sata-ssd, sata-hdd, sas-hdd, usb, virtual, raid-volume, iscsi, fc, …; unknown: its rotational flag was not read, so no figures apply).",
	"CACHE: the volatile write cache: on, OFF, PLP (off on a drive with power-loss protection), none (no cache to turn on); a RAID volume's: ctl on, CTL OFF, CTL LOW (off while the battery charges), ctl wt (write-through), ctl ? (not read); - not read.",
	"TRIM: scheduled (fstrim.timer, cron, discard or autotrim trims all it holds), NEVER (something on it is trimmed by nothing), running (a zpool trim now), ? (what trims it is unknown: the schedule was not read), yes (takes TRIM, holds nothing to trim), no (takes no TRIM); a guest's disk: passes (the virtual disk accepts discard), no, ?; - not an SSD.",
	"SCHED: the I/O scheduler (queue/scheduler).",
	"MOUNTS / POOLS: mounted filesystems, zfs:POOL, mpath:MAP.",
}

// maxDeviceRows bounds the device table; JSON has every device.
const maxDeviceRows = 50

func cache(d map[string]any) string {
	if d[checks.FactControllerVolume] == true {
		// A controller volume's kernel write-cache state says nothing
		// about its caches: the controller's verdict is what counts.
		switch d[checks.FactCtlCacheState] {
		case "ok":
			return "ctl on"
		case "disabled":
			return "CTL OFF"
		case "degraded":
			if d[checks.FactCtlPolicyCurrent] == "write-back" {
				// The battery charges or learns, but the volume still
				// writes back: the cache is on.
				return "ctl on"
			}
			return "CTL LOW"
		case "write-through":
			return "ctl wt"
		}
		return "ctl ?"
	}
	if d[checks.FactWCNoCachePage] == true && d[checks.FactWCOn] != true {
		// sd found no Caching mode page (drivers/scsi/sd.c): there is no
		// cache to be off.
		return "none"
	}
	if d[checks.FactWCOn] == false {
		// A cache that is not on is OFF only where the drive has one to
		// lose: a drive whose datasheet gives it power-loss protection, or
		// an NVMe drive without a volatile write cache (Identify
		// Controller VWC bit 0 clear, NVMe base specification 5.15.2.1),
		// writes through by design (issue #25).
		if ds, _ := d["datasheet"].(map[string]any); ds["plp"] == true {
			return "PLP"
		}
		if d[checks.FactWCNVMeVWC] == false {
			return "none"
		}
		return "OFF"
	}
	if d[checks.FactWCOn] == true {
		return "on"
	}
	return "-"
}

// trimCell is what TRIM does for the disk: "no" (it takes no discard),
// "scheduled" (everything on it is trimmed: fstrim.timer, cron, discard,
// autotrim), "running" (a zpool trim now), "NEVER" (something on it is
// trimmed by nothing, /etc read), "?" (what trims it is unknown: the
// schedule was not read), "yes" (it takes discards and holds nothing that
// wants them). A guest's disk says what the guest sees: "passes" (the
// virtual disk accepts discard: queue/discard_max_bytes above 0,
// Documentation/ABI/stable/sysfs-block), "no" or "?". "-" is a disk TRIM
// is not about (a hard disk).
func trimCell(d map[string]any) string {
	if d[checks.FactVirtualDisk] == true {
		switch d[checks.FactTrimSupported] {
		case true:
			return "passes"
		case false:
			return "no"
		}
		return "?"
	}
	if d[checks.FactTrimSupported] == false {
		return "no"
	}
	if d[checks.FactTrimSupported] != true {
		if d[checks.FactRotational] == false {
			return "?" // an SSD whose discard_max_bytes was not read
		}
		return "-"
	}
	switch {
	case d[checks.FactTrimRelevant] == false:
		return "yes"
	case d[checks.FactTrimCovered] == true:
		return "scheduled"
	case d[checks.FactZFSTrimState] == "active":
		// A trim now is never "NEVER"; whether one is scheduled is the
		// finding's to say.
		return "running"
	case d[checks.FactTrimCovered] == false:
		return "NEVER"
	case d[checks.FactTrimRelevant] == true:
		return "?"
	}
	return "yes"
}

func usage(d map[string]any) string {
	var parts []string
	if mps, ok := d[checks.FactMountpoints].([]string); ok {
		parts = append(parts, mps...)
	}
	if pools, ok := d[checks.FactZFSPools].([]string); ok {
		for _, pl := range pools {
			parts = append(parts, "zfs:"+pl)
		}
	}
	if m, _ := d[checks.FactMultipathName].(string); m != "" {
		// A path of a multipath map: what lives on the drive is the map's.
		parts = append(parts, "mpath:"+m)
	}
	return abbreviate(parts, 3)
}

// siStep is a step of the decimal size units (kB, MB, GB), as drive
// datasheets count them.
const siStep = 1000

func size(v any) string {
	b, ok := v.(uint64)
	if !ok || b == 0 {
		return "-"
	}
	units := []string{"B", "kB", "MB", "GB", "TB", "PB"}
	f := float64(b)
	i := 0
	for f >= siStep && i < len(units)-1 {
		f /= siStep
		i++
	}
	if f >= 100 {
		return fmt.Sprintf("%.0f %s", f, units[i])
	}
	return fmt.Sprintf("%.1f %s", f, units[i])
}

func s(v any) string {
	if x, ok := v.(string); ok && x != "" {
		return x
	}
	return "-"
}

// controllerTable is one line per RAID controller: its cache, energy pack
// and the write policy of each volume the OS sees; a SAS HBA's line has
// its chip, and none for what an HBA does not have. What was not read
// is "?", never an empty cell.
func controllerTable(t *textWriter, rep *rules.Report) {
	if len(rep.Controllers) == 0 {
		return
	}
	cols := []column{
		{header: "CONTROLLER"},
		{header: "MODEL", drop: 5, shrink: true, minW: 12},
		{header: "CACHE", drop: 4, shrink: true, minW: 8},
		{header: "BATTERY", drop: 3, shrink: true, minW: 8},
		{header: "VOLUMES (POLICY)", drop: 2, shrink: true, minW: 12},
	}
	var rows [][]string
	for _, c := range rep.Controllers {
		id := txt(c["name"])
		var vols []string
		for _, d := range rep.Devices {
			if d[checks.FactControllerVolume] != true || txt(d[checks.FactCtlController]) != id {
				continue
			}
			v := clean(txt(d["name"]))
			if p := txt(d[checks.FactCtlPolicyCurrent]); p != "" {
				v += " " + p
				if conf := txt(d[checks.FactCtlPolicyConfigured]); conf != "" && conf != p {
					v += " (set " + conf + ")"
				}
			}
			vols = append(vols, v)
		}
		switch {
		case txt(c[checks.FactHBAName]) != "" && txt(c[checks.FactCtlFamily]) == "":
			// A SAS HBA (mpt2sas, mpt3sas): no cache, no battery, no
			// logical drives of its own.
			rows = append(rows, []string{clean(id), orUnknown(clean(joinNonEmpty(" ", txt(c[checks.FactHBAChip]), txt(c[checks.FactHBAFWVersion])))), "none", "none", "-"})
			continue
		case txt(c[checks.FactCtlFamily]) == "":
			// Another controller a check judged (an AHCI controller
			// hiding NVMe drives, named by its finding): no RAID tool
			// read it, so this table has nothing of it to show.
			continue
		}
		cacheCell := joinNonEmpty(" ", txt(c[checks.FactCtlCacheSize]), txt(c[checks.FactCtlCacheStatus]))
		if cacheCell == "" && txt(c[checks.FactCtlCacheState]) != "unknown" {
			cacheCell = txt(c[checks.FactCtlCacheState])
		}
		if r := txt(c[checks.FactCtlCacheReason]); r != "" {
			cacheCell = joinNonEmpty(": ", cacheCell, r)
		}
		battery := joinNonEmpty(" ", txt(c[checks.FactCtlEnergyPack]), txt(c[checks.FactCtlEnergyStatus]))
		row := []string{clean(id), clean(txt(c[checks.FactCtlControllerModel])), clean(cacheCell), clean(battery), clean(strings.Join(vols, ", "))}
		if strings.Join(row[1:], "") == "" {
			// A controller known only by its address (an AHCI
			// function the kernel log names) has nothing for this
			// table: a row of unknown cells says nothing.
			continue
		}
		for i := range row[1:] {
			row[i+1] = orUnknown(row[i+1])
		}
		rows = append(rows, row)
	}
	if len(rows) == 0 {
		return
	}
	t.blank()
	t.line(t.p.Heading.Render("Controllers"))
	t.table(cols, rows, nil)
}

// table prints a table fitted to the width, then what after prints. The
// columns left out at this width are named; -v prints them in a table of
// their own, the first column again in front.
func (t *textWriter) table(cols []column, rows [][]string, after func()) {
	header, lines, omitted := fitTable(cols, rows, t.width)
	t.line(t.p.Bold.Render(header))
	for _, l := range lines {
		t.line(l)
	}
	if after != nil {
		after()
	}
	if len(omitted) == 0 {
		return
	}
	if !t.verbose {
		// Named once, on the report's last lines (leftOutLine).
		t.leftOut = appendNew(t.leftOut, omitted...)
		return
	}
	rest, keep := []column{cols[0]}, []int{0}
	for i, c := range cols {
		if slices.Contains(omitted, c.header) {
			rest, keep = append(rest, c), append(keep, i)
		}
	}
	if len(rest) == len(cols) {
		return // not even one column beside the first fits
	}
	sub := make([][]string, len(rows))
	for r, row := range rows {
		for _, i := range keep {
			sub[r] = append(sub[r], row[i])
		}
	}
	t.blank()
	t.table(rest, sub, nil)
}

// orUnknown is "?" for a cell nothing was read for.
func orUnknown(s string) string {
	if s == "" {
		return "?"
	}
	return s
}

func joinNonEmpty(sep string, xs ...string) string {
	var out []string
	for _, x := range xs {
		if x != "" {
			out = append(out, x)
		}
	}
	return strings.Join(out, sep)
}

// txt is a string fact, "" for nil or another type.
func txt(v any) string {
	x, _ := v.(string)
	return x
}
