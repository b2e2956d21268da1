package checks

import (
	"context"
	"fmt"
	"strconv"
	"strings"

	"github.com/diskdoctor/diskdoctor/probes/hba"
)

func init() {
	Register(Check{Name: "sas-link", Description: "the SAS link of each disk behind a SAS HBA or expander: the negotiated and maximum rate of its port's phys (/sys/class/sas_phy), the end device's protocol, and the phys' error counters", Run: sasLink})
}

// sasLink records, per disk attached through the SAS transport class, the
// rate its link runs at against the rate it could run at. A phy that
// negotiated below its maximum halves or quarters the disk's bandwidth,
// usually for a cable, a backplane connector or an expander port; the
// phys' error counters (invalid dwords, disparity errors, lost dword
// sync, reset problems) point the same way.
func sasLink(ctx context.Context, env *Env) []*Observation {
	var out []*Observation
	for _, d := range env.Judged(ctx) {
		if port, _ := hba.EndDeviceOf(d.SysPath); port == "" {
			continue
		}
		l, err := Probe(ctx, env, func(ctx context.Context) (*hba.Link, error) {
			return hba.ReadLink(ctx, env.Host, d.SysPath)
		})
		if err != nil {
			env.Skip("sas-link", d.Name, err)
			continue
		}
		o := NewObservation("sas-link", KindDevice, d.Name)
		setSASLink(o, l)
		out = append(out, o)
	}
	return out
}

func setSASLink(o *Observation, l *hba.Link) {
	o.Set("sas_end_device", l.EndDevice)
	if l.Protocols != "" {
		o.Set("sas_protocol", l.Protocols, Evidence{l.ProtocolsFile, l.Protocols})
	} else {
		o.Set("sas_protocol", nil)
	}
	var neg, top *float64
	var negEv, maxEv []Evidence
	var desc []string
	var errs uint64
	var errParts []string
	var errEv []Evidence
	for _, p := range l.Phys {
		if p.Negotiated != nil && (neg == nil || *p.Negotiated < *neg) {
			v := *p.Negotiated
			neg = &v
		}
		if p.Maximum != nil && (top == nil || *p.Maximum < *top) {
			v := *p.Maximum
			top = &v
		}
		if p.NegotiatedRaw != "" {
			negEv = append(negEv, Evidence{p.Files["negotiated_linkrate"], p.NegotiatedRaw})
		}
		if p.MaximumRaw != "" {
			maxEv = append(maxEv, Evidence{p.Files["maximum_linkrate"], p.MaximumRaw})
		}
		desc = append(desc, p.Name+" "+orUnknown(p.NegotiatedRaw)+" of "+orUnknown(p.MaximumRaw))
		for _, c := range hba.PhyCounters {
			if v, ok := p.Counters[c]; ok && v > 0 {
				errs += v
				errParts = append(errParts, fmt.Sprintf("%s %s %d", p.Name, c, v))
				errEv = append(errEv, Evidence{p.Files[c], strconv.FormatUint(v, 10)})
			}
		}
	}
	if neg != nil {
		o.Set("sas_link_gbps", *neg, negEv...)
	} else {
		o.Set("sas_link_gbps", nil)
	}
	if top != nil {
		o.Set("sas_link_max_gbps", *top, maxEv...)
	} else {
		o.Set("sas_link_max_gbps", nil)
	}
	o.Set("sas_link_cap_gbps", sasCap(l.Protocols, neg, top))
	o.Set("sas_phys", strings.Join(desc, ", "))
	if len(l.Phys) > 0 {
		o.Set("sas_phy_errors", int64(errs), errEv...)
	} else {
		o.Set("sas_phy_errors", nil)
	}
	o.Set("sas_phy_error_summary", strings.Join(errParts, ", "))
}

// sasCap is the rate the link should run at: the phys' maximum, capped
// at 6 Gbit/s for a SATA disk (SATA's fastest link, whatever the HBA or
// expander can do). A SAS disk's own maximum is not in sysfs: below a
// 12 Gbit/s phy a SAS disk at 6 Gbit/s may be a SAS-2 drive running at its
// best, so it is judged only below 6 Gbit/s (nil: not judged).
func sasCap(protocols string, neg, top *float64) any {
	if top == nil || neg == nil {
		return nil
	}
	c := *top
	switch {
	case strings.Contains(protocols, "sata") || strings.Contains(protocols, "stp"):
		if c > hba.SATAMaxGbps {
			c = hba.SATAMaxGbps
		}
	case *neg >= hba.SATAMaxGbps && c > hba.SATAMaxGbps:
		return nil
	case c > hba.SATAMaxGbps:
		c = hba.SATAMaxGbps
	}
	return c
}

func orUnknown(s string) string {
	if s == "" {
		return "unknown"
	}
	return s
}
