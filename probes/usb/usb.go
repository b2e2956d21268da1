package usb

import (
	"context"
	"errors"
	"path"
	"regexp"
	"strconv"
	"strings"

	"github.com/diskdoctor/diskdoctor/machine"
)

// Link is what sysfs says about the USB device above one disk. A string
// left "" and a nil pointer are unknown (the file could not be read),
// never "absent".
type Link struct {
	Device    string // 2-1, 1-2.1 (usbcore's device name: bus-port[.port…])
	Interface string // 2-1:1.0
	Dir       string // the device's machine path
	// Files names the machine path each value was read from.
	Files map[string]string

	Speed     *float64 // Mbit/s: 1.5, 12, 480, 5000, 10000, 20000
	SpeedRaw  string
	Version   string // bcdUSB as usbcore prints it, trimmed: 2.10, 3.20
	VendorID  string // idVendor, 4 hex digits
	ProductID string // idProduct
	Driver    string // the interface's driver: uas, usb-storage

	// BOS: the device's Binary Object Store (bos_descriptors); BOSRead
	// false when the file could not be read (a device below bcdUSB 2.01
	// has none).
	BOSRead bool
	BOS     BOS

	// Port is the port the device is plugged into (usb2-port1); PeerRead
	// tells whether its peer link was looked for, Peer the peer port
	// ("" when the port has none: not a SuperSpeed/high-speed pair), and
	// PeerSpeed the speed of the hub that owns the peer port.
	Port      string
	PeerRead  bool
	Peer      string
	PeerSpeed *float64
}

// usbcore names a device bus-port[.port…] and an interface
// device:config.interface (drivers/usb/core/message.c, usb_set_configuration).
var (
	deviceName    = regexp.MustCompile(`^\d+-\d+(?:\.\d+)*$`)
	interfaceName = regexp.MustCompile(`^(\d+-\d+(?:\.\d+)*):\d+\.\d+$`)
)

// DeviceOf returns the machine path of the USB device and the name of
// the interface in a disk's resolved sysfs path, "" when the path runs
// through no USB interface. The interface nearest the disk counts: a hub
// further up is not the bridge.
func DeviceOf(sysPath string) (dir, iface string) {
	parts := strings.Split(sysPath, "/")
	for i := len(parts) - 1; i > 0; i-- {
		m := interfaceName.FindStringSubmatch(parts[i])
		if m == nil {
			continue
		}
		if parts[i-1] != m[1] || !deviceName.MatchString(parts[i-1]) {
			return "", ""
		}
		return strings.Join(parts[:i], "/"), parts[i]
	}
	return "", ""
}

// maxBOS bounds the read of bos_descriptors: wTotalLength is 16 bits.
const maxBOS = 64 << 10

// Read reads the USB device dir (from DeviceOf) and its interface iface.
// Each file is optional; only a context error is returned.
func Read(ctx context.Context, h *machine.Host, dir, iface string) (*Link, error) {
	l := &Link{Device: path.Base(dir), Interface: iface, Dir: dir, Files: map[string]string{}}
	str := func(name string) string {
		p := dir + "/" + name
		s, err := h.ReadString(ctx, p)
		if err != nil {
			return ""
		}
		l.Files[name] = p
		return printable(s)
	}
	if l.SpeedRaw = str("speed"); l.SpeedRaw != "" {
		l.Speed = parseSpeed(l.SpeedRaw)
	}
	l.Version = str("version")
	l.VendorID = str("idVendor")
	l.ProductID = str("idProduct")
	if t, err := h.Readlink(dir + "/" + iface + "/driver"); err == nil {
		l.Driver = printable(path.Base(t))
		l.Files["driver"] = dir + "/" + iface + "/driver"
	}
	if b, err := h.ReadFileLimit(ctx, dir+"/bos_descriptors", maxBOS); err == nil {
		l.BOSRead = true
		l.BOS = ParseBOS(b)
		l.Files["bos_descriptors"] = dir + "/bos_descriptors"
	}
	readPeer(ctx, h, l)
	if err := ctx.Err(); err != nil {
		return nil, machine.CtxErr(err)
	}
	return l, nil
}

// readPeer follows the device's port link to the port's peer
// (usb_port_peer, drivers/usb/core/port.c: the SuperSpeed half of a USB 3
// connector and its high-speed half name each other).
func readPeer(ctx context.Context, h *machine.Host, l *Link) {
	port, err := h.Resolve(l.Dir + "/port")
	if err != nil {
		return
	}
	l.Port = path.Base(port)
	l.Files["port"] = l.Dir + "/port"
	peer, err := h.Resolve(port + "/peer")
	l.PeerRead = true
	if err != nil {
		if !errors.Is(err, machine.ErrNotAvailable) {
			l.PeerRead = false
		}
		return
	}
	l.Peer = path.Base(peer)
	l.Files["peer"] = port + "/peer"
	// The peer port hangs off its hub's interface: <hub>/<hub>:1.0/<port>.
	if s, err := h.ReadString(ctx, path.Dir(path.Dir(peer))+"/speed"); err == nil {
		l.PeerSpeed = parseSpeed(s)
	}
}

func parseSpeed(s string) *float64 {
	v, err := strconv.ParseFloat(strings.TrimSpace(s), 64)
	if err != nil || v <= 0 || v > 1e6 {
		return nil
	}
	return &v
}

// printable drops control characters: sysfs text from a recording is
// hostile.
func printable(s string) string {
	return strings.Map(func(r rune) rune {
		if r < 0x20 || r == 0x7f {
			return -1
		}
		return r
	}, strings.TrimSpace(s))
}

// SuperSpeedMbps is the slowest SuperSpeed signalling rate: a device at
// this speed or above runs a USB 3 link.
const SuperSpeedMbps = 5000

// BOS is what a Binary Object Store says about SuperSpeed.
type BOS struct {
	Valid bool // a BOS header was found
	// SuperSpeed: a SuperSpeed USB Device Capability descriptor
	// (bDevCapabilityType 0x03); SuperSpeedPlus: one of type 0x0A.
	SuperSpeed, SuperSpeedPlus bool
	// Hex is the capability descriptor that said so, for evidence.
	Hex string
}

// Descriptor and capability codes, USB 3.2 specification §9.6.2 (Table
// 9-11 BOS descriptor, Table 9-12 device capability descriptor, Table
// 9-14 capability type codes).
const (
	bosType           = 0x0F
	devCapabilityType = 0x10
	capSuperSpeed     = 0x03
	capSuperSpeedPlus = 0x0A
)

// ParseBOS reads a Binary Object Store as usbcore stores it: the BOS
// descriptor (bLength 5, type 0x0F, wTotalLength, bNumDeviceCaps)
// followed by its device capability descriptors (bLength, type 0x10,
// bDevCapabilityType, …). A truncated or malformed store yields what was
// read before the fault.
func ParseBOS(b []byte) BOS {
	var out BOS
	if len(b) < 5 || b[1] != bosType || b[0] < 5 {
		return out
	}
	out.Valid = true
	total := int(b[2]) | int(b[3])<<8
	if total > len(b) {
		total = len(b)
	}
	for i := int(b[0]); i+3 <= total; {
		n := int(b[i])
		if n < 3 || i+n > total {
			break
		}
		if b[i+1] == devCapabilityType {
			switch b[i+2] {
			case capSuperSpeed:
				if !out.SuperSpeed {
					out.SuperSpeed = true
					out.Hex = hexBytes(b[i : i+n])
				}
			case capSuperSpeedPlus:
				out.SuperSpeedPlus = true
			}
		}
		i += n
	}
	return out
}

func hexBytes(b []byte) string {
	const digits = "0123456789abcdef"
	var sb strings.Builder
	for i, c := range b {
		if i > 0 {
			sb.WriteByte(' ')
		}
		sb.WriteByte(digits[c>>4])
		sb.WriteByte(digits[c&15])
	}
	return sb.String()
}
