package bench

import (
	"fmt"
	"slices"
	"sort"

	"github.com/diskdoctor/diskdoctor/rules"
)

// Check is one preflight observation: a doctor finding that applies to the
// target (ID is the rule id) or a benchmark-specific check (ID bench-…).
type Check struct {
	ID       string   `json:"id"`
	Severity string   `json:"severity"`
	Subjects []string `json:"subjects,omitempty"`
	Text     string   `json:"text"`
}

// Preflight is the verdict on whether a benchmark would measure the hardware.
type Preflight struct {
	Verdict string   `json:"verdict"` // ok, warning, critical
	Judged  []string `json:"judged"`  // the devices whose findings apply
	Checks  []Check  `json:"checks"`
	Refused bool     `json:"refused"`
	Forced  bool     `json:"forced,omitempty"`
	// NoSpace: the test file does not fit; --force does not override it.
	NoSpace bool `json:"-"`
	// Buffered: O_DIRECT is not honoured (or --buffered), the run uses buffered I/O.
	Buffered bool `json:"buffered"`
	// Competing is the other processes' I/O on the target's devices during
	// the preflight window; After the same after the last job.
	Competing *Competing `json:"competing_io,omitempty"`
	After     *Competing `json:"competing_io_after,omitempty"`
}

// backgroundRules are findings meaning "the storage is busy with something
// else": the results will be lower than the hardware.
var backgroundRules = map[string]string{
	"zfs-background-work": "a scrub, resilver or trim runs on the pool",
	"md-background-work":  "the RAID array is resyncing, recovering or being checked",
	"io-pressure-high":    "processes are already stalled on I/O",
	"device-saturated":    "the device is already busy",
}

// spaceMargin is kept free beyond the test file(s).
const spaceMargin = 16 * mib

// judge runs the preflight: the doctor's findings on the devices under the
// target (critical ones refuse the run) and the benchmark's own checks.
func judge(rep *rules.Report, pf Facts) Preflight {
	res := Preflight{Verdict: rules.VerdictOK, Judged: append([]string{}, pf.Disks...), Checks: []Check{}}
	res.Checks = append(res.Checks, doctorChecks(rep, pf)...)
	res.Checks = append(res.Checks, fileChecks(pf, &res)...)
	res.Checks = append(res.Checks, spaceChecks(pf, &res)...)
	res.verdict()
	return res
}

func (p *Preflight) verdict() {
	p.Verdict = rules.VerdictOK
	for _, c := range p.Checks {
		switch {
		case c.Severity == rules.Critical:
			p.Verdict = rules.VerdictCritical
		case c.Severity == rules.Warning && p.Verdict == rules.VerdictOK:
			p.Verdict = rules.VerdictWarning
		}
	}
}

// doctorChecks are the doctor's findings whose subjects are under the target.
func doctorChecks(rep *rules.Report, pf Facts) []Check {
	if rep == nil {
		return nil
	}
	relevant := map[string]bool{"host": true}
	for _, d := range pf.Disks {
		relevant[d] = true
	}
	for _, s := range []string{pf.Device, pf.Pool} {
		if s != "" {
			relevant[s] = true
		}
	}
	var out []Check
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
		if why, ok := backgroundRules[f.Rule]; ok {
			text += " — background work: " + why + ", so the figures would be lower than the hardware can do"
		}
		if f.Rule == "cpu-governor-powersave" {
			text += " — latency-bound tests (QD1, sync) will measure the CPU's sleep states"
		}
		out = append(out, Check{ID: f.Rule, Severity: f.Severity, Subjects: subj, Text: text})
	}
	return out
}

// fileChecks are the benchmark's checks of the test file against caches,
// O_DIRECT, compression and memory-backed targets.
func fileChecks(pf Facts, res *Preflight) []Check {
	var out []Check
	warn := func(id, text string) { out = append(out, Check{ID: id, Severity: rules.Warning, Text: text}) }
	if pf.DeviceNote != "" {
		out = append(out, Check{ID: "bench-no-device", Severity: rules.Info, Text: pf.DeviceNote})
	}
	if pf.Memory {
		warn("bench-memory-target", fmt.Sprintf("%s is %s: this is memory, not a disk. Every figure is RAM and CPU speed (also with O_DIRECT, which some kernels accept on tmpfs); benchmark a directory on the disk you mean", pf.Path, pf.FSType))
	}
	if !pf.IsDevice && !pf.Memory && pf.MemTotal > 0 && pf.FileSize < pf.MemTotal {
		warn("bench-file-smaller-than-ram", ramAdvice(pf))
	}
	if pf.ARCMax > 0 && (pf.FSType == "zfs" || pf.Pool != "") && pf.FileSize < pf.ARCMax {
		warn("bench-file-smaller-than-arc", fmt.Sprintf("the test file (%s) is smaller than the ZFS ARC may grow (c_max %s): reads can come from the ARC, which O_DIRECT does not bypass before OpenZFS 2.3", Size(pf.FileSize), Size(pf.ARCMax)))
	}
	if !pf.IsDevice && !pf.DirectOK {
		res.Buffered = true
		warn("bench-direct-io-unsupported", fmt.Sprintf("O_DIRECT is not honoured on %s (%s): falling back to buffered I/O, so reads may come from the page cache, writes from the kernel's write-back, and queue depths above 1 are not real", or(pf.FSType, "this filesystem"), or(pf.DirectErr, "probe failed")))
	}
	if pf.FSType == "zfs" && pf.DirectOK {
		out = append(out, Check{ID: "bench-zfs-direct-io", Severity: rules.Info,
			Text: "ZFS accepts O_DIRECT but before OpenZFS 2.3 (and with direct=disabled) still goes through the ARC: judge reads against the ARC size"})
	}
	if c := pf.Compression; c != "" && c != "off" {
		warn("bench-compression-on", fmt.Sprintf("compression is on (%s): the bench writes incompressible data (fio refill_buffers, buffer_compress_percentage=0; random data for dd) so the figures are the disk's, not the compressor's; zero-filled benchmarks would lie here", c))
	}
	return out
}

// ramAdvice suggests a file twice the RAM; where that does not fit, the
// largest that does when it is still larger than RAM (what keeps reads
// from being served by the page cache), or says that none larger than RAM
// fits.
//
// On a loop device O_DIRECT bypasses only the cache above it: the loop
// driver reads its backing file through the page cache unless it does
// direct I/O itself (drivers/block/loop.c, lo_rw_aio), so there it is
// said that O_DIRECT cannot be relied on.
func ramAdvice(pf Facts) string {
	if pf.Loop != "" && (pf.LoopDirectIO == nil || !*pf.LoopDirectIO) {
		dio := "unless it does direct I/O itself (/sys/block/" + pf.Loop + "/loop/dio)"
		if pf.LoopDirectIO != nil {
			dio = "(its loop/dio is 0)"
		}
		return fmt.Sprintf("the test file (%s) is smaller than RAM (%s), and %s is a loop device: it reads its backing file through the page cache %s, so direct I/O does not keep reads from RAM speed; its figures are the page cache's as much as any disk's", Size(pf.FileSize), Size(pf.MemTotal), pf.Loop, dio)
	}
	text := fmt.Sprintf("the test file (%s) is smaller than RAM (%s): any read the page cache serves is RAM speed, not disk speed; direct I/O bypasses it", Size(pf.FileSize), Size(pf.MemTotal))
	want := roundUpGiB(2 * pf.MemTotal)
	fit := largestFit(pf)
	switch {
	case fit == 0 && pf.DeviceSize > 0 && want > pf.DeviceSize && pf.DeviceSize > pf.MemTotal:
		return text + fmt.Sprintf("; a file twice the RAM does not fit on %s (%s), one larger than RAM may: use the largest --size the free space allows, or rely on O_DIRECT", pf.Device, Size(pf.DeviceSize))
	case fit == 0 && pf.DeviceSize > 0 && want > pf.DeviceSize:
		return text + fmt.Sprintf("; no file larger than RAM fits on %s (%s), so rely on O_DIRECT", pf.Device, Size(pf.DeviceSize))
	case fit == 0 || want <= fit:
		return text + ", but to be sure use --size " + SizeArg(want) + " or more"
	case fit > pf.MemTotal:
		return text + fmt.Sprintf(", but to be sure use --size %s (the largest that fits here, larger than RAM; twice the RAM would not fit)", SizeArg(fit))
	case fit > pf.FileSize:
		return text + fmt.Sprintf("; no file larger than RAM fits here (the largest --size that fits is %s), so rely on O_DIRECT", SizeArg(fit))
	}
	return text + "; no file larger than RAM fits here, so rely on O_DIRECT"
}

// largestFit is the largest --size whose files fit in the free space (0
// when the free space is unknown).
func largestFit(pf Facts) uint64 {
	if pf.Free == 0 || pf.Free <= spaceMargin {
		return 0
	}
	per := uint64(1)
	if pf.FileSize > 0 && pf.NeedSpace >= 2*pf.FileSize {
		per = 2 // dd keeps a random source file beside the test file
	}
	n := (pf.Free - spaceMargin) / per
	return n - n%mib
}

// spaceChecks refuse a file that does not fit (whatever --force says) and
// warn when it leaves the filesystem nearly full.
func spaceChecks(pf Facts, res *Preflight) []Check {
	if pf.IsDevice || pf.Free == 0 {
		return nil
	}
	if pf.Free < pf.NeedSpace+spaceMargin {
		res.NoSpace = true
		text := fmt.Sprintf("%s free, the test needs %s (and keeps %s free): --force does not override this", Size(pf.Free), Size(pf.NeedSpace), Size(spaceMargin))
		if fit := largestFit(pf); fit >= minSize {
			text += "; the largest --size that fits is " + SizeArg(fit)
		} else {
			text += "; no test file fits: choose another place"
		}
		return []Check{{ID: "bench-no-space", Severity: rules.Critical, Text: text}}
	}
	if pf.FSSize > 0 && pf.Free-pf.NeedSpace < pf.FSSize/10 {
		return []Check{{ID: "bench-low-free-space", Severity: rules.Warning,
			Text: fmt.Sprintf("the test leaves less than 10 %% of the filesystem free (%s free of %s): nearly full filesystems and SSDs write slower than they can", Size(pf.Free-pf.NeedSpace), Size(pf.FSSize))}}
	}
	return nil
}

// Refuse says whether the run must stop: critical findings without
// --force, or no room for the test file at all.
func (p *Preflight) Refuse(force bool) bool {
	if p.NoSpace {
		p.Refused = true
		return true
	}
	if p.Verdict == rules.VerdictCritical {
		p.Refused, p.Forced = !force, force
	}
	return p.Refused
}

// Critical names the critical checks, for messages.
func (p *Preflight) Critical() []string {
	var ids []string
	for _, c := range p.Checks {
		if c.Severity == rules.Critical {
			ids = append(ids, c.ID)
		}
	}
	return ids
}

// Has says whether a check of this id is present.
func (p *Preflight) Has(id string) bool {
	return slices.ContainsFunc(p.Checks, func(c Check) bool { return c.ID == id })
}

func roundUpGiB(n uint64) uint64 { return (n + (1<<30 - 1)) &^ (1<<30 - 1) }

func contains(xs []string, x string) bool { return slices.Contains(xs, x) }

func sortStrings(xs []string) { sort.Strings(xs) }
