package checks

import (
	"context"
	"fmt"
	"path"
	"strconv"

	"github.com/diskdoctor/diskdoctor/probes/block"
	"github.com/diskdoctor/diskdoctor/probes/pcie"
)

func init() {
	Register(Check{Name: "pcie-link", Description: "the PCIe link of each disk's controller (NVMe, AHCI, SAS or RAID HBA, USB host): current against the speed and width it and its slot support", Run: pcieLink})
}

// laneGBs is the usable bandwidth of one lane per direction in GB/s: the
// PCI Express Base Specification encodes 8b/10b up to 5 GT/s (Gen 1 and 2)
// and 128b/130b from 8 GT/s (Gen 3 on). The link's speeds and widths are
// the device's current_link_* and max_link_* files
// (Documentation/ABI/testing/sysfs-bus-pci).
func laneGBs(gts float64) float64 {
	if gts <= 5 {
		return gts * 0.8 / 8
	}
	return gts * 128 / 130 / 8
}

func pcieLink(ctx context.Context, env *Env) []*Observation {
	log, _ := env.KernelLog(ctx)
	limited := log.PCIeBandwidthLines()
	var out []*Observation
	for _, d := range env.Judged(ctx) {
		var l *pcie.Link
		var worstFrac float64
		switch {
		case d.Transport == "nvme":
			l, worstFrac = worstLink(ctx, env, d)
		case d.Hypervisor == "":
			// A guest's emulated controller has no physical link.
			l, worstFrac = functionLink(ctx, env, d)
		}
		if l == nil {
			continue
		}
		capGTs, capLanes := l.CapGTs(), l.CapLanes()
		o := NewObservation("pcie-link", KindDevice, d.Name)
		o.Set("pcie_address", l.Address)
		if drv, err := env.Host.Readlink(l.Dir + "/driver"); err == nil {
			o.Set("pcie_driver", path.Base(drv), Evidence{l.Dir + "/driver", drv})
		}
		o.Set("pcie_cur_gts", l.CurGTs, Evidence{l.Files["current_link_speed"], l.CurSpeed})
		o.Set("pcie_max_gts", l.MaxGTs, Evidence{l.Files["max_link_speed"], l.MaxSpeed})
		o.Set("pcie_cur_width", l.CurLanes, Evidence{l.Files["current_link_width"], l.CurWidth})
		o.Set("pcie_max_width", l.MaxLanes, Evidence{l.Files["max_link_width"], l.MaxWidth})
		text := fmt.Sprintf("%s x%d of %s x%d", l.CurSpeed, l.CurLanes, l.MaxSpeed, l.MaxLanes)
		if l.Port != "" {
			o.Set("pcie_port", l.Port)
			o.Set("pcie_port_gts", l.PortGTs, Evidence{l.Files["port_max_link_speed"], l.PortSpeed})
			o.Set("pcie_port_width", l.PortLanes, Evidence{l.Files["port_max_link_width"], l.PortWidth})
			if capGTs < l.MaxGTs || capLanes < l.MaxLanes {
				text += fmt.Sprintf(" (its slot %s: %s x%d)", l.Port, l.PortSpeed, l.PortLanes)
			}
		}
		o.Set("pcie_cur_gbs", round(bandwidth(l.CurGTs, l.CurLanes), 2))
		o.Set("pcie_max_gbs", round(bandwidth(capGTs, capLanes), 2))
		o.Set("pcie_fraction", round(worstFrac, 3))
		o.Set("pcie_degraded", l.CurGTs < capGTs || l.CurLanes < capLanes)
		o.Set("pcie_link", text)
		if line, ok := limited[l.Address]; ok {
			o.AddEvidence("pcie_degraded", Evidence{"dmesg line " + strconv.Itoa(line.Line.Num), line.Line.Raw})
		}
		out = append(out, o)
	}
	return out
}

// functionLink is the link of the nearest PCI function above a disk that
// is not an NVMe namespace: its AHCI controller, SAS or RAID HBA, or the
// USB host controller its bridge hangs off. Nil when that function has
// no PCIe link (a function on a conventional PCI bus, or an integrated
// one whose link files read "Unknown"): nothing to judge, not a failure.
func functionLink(ctx context.Context, env *Env, d *block.Device) (*pcie.Link, float64) {
	fns := pcie.FunctionsAbove(d.SysPath)
	if len(fns) == 0 {
		return nil, 0
	}
	l, err := Probe(ctx, env, func(ctx context.Context) (*pcie.Link, error) {
		l, err := pcie.ReadLink(ctx, env.Host, fns[0])
		if err == nil {
			pcie.ReadPort(ctx, env.Host, l)
		}
		return l, err
	})
	if err != nil || l.MaxGTs == 0 || l.MaxLanes == 0 || l.CurGTs == 0 || l.CurLanes == 0 {
		return nil, 0
	}
	return l, linkFraction(l)
}

// linkFraction is a link's bandwidth as trained over the most it can
// train to in its slot.
func linkFraction(l *pcie.Link) float64 {
	return bandwidth(l.CurGTs, l.CurLanes) / bandwidth(l.CapGTs(), l.CapLanes())
}

// worstLink is the link of the disk's controllers that runs at the smallest
// fraction of its bandwidth, and that fraction; nil when none could be
// read (a multipath namespace has a controller per path).
func worstLink(ctx context.Context, env *Env, d *block.Device) (*pcie.Link, float64) {
	var worst *pcie.Link
	worstFrac := 2.0
	for _, c := range d.Controllers {
		l, err := Probe(ctx, env, func(ctx context.Context) (*pcie.Link, error) {
			var l *pcie.Link
			var err error
			if fn, ok := d.ControllerFunction(c); ok {
				l, err = pcie.ReadLink(ctx, env.Host, fn)
			} else {
				l, err = pcie.ReadNVMeLink(ctx, env.Host, c)
			}
			if err == nil {
				pcie.ReadPort(ctx, env.Host, l)
			}
			return l, err
		})
		if err != nil || l.MaxGTs == 0 || l.MaxLanes == 0 {
			if err != nil {
				env.Skip("pcie-link", d.Name, err)
			}
			continue
		}
		if f := linkFraction(l); f < worstFrac {
			worst, worstFrac = l, f
		}
	}
	return worst, worstFrac
}

func bandwidth(gts float64, lanes int) float64 { return laneGBs(gts) * float64(lanes) }
