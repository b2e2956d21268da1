package report

// --format prometheus: the text exposition format, for node_exporter's
// textfile collector (--output /var/lib/prometheus/node-exporter/diskdoctor.prom,
// written atomically). Every label value comes from a bounded set: rule ids,
// severities, device and pool names, check names, "host". Free text
// (titles, evidence, reasons) never becomes a label.

import (
	"bufio"
	"io"
	"math"
	"sort"
	"strconv"
	"strings"

	"github.com/diskdoctor/diskdoctor/checks"
	"github.com/diskdoctor/diskdoctor/internal/parse"
	"github.com/diskdoctor/diskdoctor/rules"
)

// msPerS: the timestamp is in seconds since the epoch, to the millisecond.
const msPerS = 1000

func init() {
	Register("prometheus", renderPrometheus)
	registerExit("prometheus", prometheusExit)
}

// prometheusExit is the exit status of --format prometheus: 0 once the
// metrics are written, whatever the verdict (it is diskdoctor_verdict), as
// node_exporter's textfile scripts exit; 3 when the machine could not be
// examined or the file not written. A scheduled run then fails only when
// the textfile is stale or says diskdoctor_up 0.
func prometheusExit(code int) int {
	if code == rules.ExitWarning || code == rules.ExitCritical {
		return rules.ExitOK
	}
	return code
}

// promFamily is one metric family: HELP, TYPE and its series, printed in
// one contiguous block as the exposition format requires.
type promFamily struct {
	name, help string
	series     []promSeries
}

type promSeries struct {
	labels []string // name, value, name, value, …
	value  float64
}

func (f *promFamily) add(v float64, labels ...string) {
	f.series = append(f.series, promSeries{labels: labels, value: v})
}

// deviceGauges are the per-device facts that alerting needs, from the
// device facts of the report. A fact that is absent or null (unknown, or
// not applicable to the device) gives no series, so "0" always means an
// observed "no".
var deviceGauges = []struct {
	name, fact, help string
}{
	{"diskdoctor_device_write_cache_enabled", checks.FactWCOn, "Whether the device's volatile write cache is enabled (1) or not (0), as the kernel and the drive report it."},
	{"diskdoctor_device_write_cache_supported", checks.FactWCSupported, "Whether the device has a volatile write cache that can be switched (1) or not (0)."},
	{"diskdoctor_device_pcie_link_speed_gts", checks.FactPCIeCurGTs, "Current PCIe link speed of the device's controller, in GT/s per lane."},
	{"diskdoctor_device_pcie_link_max_speed_gts", checks.FactPCIeMaxGTs, "Maximum PCIe link speed the device's controller supports, in GT/s per lane."},
	{"diskdoctor_device_pcie_link_width", checks.FactPCIeCurWidth, "Current PCIe link width of the device's controller, in lanes."},
	{"diskdoctor_device_pcie_link_max_width", checks.FactPCIeMaxWidth, "Maximum PCIe link width the device's controller supports, in lanes."},
	{"diskdoctor_device_trim_scheduled", checks.FactTrimCovered, "Whether a trim regime (fstrim timer or cron, discard mount option, ZFS autotrim or scheduled trim) covers all the data on the device (1) or not (0)."},
	{"diskdoctor_device_smart_healthy", checks.FactSmartPassed, "Whether the device's SMART overall health self-assessment passed (1) or failed (0)."},
}

// renderPrometheus writes the report as node_exporter textfile metrics.
// The order of families and of series within them is fixed, so that two
// runs on an unchanged machine differ only in the timestamp and duration.
func renderPrometheus(w io.Writer, rep *rules.Report, run RunInfo) error {
	var doc promDoc
	doc.family("diskdoctor_up", "Whether the last run examined the machine and reached a verdict (1) or ended without one (0, exit status 3).").add(1)
	doc.verdict(rep)
	doc.findings(rep)
	doc.devices(rep)
	doc.skipped(rep)
	doc.incomplete(rep)
	doc.family("diskdoctor_last_run_timestamp_seconds", "When this report's run started, in seconds since the Unix epoch.").
		add(float64(run.Start.UnixMilli()) / msPerS)
	doc.family("diskdoctor_run_duration_seconds", "How long the examination took, in seconds.").
		add(run.Duration.Seconds())
	return doc.write(w)
}

// promDoc is the families of one textfile, in the order they are printed.
type promDoc struct{ fams []*promFamily }

func (d *promDoc) family(name, help string) *promFamily {
	f := &promFamily{name: name, help: help}
	d.fams = append(d.fams, f)
	return f
}

// verdict: the exit status, and the number of findings by severity.
func (d *promDoc) verdict(rep *rules.Report) {
	d.family("diskdoctor_verdict", "The doctor's verdict: 0 ok, 1 warning, 2 critical (the exit status).").
		add(float64(rep.ExitCode()))
	counts := map[string]int{}
	for _, f := range rep.Findings {
		counts[f.Severity]++
	}
	byseverity := d.family("diskdoctor_findings", "Number of findings (rules that hold, each over one or more subjects) by severity.")
	for _, sev := range []string{rules.Critical, rules.Warning, rules.Info} {
		byseverity.add(float64(counts[sev]), "severity", sev)
	}
}

// findings: one series per rule, severity and subject.
func (d *promDoc) findings(rep *rules.Report) {
	finding := d.family("diskdoctor_finding", "A finding of the doctor: rule, severity and one subject (device, pool or host) it holds for; always 1. waived=\"true\": the site configuration accepted it, and diskdoctor_verdict and diskdoctor_findings leave it out. See 'diskdoctor explain RULE'.")
	seen := map[string]bool{}
	for _, set := range []struct {
		findings []rules.Finding
		waived   string
	}{{rep.Findings, "false"}, {rep.WaivedFindings, "true"}} {
		for _, f := range set.findings {
			for _, s := range f.Subjects {
				k := f.Rule + "\x00" + f.Severity + "\x00" + s
				if seen[k] {
					continue // a duplicate series would fail the whole scrape
				}
				seen[k] = true
				finding.add(1, "rule", f.Rule, "severity", f.Severity, "subject", s, "waived", set.waived)
			}
		}
	}
	if len(rep.Waivers) == 0 {
		return
	}
	// The site's waivers by state: an expired one means a finding counts
	// again, an unmatched one a waiver that can go.
	waivers := d.family("diskdoctor_waivers", "The site configuration's waivers by state: applied, expired (its until date is past: the finding counts again), unmatched (no such finding).")
	count := map[string]int{}
	for _, w := range rep.Waivers {
		count[w.State]++
	}
	for _, st := range []string{rules.WaiverApplied, rules.WaiverExpired, rules.WaiverUnmatched} {
		waivers.add(float64(count[st]), "state", st)
	}
}

// devices: an info series and the gauges of each judged device.
func (d *promDoc) devices(rep *rules.Report) {
	info := d.family("diskdoctor_device_info", "A device the doctor judged, with its transport and datasheet class; always 1.")
	gauges := make([]*promFamily, len(deviceGauges))
	for i, g := range deviceGauges {
		gauges[i] = d.family(g.name, g.help)
	}
	for _, dev := range rep.Devices {
		name, _ := dev["name"].(string)
		if name == "" || dev[checks.FactJudged] != true {
			continue // virtual devices (loop, zram, dm-*) are not judged: no series, bounded cardinality
		}
		transport, _ := dev[checks.FactTransport].(string)
		class, _ := dev[checks.FactClass].(string)
		info.add(1, "device", name, "transport", transport, "class", class)
		for i, g := range deviceGauges {
			if v, ok := promNumber(dev[g.fact]); ok {
				gauges[i].add(v, "device", name)
			}
		}
	}
}

// skipped: per check and probe, the subjects it could not examine (1 for
// a check skipped as a whole). check is the check or program without
// arguments (smartctl, hdparm, link-power), probe the probe in full (the
// text report's name of it), applicable "false" for what does not exist on
// this machine (no cpufreq in a VM, no SMART on a virtio disk) and "true"
// for what could be read but was not (a tool missing, no permission, a
// timeout): an alert on the first would fire on every VM for good.
func (d *promDoc) skipped(rep *rules.Report) {
	skipped := d.family("diskdoctor_checks_skipped", "Things a check could not examine: the number of subjects skipped, or 1 for a check skipped as a whole; applicable=\"false\" for what this machine does not have. 'diskdoctor' prints the reason and the hint.")
	type key struct{ check, probe, applicable string }
	skips := map[key]int{}
	for _, s := range rep.Skipped {
		n := len(s.Subjects)
		if n == 0 {
			n = 1
		}
		skips[key{s.CheckName(), s.Check, strconv.FormatBool(!s.NotApplicable)}] += n
	}
	for k, n := range skips {
		skipped.add(float64(n), "check", k.check, "probe", k.probe, "applicable", k.applicable)
	}
}

// incomplete: per check that bears on a judged device and could not run
// there, one series per device (bounded: checks times judged devices);
// and, under --context benchmark, whether the machine is ready.
func (d *promDoc) incomplete(rep *rules.Report) {
	inc := d.family("diskdoctor_check_incomplete", "A check that bears on a judged device and could not run on it (a tool missing or not recorded, a timeout, no permission): the verdict on that device is not a plain ok; always 1. 'diskdoctor' prints the reason and the hint.")
	for _, c := range rep.Incomplete {
		for _, s := range c.Subjects {
			inc.add(1, "check", checks.Skipped{Check: c.Check}.CheckName(), "probe", c.Check, "device", s)
		}
	}
	if rep.Ready != nil {
		v := 0.0
		if *rep.Ready {
			v = 1
		}
		d.family("diskdoctor_benchmark_ready", "With --context benchmark: whether the machine is ready for a benchmark (1) or not (0: a device busy in the window, pressure, background work, the hypervisor stealing CPU time; exit status 1).").add(v)
	}
}

// write prints the families in the text exposition format; a family with
// nothing observed is left out, not printed empty.
func (d *promDoc) write(w io.Writer) error {
	bw := bufio.NewWriter(w)
	for _, f := range d.fams {
		if len(f.series) == 0 {
			continue
		}
		sort.SliceStable(f.series, func(i, j int) bool { return labelsLess(f.series[i].labels, f.series[j].labels) })
		bw.WriteString("# HELP " + f.name + " " + escapeHelp(f.help) + "\n")
		bw.WriteString("# TYPE " + f.name + " gauge\n")
		written := map[string]bool{}
		for _, s := range f.series {
			var labels strings.Builder
			if len(s.labels) > 0 {
				labels.WriteByte('{')
				for i := 0; i+1 < len(s.labels); i += 2 {
					if i > 0 {
						labels.WriteByte(',')
					}
					labels.WriteString(s.labels[i] + `="` + escapeLabelValue(s.labels[i+1]) + `"`)
				}
				labels.WriteByte('}')
			}
			// Two names that differ only in bytes the escaping replaces
			// would be one series twice, and a duplicate fails the scrape.
			if written[labels.String()] {
				continue
			}
			written[labels.String()] = true
			bw.WriteString(f.name + labels.String() + " " + formatPromValue(s.value) + "\n")
		}
	}
	return bw.Flush()
}

// promNumber turns a fact into a sample value: booleans are 1 or 0,
// numbers are themselves; anything else (null, text, a list) is unknown.
func promNumber(v any) (float64, bool) {
	switch x := v.(type) {
	case bool:
		if x {
			return 1, true
		}
		return 0, true
	case int:
		return float64(x), true
	case int32:
		return float64(x), true
	case int64:
		return float64(x), true
	case uint:
		return float64(x), true
	case uint32:
		return float64(x), true
	case uint64:
		return float64(x), true
	case float32:
		return float64(x), true
	case float64:
		return x, true
	}
	return 0, false
}

func formatPromValue(v float64) string {
	switch {
	case math.IsNaN(v):
		return "NaN"
	case math.IsInf(v, 1):
		return "+Inf"
	case math.IsInf(v, -1):
		return "-Inf"
	}
	return strconv.FormatFloat(v, 'f', -1, 64)
}

// escapeLabelValue makes a name a label value: the text report's clean on
// each line (bytes that are not UTF-8, control and bidi characters as \xNN
// or \uNNNN text), since node_exporter's parser (prometheus/common expfmt,
// text_parse.go) refuses the whole file for one label value that is not
// valid UTF-8; then the escapes the exposition format requires:
// backslash, double quote and line feed.
func escapeLabelValue(s string) string {
	if needsCleaning(s) {
		s = strings.Join(cleanLines(s), "\n")
	}
	if !strings.ContainsAny(s, "\\\"\n") {
		return s
	}
	return strings.NewReplacer(`\`, `\\`, `"`, `\"`, "\n", `\n`).Replace(s)
}

// escapeHelp escapes a HELP text: backslash and line feed.
func escapeHelp(s string) string {
	return strings.NewReplacer(`\`, `\\`, "\n", `\n`).Replace(s)
}

func labelsLess(a, b []string) bool {
	for i := 0; i < len(a) && i < len(b); i++ {
		if a[i] == b[i] {
			continue
		}
		if i%2 == 1 {
			return parse.NaturalLess(a[i], b[i])
		}
		return a[i] < b[i]
	}
	return len(a) < len(b)
}

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}
