package pcie

import (
	"context"
	"path"
	"regexp"

	"github.com/diskdoctor/diskdoctor/machine"
)

var funcAddr = regexp.MustCompile(`^[0-9a-f]{4}:[0-9a-f]{2}:[0-9a-f]{2}\.[0-7]$`)

// IsFunction says whether a sysfs directory name is a PCI function
// address (0000:05:00.0).
func IsFunction(name string) bool { return funcAddr.MatchString(name) }

// FunctionsAbove lists the PCI function directories on a resolved device
// path, nearest first: a SATA disk's AHCI controller and the ports above
// it (/sys/devices/pci0000:00/0000:00:1c.0/0000:05:00.0/ata1/...).
func FunctionsAbove(sysPath string) []string {
	var out []string
	for p := path.Dir(sysPath); p != "/" && p != "." && p != "/sys/devices"; p = path.Dir(p) {
		if IsFunction(path.Base(p)) {
			out = append(out, p)
		}
	}
	return out
}

// ReadPort reads the link capability of the port above the function at
// dir (the root or switch downstream port that is its slot), and caps
// the link's expected speed and width with it: the link trains to the
// highest rate and width both ends support (PCI Express Base
// Specification, 4.2 Link Initialization and Training), so a x8 card in
// a slot wired x4 runs x4 by design, not degraded. False when dir sits
// on a root bus or the port has no readable capability.
func ReadPort(ctx context.Context, h *machine.Host, l *Link) bool {
	up := path.Dir(l.Dir)
	if !IsFunction(path.Base(up)) {
		return false
	}
	p, err := ReadLink(ctx, h, up)
	if err != nil || p.MaxGTs == 0 || p.MaxLanes == 0 {
		return false
	}
	l.Port, l.PortSpeed, l.PortWidth = p.Address, p.MaxSpeed, p.MaxWidth
	l.PortGTs, l.PortLanes = p.MaxGTs, p.MaxLanes
	for k, v := range p.Files {
		l.Files["port_"+k] = v
	}
	return true
}

// CapGTs is the highest speed the link can train to: the function's
// maximum, or its port's where that is lower.
func (l *Link) CapGTs() float64 {
	if l.PortGTs > 0 && l.PortGTs < l.MaxGTs {
		return l.PortGTs
	}
	return l.MaxGTs
}

// CapLanes is the widest the link can train to: the function's maximum
// width, or its port's where that is narrower.
func (l *Link) CapLanes() int {
	if l.PortLanes > 0 && l.PortLanes < l.MaxLanes {
		return l.PortLanes
	}
	return l.MaxLanes
}
