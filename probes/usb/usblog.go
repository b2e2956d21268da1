package usb

import (
	"regexp"
	"strconv"
	"strings"

	"github.com/diskdoctor/diskdoctor/probes/kernlog"
)

// Log is what the kernel log says about USB storage, by what each line
// names: a USB device (2-1), a disk (sdc) or its SCSI address (4:0:0:0), a
// SCSI host (host4) or a host controller (0000:00:14.0, xhci-hcd.9.auto).
type Log struct {
	// Enumerated: each USB device's enumeration lines, oldest first
	// (hub_port_init, drivers/usb/core/hub.c: "usb 2-1: new high-speed
	// USB device number 3 using xhci_hcd").
	Enumerated map[string][]Enum
	// Resets: "usb 4-1: reset SuperSpeed USB device number 2 using
	// xhci_hcd" (hub_port_init again, on a reset of a known device).
	Resets map[string][]kernlog.Line
	// UASIgnored: uas_use_uas_driver (drivers/usb/storage/uas-detect.h)
	// gave the device to usb-storage: "UAS is blacklisted for this device,
	// using usb-storage instead" (before 5.9), "UAS is ignored for this
	// device, using usb-storage instead" (5.9 and later), by device.
	UASIgnored map[string]kernlog.Line
	// Quirks: usb-storage's "Quirks match for vid 152d pid 0578: 1800000"
	// (usb_stor_adjust_quirks, drivers/usb/storage/usb.c), by device.
	Quirks map[string]Quirk
	// Aborts: uas_eh_abort_handler (drivers/usb/storage/uas.c), the SCSI
	// error handler aborting a command the bridge never completed, by disk
	// name (sdc) or, where the line gives none, SCSI address (4:0:0:0).
	Aborts map[string][]kernlog.Line
	// DeviceResets: uas_eh_device_reset_handler, by SCSI host (host4).
	DeviceResets map[string][]kernlog.Line
	// HostDied: the xHCI driver's fatal lines, by controller: "Host System
	// Error" (xhci_irq on USBSTS.HSE), "xHCI host controller not
	// responding, assume dead" and "HC died; cleaning up" (xhci_hc_died,
	// drivers/usb/host/xhci.c, xhci-ring.c).
	HostDied map[string][]kernlog.Line
}

// Enum is one enumeration of a USB device.
type Enum struct {
	Speed string // high-speed, SuperSpeed, SuperSpeed Gen 1, SuperSpeed Plus Gen 2x1, full-speed
	HCD   string // xhci_hcd, ehci-pci, dwc2
	Line  kernlog.Line
}

// SuperSpeed reports whether the enumeration was at 5 Gbit/s or more
// (usb_speed_string, drivers/usb/common/common.c: "super-speed" in the
// table, printed "SuperSpeed…" by hub_port_init).
func (e Enum) SuperSpeed() bool {
	return strings.HasPrefix(strings.ToLower(e.Speed), "superspeed") || strings.HasPrefix(e.Speed, "super-speed")
}

// Quirk is a usb-storage quirk match.
type Quirk struct {
	Flags     uint64
	IgnoreUAS bool // US_FL_IGNORE_UAS, bit 23 (include/linux/usb_usual.h), the "u" of usb-storage.quirks
	Line      kernlog.Line
}

// usFlIgnoreUAS is US_FL_IGNORE_UAS (include/linux/usb_usual.h).
const usFlIgnoreUAS = 1 << 23

// maxLines bounds what is kept per key: a flapping device logs thousands.
const maxLines = 50

var (
	enumMsg     = regexp.MustCompile(`^usb (\d+-\d+(?:\.\d+)*): new (.+?) USB device number \d+ using (\S+)`)
	resetMsg    = regexp.MustCompile(`^usb (\d+-\d+(?:\.\d+)*): reset .+? USB device number \d+ using \S+`)
	uasOffMsg   = regexp.MustCompile(`^usb (\d+-\d+(?:\.\d+)*): UAS is (?:blacklisted|ignored) for this device, using usb-storage instead`)
	quirkMsg    = regexp.MustCompile(`^usb-storage (\d+-\d+(?:\.\d+)*):\d+\.\d+: Quirks match for vid [0-9a-fA-F]{4} pid [0-9a-fA-F]{4}: ([0-9a-fA-F]+)`)
	abortMsg    = regexp.MustCompile(`^(?:sd|scsi) (\d+:\d+:\d+:\d+): (?:\[([\w-]+)\] )?(?:tag#\d+ )?uas_eh_abort_handler`)
	devResetMsg = regexp.MustCompile(`^(?:scsi host(\d+)|(?:sd|scsi) (\d+):\d+:\d+:\d+): uas_eh_device_reset_handler`)
	hostDiedMsg = regexp.MustCompile(`^xhci[-_]hcd (\S+): (?:WARNING: )?(?:Host System Error|xHCI host controller not responding, assume dead|HC died; cleaning up)`)
)

// ScanLog reads the USB storage lines of a kernel log.
func ScanLog(k *kernlog.Log) *Log {
	out := &Log{
		Enumerated: map[string][]Enum{}, Resets: map[string][]kernlog.Line{},
		UASIgnored: map[string]kernlog.Line{}, Quirks: map[string]Quirk{},
		Aborts: map[string][]kernlog.Line{}, DeviceResets: map[string][]kernlog.Line{},
		HostDied: map[string][]kernlog.Line{},
	}
	if k == nil {
		return out
	}
	add := func(m map[string][]kernlog.Line, key string, l kernlog.Line) {
		if len(m[key]) < maxLines {
			m[key] = append(m[key], l)
		}
	}
	for _, l := range k.Lines {
		t := l.Text
		switch {
		case strings.HasPrefix(t, "usb "):
			if m := enumMsg.FindStringSubmatch(t); m != nil {
				if len(out.Enumerated[m[1]]) < maxLines {
					out.Enumerated[m[1]] = append(out.Enumerated[m[1]], Enum{Speed: m[2], HCD: m[3], Line: l})
				}
			} else if m := resetMsg.FindStringSubmatch(t); m != nil {
				add(out.Resets, m[1], l)
			} else if m := uasOffMsg.FindStringSubmatch(t); m != nil {
				if _, seen := out.UASIgnored[m[1]]; !seen {
					out.UASIgnored[m[1]] = l
				}
			}
		case strings.HasPrefix(t, "usb-storage "):
			if m := quirkMsg.FindStringSubmatch(t); m != nil {
				f, err := strconv.ParseUint(m[2], 16, 64)
				if err == nil {
					out.Quirks[m[1]] = Quirk{Flags: f, IgnoreUAS: f&usFlIgnoreUAS != 0, Line: l}
				}
			}
		case strings.Contains(t, "uas_eh_"):
			if m := abortMsg.FindStringSubmatch(t); m != nil {
				key := m[2]
				if key == "" {
					key = m[1]
				}
				add(out.Aborts, key, l)
			} else if m := devResetMsg.FindStringSubmatch(t); m != nil {
				h := m[1]
				if h == "" {
					h = m[2]
				}
				add(out.DeviceResets, "host"+h, l)
			}
		case strings.HasPrefix(t, "xhci"):
			if m := hostDiedMsg.FindStringSubmatch(t); m != nil {
				add(out.HostDied, m[1], l)
			}
		}
	}
	return out
}
