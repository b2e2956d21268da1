package checks

import (
	"context"
	"strings"

	"github.com/diskdoctor/diskdoctor/probes/nvmehmb"
)

func init() {
	Register(Check{Name: "nvme-hmb", Description: "each NVMe disk's Host Memory Buffer as the driver logged it: allocated, failed, or above nvme.max_host_mem_size_mb", Run: nvmeHMB})
}

// nvmeHMB records, per NVMe disk, whether its controller got the Host
// Memory Buffer it asked for. A DRAM-less SSD keeps its mapping tables in
// that buffer; without it the controller works from its small SRAM and
// reads its tables from flash, and random I/O over a large span slows
// several times. A controller that asked for none (a drive with DRAM)
// logs nothing: the fact is then unknown.
func nvmeHMB(ctx context.Context, env *Env) []*Observation {
	var out []*Observation
	var events map[string]nvmehmb.Event
	read, logOK := false, false
	for _, d := range env.Judged(ctx) {
		if len(d.Controllers) == 0 {
			continue
		}
		if !read {
			read = true
			k, err := env.KernelLog(ctx)
			logOK = err == nil
			events = nvmehmb.Scan(k)
		}
		o := NewObservation("nvme-hmb", KindDevice, d.Name)
		var e *nvmehmb.Event
		for _, c := range d.Controllers {
			if ev, ok := events[c]; ok {
				e = &ev
				break
			}
		}
		switch {
		case !logOK || e == nil:
			o.Set("hmb_state", nil)
			o.Set("hmb_mib", nil)
			o.Set("hmb_limit_mib", nil)
		default:
			o.Set("hmb_state", e.State, klogEv(e.Line))
			if e.State == nvmehmb.Failed {
				o.Set("hmb_mib", nil)
			} else {
				o.Set("hmb_mib", e.MiB, klogEv(e.Line))
			}
			if e.State == nvmehmb.OverLimit {
				o.Set("hmb_limit_mib", e.LimitMiB, klogEv(e.Line))
			} else {
				o.Set("hmb_limit_mib", nil)
			}
		}
		cmd, _ := env.CmdLine(ctx)
		if p := hmbParam(cmd); p != "" {
			o.Set("hmb_cmdline", p, Evidence{"/proc/cmdline", p})
		} else {
			o.Set("hmb_cmdline", nil)
		}
		out = append(out, o)
	}
	return out
}

// hmbParam is the nvme.max_host_mem_size_mb= parameter on the kernel
// command line (drivers/nvme/host/pci.c, module parameter
// max_host_mem_size_mb), "" when absent.
func hmbParam(cmdline string) string {
	for _, f := range strings.Fields(cmdline) {
		if strings.HasPrefix(f, "nvme.max_host_mem_size_mb=") {
			return f
		}
	}
	return ""
}
