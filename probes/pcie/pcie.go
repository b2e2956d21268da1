package pcie

import (
	"context"
	"path"
	"strings"

	"github.com/diskdoctor/diskdoctor/internal/parse"
	"github.com/diskdoctor/diskdoctor/machine"
)

// Link is the PCIe link state of a PCI function.
type Link struct {
	Address            string // 0000:01:00.0
	Dir                string // its machine path
	CurSpeed, MaxSpeed string // "8.0 GT/s PCIe"
	CurWidth, MaxWidth string // "2"
	CurGTs, MaxGTs     float64
	CurLanes, MaxLanes int
	Files              map[string]string
	// The port above (its slot), when ReadPort could read it: its
	// address and maximum speed and width.
	Port                 string
	PortSpeed, PortWidth string
	PortGTs              float64
	PortLanes            int
}

// ReadNVMeLink reads the PCIe link of an NVMe controller's PCI function via
// /sys/class/nvme/<ctrl>/device. Fabrics controllers have none.
func ReadNVMeLink(ctx context.Context, h *machine.Host, ctrl string) (*Link, error) {
	dir, err := h.Resolve("/sys/class/nvme/" + ctrl + "/device")
	if err != nil {
		return nil, err
	}
	return ReadLink(ctx, h, dir)
}

// ReadLink reads the PCIe link of the PCI function at dir, a resolved
// machine path (BlockDevice.ControllerFunction, ReadNVMeLink).
func ReadLink(ctx context.Context, h *machine.Host, dir string) (*Link, error) {
	l := &Link{Address: path.Base(dir), Dir: dir, Files: map[string]string{}}
	read := func(attr string) (string, error) {
		p := dir + "/" + attr
		v, err := h.ReadString(ctx, p)
		if err == nil {
			l.Files[attr] = p
		}
		return v, err
	}
	var errs [4]error
	l.CurSpeed, errs[0] = read("current_link_speed")
	l.MaxSpeed, errs[1] = read("max_link_speed")
	l.CurWidth, errs[2] = read("current_link_width")
	l.MaxWidth, errs[3] = read("max_link_width")
	for _, e := range errs {
		if e != nil {
			return l, e
		}
	}
	l.CurGTs, l.MaxGTs = ParseSpeed(l.CurSpeed), ParseSpeed(l.MaxSpeed)
	l.CurLanes, l.MaxLanes = parse.Atoi(l.CurWidth), parse.Atoi(l.MaxWidth)
	return l, nil
}

// ParseSpeed reads "16.0 GT/s PCIe" (or older "5 GT/s") as GT/s; 0 when
// unknown ("Unknown", "255 GT/s" placeholders are not speeds).
func ParseSpeed(s string) float64 {
	f := strings.Fields(s)
	if len(f) < 2 || f[1] != "GT/s" {
		return 0
	}
	v := parse.Float(f[0])
	if v <= 0 || v > 128 {
		return 0
	}
	return v
}
