package checks

import (
	"context"
	"fmt"
	"strconv"

	"github.com/diskdoctor/diskdoctor/probes/block"
	"github.com/diskdoctor/diskdoctor/probes/pcie"
)

func init() {
	Register(Check{Name: "pcie-link", Description: "each NVMe controller's PCIe link: current against maximum speed and width", Run: pcieLink})
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
		if d.Transport != "nvme" {
			continue
		}
		l, worstFrac := worstLink(ctx, env, d)
		if l == nil {
			continue
		}
		o := NewObservation("pcie-link", KindDevice, d.Name)
		o.Set("pcie_address", l.Address)
		o.Set("pcie_cur_gts", l.CurGTs, Evidence{l.Files["current_link_speed"], l.CurSpeed})
		o.Set("pcie_max_gts", l.MaxGTs, Evidence{l.Files["max_link_speed"], l.MaxSpeed})
		o.Set("pcie_cur_width", l.CurLanes, Evidence{l.Files["current_link_width"], l.CurWidth})
		o.Set("pcie_max_width", l.MaxLanes, Evidence{l.Files["max_link_width"], l.MaxWidth})
		o.Set("pcie_cur_gbs", round(bandwidth(l.CurGTs, l.CurLanes), 2))
		o.Set("pcie_max_gbs", round(bandwidth(l.MaxGTs, l.MaxLanes), 2))
		o.Set("pcie_fraction", round(worstFrac, 3))
		o.Set("pcie_degraded", l.CurGTs < l.MaxGTs || l.CurLanes < l.MaxLanes)
		o.Set("pcie_link", fmt.Sprintf("%s x%d of %s x%d", l.CurSpeed, l.CurLanes, l.MaxSpeed, l.MaxLanes))
		if line, ok := limited[l.Address]; ok {
			o.AddEvidence("pcie_degraded", Evidence{"dmesg line " + strconv.Itoa(line.Line.Num), line.Line.Raw})
		}
		out = append(out, o)
	}
	return out
}

// worstLink is the link of the disk's controllers that runs at the smallest
// fraction of its bandwidth, and that fraction; nil when none could be
// read (a multipath namespace has a controller per path).
func worstLink(ctx context.Context, env *Env, d *block.Device) (*pcie.Link, float64) {
	var worst *pcie.Link
	worstFrac := 2.0
	for _, c := range d.Controllers {
		l, err := Probe(ctx, env, func(ctx context.Context) (*pcie.Link, error) {
			if fn, ok := d.ControllerFunction(c); ok {
				return pcie.ReadLink(ctx, env.Host, fn)
			}
			return pcie.ReadNVMeLink(ctx, env.Host, c)
		})
		if err != nil || l.MaxGTs == 0 || l.MaxLanes == 0 {
			if err != nil {
				env.Skip("pcie-link", d.Name, err)
			}
			continue
		}
		if f := bandwidth(l.CurGTs, l.CurLanes) / bandwidth(l.MaxGTs, l.MaxLanes); f < worstFrac {
			worst, worstFrac = l, f
		}
	}
	return worst, worstFrac
}

func bandwidth(gts float64, lanes int) float64 { return laneGBs(gts) * float64(lanes) }
