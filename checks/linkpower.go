package checks

import (
	"context"
	"errors"

	"github.com/diskdoctor/diskdoctor/machine"
	"github.com/diskdoctor/diskdoctor/probes/scsihost"
)

func init() {
	Register(Check{Name: "link-power", Description: "the SATA link power management policy of each SATA disk's host (link_power_management_policy)", Run: linkPower})
}

// errNoPolicy: the host has no policy file. libata adds it only for
// drivers that implement LPM (ahci's shost attributes,
// drivers/ata/libata-sata.c); one reason for every such disk, so that the
// skipped entry lists them together.
var errNoPolicy error = notAvailable("/sys/class/scsi_host/host<N>/link_power_management_policy is absent")

func lpmErr(err error) error {
	if errors.Is(err, machine.ErrNotAvailable) {
		return withHint(errNoPolicy, "the port's driver offers no link power management (not ahci), or the recording lacks the file; the policy is then unknown, not max_performance")
	}
	return err
}

// errNoHost: the disk's resolved path names no SCSI host, so there is no
// policy file to read.
var errNoHost error = notAvailable("no SCSI host in the disk's sysfs path")

// linkPower records, per SATA disk, the link power management policy of
// the libata port (SCSI host) it hangs off. Since Linux 6.11 the default
// for many AHCI controllers is med_power_with_dipm (CONFIG_SATA_MOBILE_LPM_POLICY
// default 3, drivers/ata/Kconfig), and drives that fail in Partial or
// Slumber do so with link errors the kernel log blames on nothing in
// particular; libata-core.c keeps a list of them (ATA_QUIRK_NOLPM,
// ATA_HORKAGE_NOLPM before 6.13).
func linkPower(ctx context.Context, env *Env) []*Observation {
	type result struct {
		policy string
		err    error
	}
	byHost := map[string]result{} // a port multiplier's disks share one host
	var out []*Observation
	for _, d := range env.Judged(ctx) {
		if d.Transport != "sata" {
			continue
		}
		o := NewObservation("link-power", KindDevice, d.Name)
		host := scsihost.HostOf(d.SysPath)
		if host == "" {
			o.Set("lpm_host", nil)
			setLPMUnknown(o)
			env.Skip("link-power", d.Name, withHint(errNoHost, "the disk's link power policy is in /sys/class/scsi_host/host<N>/link_power_management_policy of the libata port it is on"))
			out = append(out, o)
			continue
		}
		r, seen := byHost[host]
		if !seen {
			r.policy, r.err = Probe(ctx, env, func(ctx context.Context) (string, error) {
				return scsihost.ReadPolicy(ctx, env.Host, host)
			})
			byHost[host] = r
		}
		o.Set("lpm_host", host)
		if r.err != nil {
			setLPMUnknown(o)
			env.Skip("link-power", d.Name, lpmErr(r.err))
			out = append(out, o)
			continue
		}
		setLPM(o, host, r.policy)
		out = append(out, o)
	}
	return out
}

// setLPM sets the policy read and whether it saves power; a value that is
// not one of the kernel's names is recorded but saves nothing known.
func setLPM(o *Observation, host, policy string) {
	o.Set("lpm_policy", policy, Evidence{scsihost.PolicyPath(host), policy})
	if saving, ok := scsihost.Saving(policy); ok {
		o.Set("lpm_saving", saving)
	} else {
		o.Set("lpm_saving", nil)
	}
}

// setLPMUnknown: the policy could not be read (unknown is not absent).
func setLPMUnknown(o *Observation) {
	o.Set("lpm_policy", nil)
	o.Set("lpm_saving", nil)
}
