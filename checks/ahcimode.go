package checks

import (
	"context"

	"github.com/diskdoctor/diskdoctor/probes/ahci"
)

func init() {
	Register(Check{Name: "ahci-mode", Description: "each AHCI controller's mode (SATA or RAID) and the NVMe devices Intel RST remapped behind it, from the kernel log", Run: ahciMode})
}

// ahciMode records, per AHCI controller the kernel log names, its mode
// and the NVMe devices the firmware remapped behind it. In Intel RST
// "RAID" (or "Optane") mode the firmware hides the NVMe drives behind the
// SATA controller's PCI function; Linux has no driver for that scheme
// (drivers/ata/ahci.c only counts them), so the disks do not exist for
// it. The subject is the controller's PCI address: there is no disk.
func ahciMode(ctx context.Context, env *Env) []*Observation {
	k, err := env.KernelLog(ctx)
	if err != nil {
		return nil // the kernel-log probe recorded its skipped entry
	}
	var out []*Observation
	for _, c := range ahci.Scan(k) {
		if c.Remapped <= 0 && c.Mode != "RAID" {
			// A controller in SATA (AHCI) mode with nothing hidden:
			// nothing to say, and no controller to list.
			continue
		}
		o := NewObservation("ahci-mode", KindController, c.Address)
		o.Set("ahci_address", c.Address)
		if c.ModeLine != nil {
			o.Set("ahci_mode", c.Mode, klogEv(*c.ModeLine))
		} else {
			o.Set("ahci_mode", nil)
		}
		if c.Remapped >= 0 {
			var ev []Evidence
			for _, l := range c.Lines {
				ev = append(ev, klogEv(l))
			}
			o.Set("ahci_remapped_nvme", c.Remapped, ev...)
		} else {
			// RAID mode without the warning: none remapped on 5.3 and
			// later (the check runs before the mode line is printed,
			// ahci_init_one), but an older kernel never looked.
			o.Set("ahci_remapped_nvme", nil)
		}
		out = append(out, o)
	}
	return out
}
