package rules

import (
	"github.com/diskdoctor/diskdoctor/checks"
	"slices"
)

// Schema is the JSON contract's identifier.
const Schema = "diskdoctor/v1"

// Report is the doctor's answer, as `--format json` prints it.
type Report struct {
	Schema string `json:"schema"`
	Host   Host   `json:"host"`
	// Where is where the machine runs (the JSON "platform" object); nil
	// when nothing could tell.
	Where   *Where `json:"platform,omitempty"`
	Verdict string `json:"verdict"`
	// Incomplete are the checks that bear on judged devices and could not
	// run there: with any, an ok verdict is "ok as far as examined"
	// (docs/output.md), and the exit status stays 0.
	Incomplete []Incomplete `json:"incomplete"`
	// Ready is whether the machine is ready for a benchmark, under
	// --context benchmark (nil otherwise); NotReady says why not, each
	// reason with the quantity measured. Not ready is a warning at least.
	Ready    *bool      `json:"ready"`
	NotReady []NotReady `json:"not_ready,omitempty"`
	// Load is what kept the machine from idle in any context (busy
	// devices, pressure, background work), for a plain run to point to
	// --context benchmark; NotReady under that context.
	Load     []NotReady       `json:"-"`
	Findings []Finding        `json:"findings"`
	Skipped  []checks.Skipped `json:"skipped"`
	// Passed are the rules judged on known facts that did not hold, and
	// on which subjects: what was checked and found fine.
	Passed []Passed `json:"passed"`
	// WaivedFindings are findings the site's configuration accepted
	// (Config's waivers): reported, each with "waived": true, but not
	// counted in the verdict or the exit status.
	WaivedFindings []Finding `json:"waived_findings,omitempty"`
	// Waivers are the site's waivers and what became of each (applied,
	// expired, unmatched); Config is the file they came from.
	Waivers []WaiverState    `json:"waivers,omitempty"`
	Config  string           `json:"config,omitempty"`
	Devices []map[string]any `json:"devices"`
	// Controllers are the RAID controllers the controller check read,
	// with their ctl_ facts (their volumes' facts are on the devices).
	Controllers []map[string]any `json:"controllers,omitempty"`
	Sample      *checks.Sample   `json:"sample,omitempty"` // the measured window, with --sample
}

// Host identifies the examined machine.
type Host struct {
	Hostname string `json:"hostname"`
	Kernel   string `json:"kernel"`
	Root     string `json:"root"`
	Platform string `json:"platform,omitempty"`
	BIOS     string `json:"bios,omitempty"`
	Distro   string `json:"distro,omitempty"`
	Role     string `json:"role,omitempty"`
	// Context is what the run was asked about (--context): "benchmark"
	// makes the verdict a benchmark's (READY / NOT READY).
	Context string `json:"context,omitempty"`
}

// Where is the cloud provider, machine type and hypervisor; a field is
// null when nothing could tell, "" when none is known (provider), "none"
// on bare metal (hypervisor).
type Where struct {
	Provider    *string `json:"provider"`
	MachineType *string `json:"machine_type"`
	Hypervisor  *string `json:"hypervisor"`
}

// whereOf reads the platform check's facts; nil when all are unknown.
func whereOf(facts map[string]any) *Where {
	get := func(k string) *string {
		if v, ok := facts[k].(string); ok {
			return &v
		}
		return nil
	}
	w := &Where{Provider: get("provider"), MachineType: get("machine_type"), Hypervisor: get("vm_hypervisor")}
	if w.Provider == nil && w.MachineType == nil && w.Hypervisor == nil {
		return nil
	}
	return w
}

// Verdicts.
const (
	VerdictOK       = "ok"
	VerdictWarning  = "warning"
	VerdictCritical = "critical"
)

// Exit statuses, Nagios-compatible.
const (
	ExitOK       = 0
	ExitWarning  = 1
	ExitCritical = 2
	ExitUnknown  = 3
)

// Build judges a run and assembles the report; res is left as it was.
func (e *Engine) Build(res *checks.Result, root string) (*Report, error) {
	skipped, sample := append([]checks.Skipped(nil), res.Skipped...), res.Sample
	subs, order := e.subjects(res)
	j, err := e.judge(subs, order)
	if err != nil {
		return nil, err
	}
	findings, ruleErrs, passed := j.findings, j.errs, j.passed
	if e.Datasheets != nil {
		skipped = append(skipped, e.Datasheets.Refused...)
	}
	skipped = append(skipped, e.siteSkipped...)
	if h := subs[checks.KindHost+"/host"]; h != nil && h.facts["cloud_instance_type"] != nil {
		// The site named the instance's type the guest does not show: the
		// checks' "type not in DMI" no longer holds.
		skipped = slices.DeleteFunc(skipped, func(s checks.Skipped) bool { return s.Check == "cloud-instance-cap" })
	}
	r := &Report{Schema: Schema, Findings: findings, Skipped: append(skipped, ruleErrs...), Passed: passed, Verdict: VerdictOK, Sample: sample}
	if r.Findings == nil {
		r.Findings = []Finding{}
	}
	r.WaivedFindings, r.Waivers = j.waived, j.waivers
	if e.Site != nil && e.Site.File != "" {
		r.Config = e.Site.File
	}
	if r.Skipped == nil {
		r.Skipped = []checks.Skipped{}
	}
	for _, f := range findings {
		switch {
		case f.Severity == Critical:
			r.Verdict = VerdictCritical
		case f.Severity == Warning && r.Verdict == VerdictOK:
			r.Verdict = VerdictWarning
		}
	}
	r.Incomplete = incompleteChecks(r.Skipped, judgedDevices(subs))
	r.Passed = withoutIncomplete(r.Passed, r.Incomplete)
	host := subs[checks.KindHost+"/host"]
	r.Host = Host{
		Hostname: str(host.facts["hostname"]), Kernel: str(host.facts["kernel"]), Root: root,
		Platform: str(host.facts["platform"]), Distro: str(host.facts["distro"]), Role: str(host.facts["role"]), Context: str(host.facts["context"]),
	}
	r.Where = whereOf(host.facts)
	if v := str(host.facts["bios_version"]); v != "" {
		r.Host.BIOS = joinSpace(v, str(host.facts["bios_date"]))
	}
	r.settleReadiness(e.load(subs, order, sample, r.Host.Context == ContextBenchmark))
	r.Devices = []map[string]any{}
	for _, k := range order {
		s := subs[k]
		if s.kind == checks.KindController {
			c := s.facts
			c["name"] = s.name
			r.Controllers = append(r.Controllers, c)
			continue
		}
		if s.kind != checks.KindDevice || s.facts["nvme_path"] == true {
			continue
		}
		// The subject's own facts become the device's entry: judging is
		// over, and the rules' environments were copies. A fact named
		// "name" wins over the subject's name.
		d := s.facts
		if _, ok := d["name"]; !ok {
			d["name"] = s.name
		}
		if s.ds != nil {
			ds := map[string]any{"product": s.ds.Product, "source": s.ds.Source, "model_entry": s.ds.ModelEntry}
			if s.ds.ModelEntry {
				// A class default's cache is a guess; a model's
				// datasheet tells a cache that is absent or protected.
				ds["plp"], ds["volatile_cache"] = s.ds.PLP, s.ds.VolatileCache
			}
			d["datasheet"] = ds
		}
		r.Devices = append(r.Devices, d)
	}
	return r, nil
}

// ExitCode maps the verdict to the exit status.
func (r *Report) ExitCode() int {
	switch r.Verdict {
	case VerdictCritical:
		return ExitCritical
	case VerdictWarning:
		return ExitWarning
	}
	return ExitOK
}

func joinSpace(a, b string) string {
	if b == "" {
		return a
	}
	return a + " (" + b + ")"
}
