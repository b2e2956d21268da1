package checks

import (
	"context"
	"errors"
	"io/fs"
	"strconv"
	"strings"

	"github.com/diskdoctor/diskdoctor/probes/block"
	"github.com/diskdoctor/diskdoctor/probes/kernlog"
	"github.com/diskdoctor/diskdoctor/probes/nvmepm"
)

func init() {
	Register(Check{Name: "nvme-power", Description: "NVMe and PCIe power saving: APST's latency limit (nvme_core default_ps_max_latency_us, each controller's pm_qos_latency_tolerance_us), the PCIe ASPM policy and the ASPM states of each NVMe's link, and the kernel's controller-down reports (CSTS=0xffffffff)", Run: nvmePower})
}

// nvmePower records, per NVMe disk, whether APST may put its controllers
// to sleep, which ASPM states their links use, and whether the kernel
// found a controller gone from the bus. nvme_warn_reset
// (drivers/nvme/host/pci.c) reads CSTS=0xffffffff when nothing answers on
// the link, and since 5.19 names faulty power saving as the first
// suspect: a drive or platform that does not wake from an APST
// non-operational state or from ASPM L1.
func nvmePower(ctx context.Context, env *Env) []*Observation {
	var disks []*block.Device
	for _, d := range env.Judged(ctx) {
		if d.Transport == "nvme" {
			disks = append(disks, d)
		}
	}
	log, logErr := env.KernelLog(ctx)
	down := log.NVMeControllerDown()
	if len(disks) == 0 && len(down) == 0 {
		return nil
	}
	module, modErr := Probe(ctx, env, func(ctx context.Context) (nvmepm.Latency, error) {
		return nvmepm.ReadModuleLatency(ctx, env.Host)
	})
	var mod *nvmepm.Latency
	if modErr == nil {
		mod = &module
	} else {
		env.Skip("nvme-power", "", withHint(modErr, "nvme_core's default_ps_max_latency_us was not read (the module not loaded, or a recording made without the file): whether APST is allowed by default is unknown, and each controller still present is judged on its own limit"))
	}
	out := []*Observation{nvmePowerHost(ctx, env, mod)}
	owned := map[string]bool{}
	for _, d := range disks {
		o := NewObservation("nvme-power", KindDevice, d.Name)
		setNVMePower(ctx, env, o, d.Controllers, mod, down, logErr == nil && log != nil)
		setLinkASPM(ctx, env, o, d)
		out = append(out, o)
		for _, c := range d.Controllers {
			owned[c] = true
		}
	}
	// A controller the kernel removed after it went down has no disk in
	// /sys/block any more: its report goes to the disk the log names
	// (the kernel-log check's gone disk), under the same name.
	var topo *kernlog.Topology
	for _, c := range sortedKeys(down) {
		if owned[c] || down[c].AllOnes == 0 {
			continue
		}
		if topo == nil {
			topo = klogTopology(ctx, env, log)
		}
		for _, name := range topo.Attribute(kernlog.RefNVMe, c) {
			o := NewObservation("nvme-power", KindDevice, name)
			setNVMePower(ctx, env, o, []string{c}, mod, down, true)
			o.Set("aspm_link_states", nil)
			out = append(out, o)
		}
	}
	return out
}

// nvmePowerHost: the module's default limit, the ASPM policy and what the
// kernel command line sets for both.
func nvmePowerHost(ctx context.Context, env *Env, mod *nvmepm.Latency) *Observation {
	o := NewObservation("nvme-power", KindHost, "host")
	if mod != nil {
		o.Set("nvme_pm_default_latency_us", mod.US, Evidence{nvmepm.ModuleLatencyPath, mod.Raw})
	} else {
		o.Set("nvme_pm_default_latency_us", nil)
	}
	policy, raw, err := nvmepm.ReadPolicy(ctx, env.Host)
	if err == nil {
		o.Set("aspm_policy", policy, Evidence{nvmepm.ASPMPolicyPath, raw})
		if saves, ok := nvmepm.PolicySaves(policy); ok {
			o.Set("aspm_policy_saves", saves)
		} else {
			o.Set("aspm_policy_saves", nil)
		}
	} else {
		o.Set("aspm_policy", nil)
		o.Set("aspm_policy_saves", nil)
	}
	cl, err := env.CmdLine(ctx)
	if err != nil {
		o.Set("nvme_pm_cmdline_latency", nil)
		o.Set("aspm_cmdline", nil)
		return o
	}
	// The whole line is the evidence: it shows an absent parameter too.
	ev := Evidence{"/proc/cmdline", cl}
	v, _ := nvmepm.CmdlineValue(cl, "nvme_core.default_ps_max_latency_us")
	o.Set("nvme_pm_cmdline_latency", v, ev)
	v, _ = nvmepm.CmdlineValue(cl, "pcie_aspm")
	o.Set("aspm_cmdline", v, ev)
	return o
}

// setNVMePower sets APST's state over a disk's controllers and the
// kernel's controller-down reports for them.
func setNVMePower(ctx context.Context, env *Env, o *Observation, ctrls []string, mod *nvmepm.Latency, down map[string]*kernlog.NVMeDown, logRead bool) {
	// Allowed on one path is allowed; off only when every path is known off.
	var allowed any
	known := 0
	var limits []string
	var ev []Evidence
	first := ""
	for _, c := range ctrls {
		a, limit, e := apstOf(ctx, env, c, mod)
		ev = append(ev, e...)
		if limit != "" {
			limits = append(limits, limit)
		}
		if a != nil {
			known++
			if *a {
				allowed = true
			}
		}
		if first == "" || (down[c] != nil && down[first] == nil) {
			first = c
		}
	}
	if allowed == nil && known > 0 && known == len(ctrls) {
		allowed = false
	}
	o.Set("nvme_pm_controller", first)
	o.Set("nvme_pm_apst_allowed", allowed, ev...)
	o.Set("nvme_pm_latency_us", strings.Join(limits, ", "))
	if !logRead {
		o.Set("nvme_pm_controller_down", nil)
		o.Set("nvme_pm_power_hint", nil)
		return
	}
	n, hint := 0, false
	var dev []Evidence
	for _, c := range ctrls {
		d := down[c]
		if d == nil {
			continue
		}
		n += d.AllOnes
		hint = hint || d.Hint
		for _, l := range d.Lines {
			dev = append(dev, Evidence{"dmesg line " + strconv.Itoa(l.Num), l.Raw})
		}
	}
	o.Set("nvme_pm_controller_down", n, dev...)
	o.Set("nvme_pm_power_hint", hint)
}

// apstOf is whether APST may use a non-operational state on controller
// c: its own limit when sysfs has it; for a controller gone from sysfs the
// module's default it started with (nvme_init_ctrl); none on a live
// controller without the file (it has no APST, see nvmepm.QoSPath); nil
// when unknown (a recording without the file).
func apstOf(ctx context.Context, env *Env, c string, mod *nvmepm.Latency) (*bool, string, []Evidence) {
	l, err := Probe(ctx, env, func(ctx context.Context) (nvmepm.Latency, error) {
		return nvmepm.ReadControllerLatency(ctx, env.Host, c)
	})
	yes := func(b bool) *bool { return &b }
	switch {
	case err == nil:
		return yes(l.Allows()), l.Raw, []Evidence{{nvmepm.QoSPath(c), l.Raw}}
	case !env.Host.Exists("/sys/class/nvme/"+c) && mod != nil:
		return yes(mod.Allows()), mod.Raw, []Evidence{{nvmepm.ModuleLatencyPath, mod.Raw + " (" + c + " is gone from /sys/class/nvme; its limit started at this default)"}}
	case errors.Is(err, fs.ErrNotExist) && env.Host.IsLive():
		return yes(false), "", []Evidence{{nvmepm.QoSPath(c), "absent: the controller offers no APST"}}
	}
	return nil, "", nil
}

// setLinkASPM: the ASPM states enabled on the links of the disk's
// controllers' PCI functions.
func setLinkASPM(ctx context.Context, env *Env, o *Observation, d *block.Device) {
	var states []string
	var ev []Evidence
	read := false
	for _, c := range d.Controllers {
		fn, ok := d.ControllerFunction(c)
		if !ok {
			continue
		}
		l, err := nvmepm.ReadLinkASPM(ctx, env.Host, fn)
		if err != nil {
			continue
		}
		read = true
		for _, s := range l.Enabled {
			states = appendUniq(states, strings.TrimSuffix(s, "_aspm"))
		}
		for _, p := range sortedKeys(l.Files) {
			ev = append(ev, Evidence{p, l.Files[p]})
		}
	}
	if !read {
		o.Set("aspm_link_states", nil)
		return
	}
	o.Set("aspm_link_states", nonNil(states), ev...)
}
