package report

import (
	"fmt"
	"strings"

	"github.com/diskdoctor/diskdoctor/rules"
)

// deviceTable is the compact inventory of judged devices, fitted to the
// width by cutting and then leaving out columns (the model last); virtual
// devices are counted, not listed.
func deviceTable(t *textWriter, rep *rules.Report) {
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
	var skipped []string
	judged := 0
	for _, d := range rep.Devices {
		name, _ := d["name"].(string)
		if j, _ := d["judged"].(bool); !j {
			skipped = append(skipped, clean(name))
			continue
		}
		judged++
		if judged > maxDeviceRows {
			continue
		}
		rows = append(rows, []string{clean(name), clean(s(d["model"])), clean(s(d["transport"])), size(d["size_bytes"]), clean(s(d["class"])), cache(d), trimCell(d), clean(s(d["scheduler"])), clean(usage(d))})
	}
	if judged > 0 {
		header, lines, omitted := fitTable(cols, rows, t.width)
		t.line(t.p.Bold.Render(header))
		for _, l := range lines {
			t.line(l)
		}
		if judged > maxDeviceRows {
			t.line(fmt.Sprintf("… %d more devices (--format json lists all)", judged-maxDeviceRows))
		}
		if len(omitted) > 0 {
			t.wrapped("", 0, 2, "(left out at this width: "+strings.Join(omitted, ", ")+"; --width or -v)", t.p.Dim)
		}
	}
	if len(skipped) > 0 {
		t.wrapped("", 0, 2, "not judged (virtual, or NVMe paths; name one with --device): "+abbreviate(skipped, 12), t.p.Dim)
	}
}

// maxDeviceRows bounds the device table; JSON has every device.
const maxDeviceRows = 50

func cache(d map[string]any) string {
	switch d["wc_on"] {
	case true:
		return "on"
	case false:
		return "OFF"
	}
	return "-"
}

func trimCell(d map[string]any) string {
	if d["trim_supported"] == false {
		return "no"
	}
	switch d["trim_covered"] {
	case true:
		return "scheduled"
	case false:
		return "NEVER"
	}
	if d["trim_supported"] == true {
		return "yes"
	}
	return "-"
}

func usage(d map[string]any) string {
	var parts []string
	if mps, ok := d["mountpoints"].([]string); ok {
		parts = append(parts, mps...)
	}
	if pools, ok := d["zfs_pools"].([]string); ok {
		for _, pl := range pools {
			parts = append(parts, "zfs:"+pl)
		}
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
