package main

import (
	"fmt"
	"strings"

	"github.com/diskdoctor/diskdoctor/rules"
)

// benchCheck is one preflight observation: a doctor finding that applies
// to the target (ID is the rule id) or a benchmark-specific check (ID
// bench-…).
type benchCheck struct {
	ID       string   `json:"id"`
	Severity string   `json:"severity"`
	Subjects []string `json:"subjects,omitempty"`
	Text     string   `json:"text"`
}

type benchPreflightResult struct {
	Verdict string       `json:"verdict"` // ok, warning, critical
	Judged  []string     `json:"judged"`  // the devices whose findings apply
	Checks  []benchCheck `json:"checks"`
	Refused bool         `json:"refused"`
	Forced  bool         `json:"forced,omitempty"`
	NoSpace bool         `json:"-"`
	// Buffered: O_DIRECT is not honoured, the run falls back to buffered I/O.
	Buffered bool `json:"buffered"`
}

// benchBackgroundRules are findings meaning "the storage is busy with
// something else": the results will be lower than the hardware.
var benchBackgroundRules = map[string]string{
	"zfs-background-work": "a scrub, resilver or trim runs on the pool",
	"md-background-work":  "the RAID array is resyncing, recovering or being checked",
	"io-pressure-high":    "processes are already stalled on I/O",
	"device-saturated":    "the device is already busy",
}

// benchPreflight judges whether a benchmark on the target would measure the
// hardware: the doctor's findings on the devices under it (critical ones
// refuse the run) and the benchmark's own checks.
func benchPreflight(rep *rules.Report, pf benchPathFacts) benchPreflightResult {
	res := benchPreflightResult{Verdict: rules.VerdictOK, Judged: append([]string{}, pf.Disks...), Checks: []benchCheck{}}
	relevant := map[string]bool{"host": true}
	for _, d := range pf.Disks {
		relevant[d] = true
	}
	if pf.Device != "" {
		relevant[pf.Device] = true
	}
	if pf.Pool != "" {
		relevant[pf.Pool] = true
	}
	if rep != nil {
		for _, f := range rep.Findings {
			var subj []string
			for _, s := range f.Subjects {
				if relevant[s] {
					subj = append(subj, s)
				}
			}
			if len(subj) == 0 {
				continue
			}
			text := f.Title
			if why, ok := benchBackgroundRules[f.Rule]; ok {
				text += " — background work: " + why + ", so the figures would be lower than the hardware can do"
			}
			if f.Rule == "cpu-governor-powersave" {
				text += " — latency-bound tests (QD1, sync) will measure the CPU's sleep states"
			}
			res.Checks = append(res.Checks, benchCheck{ID: f.Rule, Severity: f.Severity, Subjects: subj, Text: text})
		}
	}
	warn := func(id, text string) {
		res.Checks = append(res.Checks, benchCheck{ID: id, Severity: rules.Warning, Text: text})
	}
	if pf.DeviceNote != "" {
		res.Checks = append(res.Checks, benchCheck{ID: "bench-no-device", Severity: rules.Info, Text: pf.DeviceNote})
	}
	if !pf.IsDevice && pf.MemTotal > 0 && pf.FileSize < pf.MemTotal {
		warn("bench-file-smaller-than-ram", fmt.Sprintf("the test file (%s) is smaller than RAM (%s): any read the page cache serves is RAM speed, not disk speed; "+
			"direct I/O bypasses it, but to be sure use --size %s or more", benchBytes(pf.FileSize), benchBytes(pf.MemTotal), benchBytes(benchRoundUpGiB(2*pf.MemTotal))))
	}
	if pf.ARCMax > 0 && (pf.FSType == "zfs" || pf.Pool != "") && pf.FileSize < pf.ARCMax {
		warn("bench-file-smaller-than-arc", fmt.Sprintf("the test file (%s) is smaller than the ZFS ARC may grow (c_max %s): reads can come from the ARC, which O_DIRECT does not bypass before OpenZFS 2.3", benchBytes(pf.FileSize), benchBytes(pf.ARCMax)))
	}
	if !pf.IsDevice && !pf.DirectOK {
		res.Buffered = true
		warn("bench-direct-io-unsupported", fmt.Sprintf("O_DIRECT is not honoured on %s (%s): falling back to buffered I/O, so reads may come from the page cache, writes from the kernel's write-back, and queue depths above 1 are not real", benchOr(pf.FSType, "this filesystem"), benchOr(pf.DirectErr, "probe failed")))
	}
	if pf.FSType == "zfs" && pf.DirectOK {
		res.Checks = append(res.Checks, benchCheck{ID: "bench-zfs-direct-io", Severity: rules.Info,
			Text: "ZFS accepts O_DIRECT but before OpenZFS 2.3 (and with direct=disabled) still goes through the ARC: judge reads against the ARC size"})
	}
	if c := pf.Compression; c != "" && c != "off" {
		warn("bench-compression-on", fmt.Sprintf("compression is on (%s): the bench writes incompressible data (fio refill_buffers, buffer_compress_percentage=0; random data for dd) so the figures are the disk's, not the compressor's; zero-filled benchmarks would lie here", c))
	}
	if pf.Free > 0 && pf.Free < pf.NeedSpace+(16<<20) {
		res.NoSpace = true
		res.Checks = append(res.Checks, benchCheck{ID: "bench-no-space", Severity: rules.Critical,
			Text: fmt.Sprintf("%s free, the test needs %s: choose a smaller --size or another place", benchBytes(pf.Free), benchBytes(pf.NeedSpace))})
	} else if !pf.IsDevice && pf.FSSize > 0 && pf.Free-pf.NeedSpace < pf.FSSize/10 {
		warn("bench-low-free-space", fmt.Sprintf("the test leaves less than 10 %% of the filesystem free (%s free of %s): nearly full filesystems and SSDs write slower than they can", benchBytes(pf.Free-pf.NeedSpace), benchBytes(pf.FSSize)))
	}
	for _, c := range res.Checks {
		switch {
		case c.Severity == rules.Critical:
			res.Verdict = rules.VerdictCritical
		case c.Severity == rules.Warning && res.Verdict == rules.VerdictOK:
			res.Verdict = rules.VerdictWarning
		}
	}
	return res
}

// refused says whether the run must stop: critical findings without
// --force, or no room for the test file at all.
func (p *benchPreflightResult) refused(force bool) bool {
	if p.NoSpace {
		p.Refused = true
		return true
	}
	if p.Verdict == rules.VerdictCritical {
		p.Refused, p.Forced = !force, force
	}
	return p.Refused
}

// critical names the critical checks, for messages.
func (p *benchPreflightResult) critical() []string {
	var ids []string
	for _, c := range p.Checks {
		if c.Severity == rules.Critical {
			ids = append(ids, c.ID)
		}
	}
	return ids
}

func (p *benchPreflightResult) has(id string) bool {
	for _, c := range p.Checks {
		if c.ID == id {
			return true
		}
	}
	return false
}

func benchRoundUpGiB(n uint64) uint64 { return (n + (1<<30 - 1)) &^ (1<<30 - 1) }

// benchBytes prints a size in binary units, as --size takes it.
func benchBytes(n uint64) string {
	units := []string{"B", "KiB", "MiB", "GiB", "TiB", "PiB"}
	f := float64(n)
	i := 0
	for f >= 1024 && i < len(units)-1 {
		f /= 1024
		i++
	}
	if f == float64(int64(f)) || f >= 100 {
		return fmt.Sprintf("%.0f%s", f, units[i])
	}
	return strings.TrimSuffix(fmt.Sprintf("%.1f", f), ".0") + units[i]
}
