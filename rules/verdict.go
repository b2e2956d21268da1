package rules

import (
	"maps"
	"slices"
	"strconv"
	"strings"

	"github.com/diskdoctor/diskdoctor/checks"
	"github.com/diskdoctor/diskdoctor/internal/parse"
	"github.com/diskdoctor/diskdoctor/probes/window"
)

// Incomplete is a check that bears on judged devices and could not run on
// them (a program missing, a timeout, no permission): the verdict on those
// devices is not a plain OK, since the question the check asks was never
// answered there.
type Incomplete struct {
	Check    string   `json:"check"`
	Subjects []string `json:"subjects"`
	Reason   string   `json:"reason"`
}

// NotReady is one reason a machine is not ready for a benchmark, with the
// measured quantity that crossed its threshold.
type NotReady struct {
	Reason   string `json:"reason"`
	Measured string `json:"measured"`
	// Rule is the rule that holds before a benchmark, "" for a device
	// busy in the window.
	Rule string `json:"rule,omitempty"`
}

// ContextBenchmark is the --context of a run asked whether the machine is
// ready for a benchmark.
const ContextBenchmark = "benchmark"

// BusyUtilPct is the %util over a window (iostat -x) at which a device is
// busy whatever the run was asked: half the window or more with requests
// in flight.
const BusyUtilPct = 50

// incompleteChecks are the skipped entries that could have been read
// (not NotApplicable: a virtio disk has no SMART, and never will) and name
// judged devices, with only those devices as subjects.
func incompleteChecks(skipped []checks.Skipped, judged map[string]bool) []Incomplete {
	out := []Incomplete{}
	for _, s := range skipped {
		if s.NotApplicable {
			continue
		}
		var subs []string
		for _, n := range s.Subjects {
			if judged[n] && !slices.Contains(subs, n) {
				subs = append(subs, n)
			}
		}
		if len(s.Subjects) == 0 && slices.Contains(everyDeviceChecks, s.CheckName()) {
			subs = slices.Collect(maps.Keys(judged))
		}
		if len(subs) == 0 {
			continue
		}
		slices.SortFunc(subs, func(a, b string) int {
			if parse.NaturalLess(a, b) {
				return -1
			}
			return 1
		})
		out = append(out, Incomplete{Check: s.Check, Subjects: subs, Reason: s.Reason})
	}
	// What guards the data first (the controller's cache and battery, the
	// drives' health, the write cache, the kernel's errors), tuning last:
	// the text names the first.
	slices.SortStableFunc(out, func(a, b Incomplete) int { return incompleteRank(a.Check) - incompleteRank(b.Check) })
	return out
}

// everyDeviceChecks read one source for the whole machine whose answer
// bears on each device: without the kernel log no device's I/O errors,
// resets or timeouts were looked for, so its skipped entry, host-wide,
// leaves every judged device's examination incomplete.
var everyDeviceChecks = []string{"kernel-log"}

// incompleteOrder ranks checks by what their not running hides; a check
// not named here comes after them.
var incompleteOrder = []string{"controller", "smartctl through the controller", "smartctl", "hdparm -W", "kernel-log"}

func incompleteRank(check string) int {
	if i := slices.Index(incompleteOrder, check); i >= 0 {
		return i
	}
	if i := slices.Index(incompleteOrder, checks.Skipped{Check: check}.CheckName()); i >= 0 {
		return i
	}
	return len(incompleteOrder)
}

// incompleteAreas are the areas of the rules (Passed.Area) whose verdict on
// a device rests on a check: when it could not run there, those rules are
// not "checked and fine" on it, whatever other facts they read. A
// controller volume's write cache is the controller's (its cache and
// battery, which only the controller's tool reports). Keyed by the full
// probe first, then by its check name (checks.Skipped.CheckName).
var incompleteAreas = map[string][]string{
	"controller":                      {"controller", "write cache"},
	"smartctl":                        {"SMART"},
	"smartctl through the controller": {"SMART", "controller"},
	"hdparm -W":                       {"write cache"},
	// Get Features 06h is the Volatile Write Cache (NVM Express Base
	// Specification); the kernel's queue/write_cache on an NVMe disk
	// says only that the drive has one (drivers/nvme/host/core.c).
	"nvme get-feature -f 0x06": {"write cache"},
	"nvme":                     {"NVMe power"},
	"kernel-log":               {"kernel log"},
}

// withoutIncomplete takes out of passed the subjects on which a check of
// the rule's area could not run.
func withoutIncomplete(passed []Passed, inc []Incomplete) []Passed {
	if len(inc) == 0 {
		return passed
	}
	blind := map[string]map[string]bool{} // area → subjects
	for _, i := range inc {
		areas, ok := incompleteAreas[i.Check]
		if !ok {
			areas = incompleteAreas[checks.Skipped{Check: i.Check}.CheckName()]
		}
		for _, a := range areas {
			if blind[a] == nil {
				blind[a] = map[string]bool{}
			}
			for _, s := range i.Subjects {
				blind[a][s] = true
			}
		}
	}
	out := passed[:0:0]
	for _, p := range passed {
		var keep []string
		for _, s := range p.Subjects {
			if !blind[p.Area][s] {
				keep = append(keep, s)
			}
		}
		if len(keep) > 0 {
			p.Subjects = keep
			out = append(out, p)
		}
	}
	return out
}

// readinessRule: a rule whose holding means the machine is doing work a
// benchmark would measure too (pressure on a resource, a pool's or an
// array's background work), or whose CPU a benchmark shares with others:
// a guest's vCPUs waiting for the hypervisor (steal, proc(5) /proc/stat)
// stretch every I/O the benchmark times.
func readinessRule(id string) bool {
	return strings.Contains(id, pressureInfix) || strings.HasSuffix(id, "-background-work") || id == "cpu-steal-high"
}

// load is what keeps the machine from idle, whatever the run was asked:
// the devices busy in the window (with --context benchmark any device
// above the noise floor, window.DeviceRates.Active, where bench refuses
// to measure), then each readiness rule that holds, at warning or above,
// as it would before a benchmark (its context set to benchmark: pressure
// rules speak only for servers and benchmarks otherwise). Each names the
// measured quantity that tripped it.
func (e *Engine) load(subs map[string]*subject, order []string, sample *checks.Sample, bench bool) []NotReady {
	out := []NotReady{}
	if sample != nil {
		secs := strconv.FormatFloat(sample.Seconds, 'f', -1, 64)
		// The busiest first, as the text's top process is set against it.
		devs := slices.Clone(sample.Devices)
		slices.SortStableFunc(devs, func(a, b window.DeviceRates) int {
			switch {
			case a.UtilPct > b.UtilPct:
				return -1
			case a.UtilPct < b.UtilPct:
				return 1
			}
			return 0
		})
		for _, d := range devs {
			if d.UtilPct < BusyUtilPct && !(bench && d.Active()) {
				continue
			}
			out = append(out, NotReady{Reason: d.Name + " did I/O in the " + secs + " s window", Measured: DeviceLoad(d)})
		}
	}
	host := subs[checks.KindHost+"/host"]
	if host == nil {
		return out
	}
	benchHost := &subject{name: host.name, kind: host.kind, facts: maps.Clone(host.facts), evidence: host.evidence, ds: host.ds}
	benchHost.facts["context"] = ContextBenchmark
	platform := e.platformOf(host)
	for _, r := range e.Rules {
		if !readinessRule(r.ID) {
			continue
		}
		var hits []hit
		for _, k := range order {
			s := subs[k]
			if !r.appliesTo(s.kind, s.facts) {
				continue
			}
			if s == host {
				s = benchHost
			}
			env := e.env(s, benchHost, platform)
			var st ruleState
			sev, title, score, holds, _ := e.judgeRule(r, s, env, &st)
			if holds && st.strict == nil && sev != Info {
				hits = append(hits, hit{s, benchHost, env, sev, title, score})
			}
		}
		if len(hits) == 0 {
			continue
		}
		// A rule whose title follows its subjects' facts gives one
		// reason per title, as it gives one finding per title.
		for _, hs := range byTitle(hits) {
			var errs evalErrors
			f, err := e.finding(r, hs, platform, &errs)
			if err != nil {
				continue // a strict run reports it where the rule is judged
			}
			reason := f.Title
			if len(reason) > 1 && strings.ToLower(reason[1:2]) == reason[1:2] {
				// "Tasks spend …" reads "tasks spend …" after a colon; "ZFS
				// pool …" keeps its capitals.
				reason = strings.ToLower(reason[:1]) + reason[1:]
			}
			if len(f.Subjects) > 0 && f.Subjects[0] != "host" {
				reason += " on " + strings.Join(f.Subjects, ", ")
			}
			out = append(out, NotReady{Reason: reason, Measured: f.Observed, Rule: r.ID})
		}
	}
	return out
}

// DeviceLoad names a device's load in a window: its %util, then the
// quantities that crossed the noise floor (window.DeviceRates.Above):
// throughput, requests per second (reads and writes apart), as in
// "nvme0n1 0.0 % busy, 78 reads/s".
func DeviceLoad(d window.DeviceRates) string {
	_, mbs, iops := d.Above()
	parts := []string{d.Name + " " + num(d.UtilPct) + " % busy"}
	if mbs {
		if d.RMBs >= 0.05 {
			parts = append(parts, num(d.RMBs)+" MB/s read")
		}
		if d.WMBs >= 0.05 {
			parts = append(parts, num(d.WMBs)+" MB/s written")
		}
	}
	if iops {
		if d.RS >= 0.05 {
			parts = append(parts, rate(d.RS)+" reads/s")
		}
		if d.WS >= 0.05 {
			parts = append(parts, rate(d.WS)+" writes/s")
		}
	}
	return strings.Join(parts, ", ")
}

// num prints a measured figure as iostat does: one decimal, none from 100.
func num(v float64) string {
	if v >= 100 {
		return strconv.FormatFloat(v, 'f', 0, 64)
	}
	return strconv.FormatFloat(v, 'f', 1, 64)
}

// rate prints requests per second: whole from 10 on, as a person counts
// them ("78 reads/s").
func rate(v float64) string {
	if v >= 10 {
		return strconv.FormatFloat(v, 'f', 0, 64)
	}
	return num(v)
}

// judgedDevices are the devices findings may be made about.
func judgedDevices(subs map[string]*subject) map[string]bool {
	out := map[string]bool{}
	for _, s := range subs {
		if s.kind == checks.KindDevice && s.facts[checks.FactJudged] == true && s.facts["nvme_path"] != true {
			out[s.name] = true
		}
	}
	return out
}

// settleReadiness sets Ready and NotReady from the machine's load under
// --context benchmark (nil outside it), and makes a machine that is not
// ready at least a warning: a benchmark now measures the load too.
func (r *Report) settleReadiness(load []NotReady) {
	r.Load = load
	if r.Host.Context != ContextBenchmark {
		return
	}
	ready := len(load) == 0
	r.Ready = &ready
	if !ready {
		r.NotReady = load
		if r.Verdict == VerdictOK {
			r.Verdict = VerdictWarning
		}
	}
}
