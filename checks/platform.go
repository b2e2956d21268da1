package checks

import (
	"context"
	"fmt"
	"regexp"
	"strconv"
	"strings"

	"github.com/diskdoctor/diskdoctor/machine"
	"github.com/diskdoctor/diskdoctor/probes/kernlog"
	"github.com/diskdoctor/diskdoctor/probes/system"
)

func init() {
	Register(Check{Name: "platform", Description: "vendor, product, BIOS, kernel, distribution, storage controllers and their drivers", Run: platform})
}

func platform(ctx context.Context, env *Env) []*Observation {
	o := NewObservation("platform", KindHost, "host")
	p, err := env.Platform(ctx)
	if err != nil {
		env.Skip("platform", "", err)
	}
	if p != nil {
		dmi := func(fact, attr, v string) {
			if f := p.Files[attr]; f != "" {
				o.Set(fact, v, Evidence{f, v})
			} else {
				o.Set(fact, v)
			}
		}
		dmi("sys_vendor", "sys_vendor", p.Vendor)
		dmi("product", "product_name", p.Product)
		dmi("bios_version", "bios_version", p.BIOSVersion)
		dmi("bios_date", "bios_date", p.BIOSDate)
		dmi("board", "board_name", p.Board)
		o.Set("chassis_type", p.ChassisType)
		o.Set("kernel", p.Kernel, Evidence{"/proc/sys/kernel/osrelease", p.Kernel})
		// major*1000+minor (6.11 -> 6011): what a kernel-dependent remedy
		// compares with; nil when the release cannot be parsed.
		if code := kernelCode(p.Kernel); code > 0 {
			o.Set("kernel_code", code)
		} else {
			o.Set("kernel_code", nil)
		}
		o.Set("distro", p.Distro)
		o.Set("hostname", p.Hostname)
		o.Set("platform", strings.TrimSpace(p.Vendor+" "+p.Product))
		if p.Vendor == "" && p.Product == "" {
			env.Skip("platform", "", fmt.Errorf("/sys/class/dmi/id: %w", machine.ErrNotAvailable))
		}
	}
	devs, _ := env.Devices(ctx)
	klog, _ := env.KernelLog(ctx)
	w := whereItRuns(p, klog, devs)
	setWhere(o, p, klog, w)
	role := Role(p, env.Opts.Context)
	if role == "unknown" && w.Hypervisor != "" && w.Hypervisor != hvNone {
		role = "vm" // a guest without DMI (a microVM): the kernel or the CPU says so
	}
	o.Set("role", role)
	o.Set("context", env.Opts.Context)

	ctrls := map[string][]string{}
	for _, d := range devs {
		if d.NVMePath {
			continue
		}
		if drv := controllerDriver(d); drv != "" {
			ctrls[drv] = append(ctrls[drv], d.Name)
		}
	}
	var list []string
	for _, drv := range sortedKeys(ctrls) {
		list = append(list, drv+": "+strings.Join(ctrls[drv], " "))
	}
	o.Set("controllers", nonNil(list))
	return []*Observation{o}
}

// setWhere sets provider, machine_type and vm_hypervisor: nil where
// nothing was read that could tell (no DMI, no kernel log, no cpuinfo).
func setWhere(o *Observation, p *system.Platform, klog *kernlog.Log, w Where) {
	read := w.DMIKnown || p != nil && p.CPUHypervisor != nil || klog != nil
	str := func(fact, v string, known bool, ev []Evidence) {
		switch {
		case v != "":
			o.Set(fact, v, ev...)
		case known:
			o.Set(fact, "")
		default:
			o.Set(fact, nil)
		}
	}
	// DMI or a cloud's own volume names a cloud: without them the
	// provider is unknown.
	str("provider", w.Provider, w.DMIKnown, w.ProviderEv)
	str("machine_type", w.MachineType, w.DMIKnown, w.MachineTypeEv)
	str("vm_hypervisor", w.Hypervisor, read, w.HypervisorEv)
}

var kernelRelease = regexp.MustCompile(`^(\d+)\.(\d+)`)

func kernelCode(release string) int {
	m := kernelRelease.FindStringSubmatch(release)
	if m == nil {
		return 0
	}
	major, _ := strconv.Atoi(m[1])
	minor, _ := strconv.Atoi(m[2])
	if minor >= 1000 {
		return 0
	}
	return major*1000 + minor
}
