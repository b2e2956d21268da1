package nvmepm

import (
	"context"
	"fmt"
	"regexp"
	"strconv"
	"strings"

	"github.com/diskdoctor/diskdoctor/machine"
)

// Files the package reads.
const (
	// ModuleLatencyPath is nvme_core's default_ps_max_latency_us: the
	// largest entry-plus-exit latency of a non-operational power state
	// APST may use, in µs (default 100000); 0 turns APST off for every
	// controller probed after it was set (drivers/nvme/host/core.c).
	ModuleLatencyPath = "/sys/module/nvme_core/parameters/default_ps_max_latency_us"
	// ASPMPolicyPath lists the ASPM policies with the active one in
	// brackets: "[default] performance powersave powersupersave"
	// (policy_str and pcie_aspm_get_policy, drivers/pci/pcie/aspm.c).
	ASPMPolicyPath = "/sys/module/pcie_aspm/parameters/policy"
)

// QoSPath is a controller's APST latency limit. nvme_init_ctrl starts it
// at default_ps_max_latency_us, and the core exposes the file only for a
// controller that supports APST (APSTA in Identify Controller, not
// quirked NVME_QUIRK_NO_APST): dev_pm_qos_expose_latency_tolerance in
// nvme_init_ctrl_finish. Writing it reconfigures APST at once
// (nvme_set_latency_tolerance).
func QoSPath(ctrl string) string {
	return "/sys/class/nvme/" + ctrl + "/power/pm_qos_latency_tolerance_us"
}

// Latency is an APST latency limit as sysfs shows it.
type Latency struct {
	Raw string
	US  int64 // the limit in µs; meaningful when !Unlimited
	// Unlimited: "auto" (no constraint) or "any" (pm_qos_latency_tolerance_us_show,
	// drivers/base/power/sysfs.c); nvme_set_latency_tolerance maps both
	// to no limit, so every power state may be used.
	Unlimited bool
}

// Allows reports whether APST may put the drive into a non-operational
// power state at all.
func (l Latency) Allows() bool { return l.Unlimited || l.US > 0 }

// ParseLatency reads a latency limit: a decimal count of µs, "auto" or "any".
func ParseLatency(s string) (Latency, error) {
	s = strings.TrimSpace(s)
	switch s {
	case "auto", "any":
		return Latency{Raw: s, Unlimited: true}, nil
	}
	n, err := strconv.ParseInt(s, 10, 64)
	if err != nil || n < 0 {
		return Latency{}, fmt.Errorf("nvmepm: latency %q: %w", s, machine.ErrParse)
	}
	return Latency{Raw: s, US: n}, nil
}

var ctrlName = regexp.MustCompile(`^nvme\d+$`)

// ReadModuleLatency reads nvme_core's default_ps_max_latency_us.
func ReadModuleLatency(ctx context.Context, h *machine.Host) (Latency, error) {
	s, err := h.ReadString(ctx, ModuleLatencyPath)
	if err != nil {
		return Latency{}, err
	}
	return ParseLatency(s)
}

// ReadControllerLatency reads one controller's limit. The file is absent
// for a controller without APST (an error wrapping fs.ErrNotExist).
func ReadControllerLatency(ctx context.Context, h *machine.Host, ctrl string) (Latency, error) {
	if !ctrlName.MatchString(ctrl) {
		return Latency{}, fmt.Errorf("nvmepm: %q is not an NVMe controller name", ctrl)
	}
	s, err := h.ReadString(ctx, QoSPath(ctrl))
	if err != nil {
		return Latency{}, err
	}
	return ParseLatency(s)
}

// ParsePolicy returns the bracketed (active) policy of the ASPM policy
// file's list.
func ParsePolicy(s string) (string, error) {
	for _, w := range strings.Fields(s) {
		if len(w) > 2 && strings.HasPrefix(w, "[") && strings.HasSuffix(w, "]") {
			return w[1 : len(w)-1], nil
		}
	}
	return "", fmt.Errorf("nvmepm: no active policy in %q: %w", s, machine.ErrParse)
}

// ReadPolicy reads the active ASPM policy and the file's text. The file
// is absent on kernels built without CONFIG_PCIEASPM.
func ReadPolicy(ctx context.Context, h *machine.Host) (policy, raw string, err error) {
	raw, err = h.ReadString(ctx, ASPMPolicyPath)
	if err != nil {
		return "", "", err
	}
	policy, err = ParsePolicy(raw)
	return policy, raw, err
}

// PolicySaves reports whether an ASPM policy lets links enter L0s or L1 on
// their own: "performance" disables ASPM, "default" keeps what the firmware
// configured (unknown here), powersave enables L0s and L1, powersupersave
// also the L1 substates (aspm.c, pcie_aspm_get_policy). ok false for
// "default" and for names the kernel does not have.
func PolicySaves(policy string) (saves, ok bool) {
	switch policy {
	case "performance":
		return false, true
	case "powersave", "powersupersave":
		return true, true
	}
	return false, false
}

// linkStates are the files of a function's link/ directory, each "0" or
// "1", in the order they are reported (sysfs-bus-pci: clkpm, l0s_aspm,
// l1_aspm, l1_1_aspm, l1_2_aspm, l1_1_pcipm, l1_2_pcipm).
var linkStates = []string{"l0s_aspm", "l1_aspm", "l1_1_aspm", "l1_2_aspm", "l1_1_pcipm", "l1_2_pcipm"}

// LinkASPM is what a PCI function's link/ directory says.
type LinkASPM struct {
	Enabled []string          // the states switched on: "l1_aspm", …
	Files   map[string]string // path -> raw value, of every file read
}

// ReadLinkASPM reads the ASPM states of the link of the function in
// sysfs directory fn (/sys/devices/…/0000:03:00.0). The directory exists
// only with CONFIG_PCIEASPM and for a function whose link ASPM manages;
// none of its files readable is an error wrapping ErrNotAvailable.
func ReadLinkASPM(ctx context.Context, h *machine.Host, fn string) (*LinkASPM, error) {
	l := &LinkASPM{Files: map[string]string{}}
	for _, st := range linkStates {
		p := fn + "/link/" + st
		s, err := h.ReadString(ctx, p)
		if err != nil {
			if ctx.Err() != nil {
				return nil, ctx.Err()
			}
			continue
		}
		l.Files[p] = s
		if s == "1" {
			l.Enabled = append(l.Enabled, st)
		}
	}
	if len(l.Files) == 0 {
		return nil, fmt.Errorf("%s/link/*_aspm: %w", fn, machine.ErrNotAvailable)
	}
	return l, nil
}

// CmdlineValue is the value of the last kernel parameter named key on a
// kernel command line (the kernel's own rule: a later one overrides), and
// whether it is there.
func CmdlineValue(cmdline, key string) (string, bool) {
	val, found := "", false
	for _, arg := range strings.Fields(cmdline) {
		k, v, _ := strings.Cut(arg, "=")
		if k == key {
			val, found = v, true
		}
	}
	return val, found
}
