package checks

import (
	"context"
	"errors"
	"fmt"

	"github.com/diskdoctor/diskdoctor/machine"
	"github.com/diskdoctor/diskdoctor/probes/nvmens"
	"github.com/diskdoctor/diskdoctor/probes/smart"
)

func init() {
	Register(Check{Name: "nvme-lbaf", Description: "each NVMe namespace's LBA format in use against the formats it supports, by Relative Performance (nvme id-ns -o json, else smartctl 7.5's lba_formats)", Run: nvmeLBAF})
}

// nvmeLBAF records, per NVMe namespace, its LBA format in use and the
// best-performing format it supports. Many consumer drives ship formatted
// with 512-byte blocks while rating their 4 KiB format better; the
// difference is the drive's own claim (Relative Performance), and taking
// it means reformatting the namespace, which erases it.
func nvmeLBAF(ctx context.Context, env *Env) []*Observation {
	var out []*Observation
	for _, d := range env.Judged(ctx) {
		if d.Transport != "nvme" || len(d.Controllers) == 0 {
			continue
		}
		type result struct {
			ns  *nvmens.Namespace
			src string
		}
		r, err := RunCommand(ctx, env, func(ctx context.Context) (result, error) {
			ns, res, err := nvmens.Read(ctx, env.Host, d.Name)
			return result{ns, res.String()}, err
		})
		line := func(prefix string, f nvmens.LBAF) string {
			return fmt.Sprintf("%slbaf %d: ms %d, ds %d, rp %d", prefix, f.Index, f.MS, f.DS, f.RP)
		}
		inUse := "flbas → "
		if err != nil && (errors.Is(err, machine.ErrNotAvailable) || errors.Is(err, machine.ErrToolMissing)) {
			// smartctl 7.5 and later lists the same formats in its JSON:
			// the second source where nvme-cli is not installed or recorded.
			sr, serr := RunCommand(ctx, env, func(ctx context.Context) (result, error) {
				res, err := env.Host.Run(ctx, smart.Argv(d.Name)...)
				if err != nil {
					return result{}, err
				}
				ns, err := nvmens.ParseSmartctl(res.Stdout, nvmens.NSID(d.Name))
				return result{ns, res.String()}, err
			})
			if serr == nil {
				r, err = sr, nil
				inUse = "formatted: "
				line = func(prefix string, f nvmens.LBAF) string {
					return fmt.Sprintf("%slba_formats[%d]: data_bytes %d, metadata_bytes %d, relative_performance %d", prefix, f.Index, f.Bytes(), f.MS, f.RP)
				}
			}
		}
		if err != nil {
			env.Skip("nvme id-ns", d.Name, withHint(err, "apt-get install nvme-cli (the namespace's LBA formats: nvme id-ns -o json), or smartctl 7.5 or later"))
			continue
		}
		o := NewObservation("nvme-lbaf", KindDevice, d.Name)
		cur := r.ns.InUse
		best, better := r.ns.Best()
		o.Set("nvme_lbaf_in_use", lbafText(cur), Evidence{r.src, line(inUse, cur)})
		o.Set("nvme_lbaf_rp", cur.RP)
		o.Set("nvme_lbaf_best", lbafText(best), Evidence{r.src, line("", best)})
		o.Set("nvme_lbaf_best_index", best.Index)
		o.Set("nvme_lbaf_suboptimal", better)
		out = append(out, o)
	}
	return out
}

// rpNames are the Relative Performance values' names in the NVM Command
// Set specification.
var rpNames = []string{"best", "better", "good", "degraded"}

func lbafText(f nvmens.LBAF) string {
	s := fmt.Sprintf("%d B blocks (lbaf %d, relative performance %d: %s)", f.Bytes(), f.Index, f.RP, rpNames[f.RP])
	if f.MS > 0 {
		s += fmt.Sprintf(", %d B metadata", f.MS)
	}
	return s
}
