// Package diff compares two states of a machine: each side (a snapshot
// archive, a recorded machine directory, or "live") is examined by
// doctor.Run exactly as the doctor examines a machine, and the facts that
// matter for storage and the findings are compared.
package diff

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"reflect"
	"sort"
	"strconv"
	"strings"

	"github.com/mattn/go-runewidth"

	"github.com/diskdoctor/diskdoctor/checks"
	"github.com/diskdoctor/diskdoctor/doctor"
	"github.com/diskdoctor/diskdoctor/internal/parse"
	"github.com/diskdoctor/diskdoctor/machine"
	"github.com/diskdoctor/diskdoctor/probes/mount"
	"github.com/diskdoctor/diskdoctor/report"
	"github.com/diskdoctor/diskdoctor/rules"
	"github.com/diskdoctor/diskdoctor/snapshot"
)

// Options say how each side is examined: ProbeTimeout, Datasheets and
// Context as for the doctor itself (Host, Root and Snapshot are ignored:
// the sides name the machines).
type Options = doctor.Options

// Schema identifies diff's JSON.
const Schema = "diskdoctor-diff/v1"

// Diff is what changed between two states of a machine.
type Diff struct {
	Schema   string         `json:"schema"`
	Old      Side           `json:"old"`
	New      Side           `json:"new"`
	Changes  []FactChange   `json:"changes"`
	Findings FindingChanges `json:"findings"`
	// Worse: a finding appeared or got more severe.
	Worse bool `json:"worse"`
}

// Side names one side.
type Side struct {
	Source   string `json:"source"`
	Kernel   string `json:"kernel"`
	Verdict  string `json:"verdict"`
	Redacted bool   `json:"redacted,omitempty"`
	Created  string `json:"created,omitempty"`
}

// FactChange is one fact of one subject ("host", a device, a mount point).
type FactChange struct {
	Subject string `json:"subject"`
	Fact    string `json:"fact"`
	Label   string `json:"label"`
	Old     any    `json:"old"`
	New     any    `json:"new"`
	// Kind: changed, added, removed (a device or mount present on one side
	// only), grew (a counter that only should stay flat).
	Kind string `json:"kind"`
}

// FindingChanges lists findings by (rule, subject).
type FindingChanges struct {
	Appeared []FindingRef      `json:"appeared"`
	Resolved []FindingRef      `json:"resolved"`
	Changed  []SeverityChanged `json:"severity_changed"`
}

// FindingRef is one rule's finding about one subject.
type FindingRef struct {
	Rule     string `json:"rule"`
	Severity string `json:"severity"`
	Subject  string `json:"subject"`
	Title    string `json:"title"`
}

// SeverityChanged is a finding present on both sides at another severity.
type SeverityChanged struct {
	Rule    string `json:"rule"`
	Subject string `json:"subject"`
	Old     string `json:"old"`
	New     string `json:"new"`
	Title   string `json:"title"`
}

// state is one examined side.
type state struct {
	side   Side
	report *rules.Report
	host   map[string]any // host observations' facts
	mounts []mount.Mount
}

// Sides examines two states of a machine, each a snapshot archive, a
// recorded machine directory or "live", and compares them.
func Sides(ctx context.Context, oldSpec, newSpec string, o Options) (*Diff, error) {
	a, err := examineSide(ctx, oldSpec, o)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", oldSpec, err)
	}
	b, err := examineSide(ctx, newSpec, o)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", newSpec, err)
	}
	return compare(a, b), nil
}

// examineSide opens a side (live, a directory, or a snapshot archive) and
// runs the doctor on it.
func examineSide(ctx context.Context, spec string, o Options) (*state, error) {
	s := &state{side: Side{Source: spec}}
	host, cleanup, err := s.open(ctx, spec)
	if err != nil {
		return nil, err
	}
	defer cleanup()
	o.Label = spec
	run, err := doctor.Run(ctx, host, o)
	if err != nil {
		return nil, err
	}
	s.report = run.Report
	s.host = map[string]any{}
	for _, ob := range run.Checks.Observations {
		if ob.Kind == checks.KindHost {
			for _, f := range ob.Facts() {
				s.host[f.Name] = f.Value
			}
		}
	}
	mctx, cancel := context.WithTimeout(ctx, o.ProbeTimeoutOrDefault())
	s.mounts, _ = mount.Read(mctx, host)
	cancel()
	s.side.Kernel, s.side.Verdict = s.report.Host.Kernel, s.report.Verdict
	return s, nil
}

// open makes a Host of a side: the live machine, a recorded directory, or
// a snapshot archive unpacked into a private directory that cleanup
// removes (doctor.Open), with the recording's meta file read.
func (s *state) open(ctx context.Context, spec string) (*machine.Host, func(), error) {
	o := doctor.Options{Root: spec}
	if spec == "live" {
		o.Root = ""
	} else if dir, err := machine.IsDir(spec); err != nil {
		return nil, nil, err
	} else if !dir {
		o = doctor.Options{Snapshot: spec}
	}
	h, _, cleanup, err := doctor.Open(ctx, o)
	if err != nil {
		return nil, nil, err
	}
	if spec != "live" {
		s.readMeta(ctx, h)
	}
	return h, cleanup, nil
}

func (s *state) readMeta(ctx context.Context, h *machine.Host) {
	if m, err := snapshot.ReadMeta(ctx, h); err == nil && m != nil {
		s.side.Redacted, s.side.Created = m.Redacted, m.Created
	}
}

// fact is one compared fact: its key and how a person reads it.
type fact struct{ key, label string }

// hostFacts are compared from the report's host and the host checks.
// Not compared: hostname (redacted in snapshots), CPU clock averages and
// the share of cores at their minimum (they move from one second to the
// next), pressure averages (a load measurement, not configuration).
var hostFacts = []fact{
	{"kernel", "kernel"},
	{"bios", "BIOS"},
	{"platform", "platform"},
	{"distro", "distribution"},
	{"governor", "CPU governor"},
	{"scaling_driver", "CPU frequency driver"},
	{"pstate_status", "intel_pstate mode"},
	{"cstate_limits", "C-state limits (cmdline)"},
	{"cpu_model", "CPU model"},
	{"cpus", "CPUs with cpufreq"},
	{"cpu_min_mhz", "CPU minimum MHz"},
	{"cpu_max_mhz", "CPU maximum MHz"},
}

// deviceFacts are compared per device. Derived facts (wc_on, pcie_fraction,
// pcie_link, trim_covered...) are left out: they change exactly when one of
// these does. Identity facts that redaction rewrites (serial, WWN, by-id
// links) are left out too; a replaced drive shows as a model, firmware or
// size change.
var deviceFacts = []fact{
	{"model", "model"},
	{"firmware", "firmware"},
	{"transport", "transport"},
	{"size_bytes", "size (bytes)"},
	{"rotational", "rotational"},
	{"controller_driver", "controller driver"},
	{"scheduler", "I/O scheduler"},
	{"wc_kernel_on", "write cache, kernel view (queue/write_cache)"},
	{"wc_scsi_cache_type", "write cache, SCSI cache_type"},
	{"wc_drive_enabled", "write cache, drive's own state"},
	{"wc_persistence", "write cache re-enabled at boot by"},
	{"pcie_cur_gts", "PCIe link speed (GT/s)"},
	{"pcie_cur_width", "PCIe link width"},
	{"pcie_max_gts", "PCIe maximum speed (GT/s)"},
	{"pcie_max_width", "PCIe maximum width"},
	{"trim_supported", "TRIM accepted"},
	{"trim_regimes", "trim regime"},
	{"mountpoints", "mount points"},
	{"zfs_pools", "ZFS pools"},
	// A controller volume's caches are its controller's (issue #23).
	{"ctl_cache_state", "controller cache state"},
	{"ctl_energy_status", "controller battery or capacitor"},
	{"ctl_policy_current", "volume write policy, current"},
	{"ctl_drive_cache", "drive caches behind the controller"},
	{"ctl_volume_status", "logical drive status"},
}

func compare(a, b *state) *Diff {
	d := &Diff{Schema: Schema, Old: a.side, New: b.side, Changes: []FactChange{}}
	ah, bh := hostView(a), hostView(b)
	for _, f := range hostFacts {
		d.change("host", f, ah[f.key], bh[f.key])
	}
	ad, bd := devicesByName(a.report), devicesByName(b.report)
	for _, name := range unionKeys(ad, bd) {
		x, okA := ad[name]
		y, okB := bd[name]
		switch {
		case !okA:
			d.Changes = append(d.Changes, FactChange{Subject: name, Fact: "device", Label: "device", New: describeDevice(y), Kind: "added"})
			continue
		case !okB:
			d.Changes = append(d.Changes, FactChange{Subject: name, Fact: "device", Label: "device", Old: describeDevice(x), Kind: "removed"})
			continue
		}
		for _, f := range deviceFacts {
			d.change(name, f, x[f.key], y[f.key])
		}
		// SMART: every smart_* fact the SMART check observed; a counter
		// that only ever grows on a sick drive is listed as grew.
		keys := unionKeys(x, y)
		sort.Strings(keys)
		for _, k := range keys {
			if !strings.HasPrefix(k, "smart_") || smartIgnored[k] {
				continue
			}
			f := fact{k, "SMART " + strings.ReplaceAll(strings.TrimPrefix(k, "smart_"), "_", " ")}
			xv, xok := rules.ToFloat(x[k])
			yv, yok := rules.ToFloat(y[k])
			if xok && yok && yv > xv && isSmartCounter(k) {
				d.Changes = append(d.Changes, FactChange{Subject: name, Fact: k, Label: f.label, Old: x[k], New: y[k], Kind: "grew"})
				continue
			}
			d.change(name, f, x[k], y[k])
		}
	}
	d.compareMounts(a, b)
	d.compareFindings(a.report, b.report)
	return d
}

// smartIgnored are SMART facts that change without meaning anything: the
// power-on clock, the temperature now, and free-text notes.
var smartIgnored = map[string]bool{"smart_power_on_hours": true, "smart_temp_c": true, "smart_notes": true}

// isSmartCounter: error and wear counters, whose growth is the news.
func isSmartCounter(k string) bool {
	for _, s := range []string{"_errors", "_entries", "_shutdowns", "_defects", "_uncorrected", "_used_pct", "_reallocated", "_pending", "_crc"} {
		if strings.HasSuffix(k, s) {
			return true
		}
	}
	return false
}

func (d *Diff) change(subject string, f fact, old, nw any) {
	if equalFact(old, nw) {
		return
	}
	d.Changes = append(d.Changes, FactChange{Subject: subject, Fact: f.key, Label: f.label, Old: old, New: nw, Kind: "changed"})
}

func hostView(s *state) map[string]any {
	m := map[string]any{
		"kernel": s.report.Host.Kernel, "bios": s.report.Host.BIOS, "platform": s.report.Host.Platform, "distro": s.report.Host.Distro,
	}
	for _, f := range hostFacts {
		if v, ok := s.host[f.key]; ok {
			if _, set := m[f.key]; !set {
				m[f.key] = v
			}
		}
	}
	return m
}

func devicesByName(r *rules.Report) map[string]map[string]any {
	out := map[string]map[string]any{}
	for _, d := range r.Devices {
		if name, _ := d["name"].(string); name != "" {
			out[name] = d
		}
	}
	return out
}

func describeDevice(d map[string]any) string {
	return strings.TrimSpace(fmt.Sprintf("%v %v %v", valueText(d["model"]), valueText(d["transport"]), valueText(d["size_bytes"])))
}

// mountKey identifies a mount by its mount point; only mounts of block
// devices (a /dev source) are compared, not the dozens of virtual ones.
func (d *Diff) compareMounts(a, b *state) {
	am, bm := mountsByPoint(a.mounts), mountsByPoint(b.mounts)
	for _, mp := range unionKeys(am, bm) {
		x, okA := am[mp]
		y, okB := bm[mp]
		subject := "mount " + mp
		switch {
		case !okA:
			d.Changes = append(d.Changes, FactChange{Subject: subject, Fact: "mount", Label: "mounted", New: y.FSType + " " + mountOptions(y), Kind: "added"})
		case !okB:
			d.Changes = append(d.Changes, FactChange{Subject: subject, Fact: "mount", Label: "mounted", Old: x.FSType + " " + mountOptions(x), Kind: "removed"})
		default:
			d.change(subject, fact{"fstype", "filesystem"}, x.FSType, y.FSType)
			d.change(subject, fact{"options", "mount options"}, mountOptions(x), mountOptions(y))
		}
	}
}

func mountsByPoint(ms []mount.Mount) map[string]mount.Mount {
	out := map[string]mount.Mount{}
	for _, m := range ms {
		if strings.HasPrefix(m.Source, "/dev/") {
			out[m.MountPoint] = m
		}
	}
	return out
}

func mountOptions(m mount.Mount) string {
	keys := make([]string, 0, len(m.Options))
	for k := range m.Options {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for i, k := range keys {
		if v := m.Options[k]; v != "" {
			keys[i] = k + "=" + v
		}
	}
	return strings.Join(keys, ",")
}

func (d *Diff) compareFindings(a, b *rules.Report) {
	type key struct{ rule, subject string }
	flatten := func(r *rules.Report) (map[key]FindingRef, []key) {
		m := map[key]FindingRef{}
		var order []key
		for _, f := range r.Findings {
			for _, s := range f.Subjects {
				k := key{f.Rule, s}
				if old, ok := m[k]; ok && rules.SeverityRank(old.Severity) >= rules.SeverityRank(string(f.Severity)) {
					continue
				}
				if _, ok := m[k]; !ok {
					order = append(order, k)
				}
				m[k] = FindingRef{Rule: f.Rule, Severity: string(f.Severity), Subject: s, Title: f.Title}
			}
		}
		return m, order
	}
	am, aOrder := flatten(a)
	bm, bOrder := flatten(b)
	fc := FindingChanges{Appeared: []FindingRef{}, Resolved: []FindingRef{}, Changed: []SeverityChanged{}}
	for _, k := range bOrder {
		y := bm[k]
		x, ok := am[k]
		switch {
		case !ok:
			fc.Appeared = append(fc.Appeared, y)
			d.Worse = true
		case x.Severity != y.Severity:
			fc.Changed = append(fc.Changed, SeverityChanged{Rule: k.rule, Subject: k.subject, Old: x.Severity, New: y.Severity, Title: y.Title})
			if rules.SeverityRank(y.Severity) > rules.SeverityRank(x.Severity) {
				d.Worse = true
			}
		}
	}
	for _, k := range aOrder {
		if _, ok := bm[k]; !ok {
			fc.Resolved = append(fc.Resolved, am[k])
		}
	}
	d.Findings = fc
}

func equalFact(a, b any) bool {
	if x, ok := rules.ToFloat(a); ok {
		if y, ok := rules.ToFloat(b); ok {
			return x == y
		}
	}
	return reflect.DeepEqual(normalize(a), normalize(b))
}

// normalize makes an empty list and null compare equal, and lists of any
// and of strings alike.
func normalize(v any) any {
	rv := reflect.ValueOf(v)
	if v == nil || (rv.Kind() == reflect.Slice && rv.Len() == 0) {
		return nil
	}
	if rv.Kind() == reflect.Slice {
		out := make([]string, rv.Len())
		for i := range out {
			out[i] = valueText(rv.Index(i).Interface())
		}
		return out
	}
	return v
}

func unionKeys[V any](a, b map[string]V) []string {
	seen := map[string]bool{}
	var out []string
	for _, m := range []map[string]V{a, b} {
		for k := range m {
			if !seen[k] {
				seen[k] = true
				out = append(out, k)
			}
		}
	}
	sort.Slice(out, func(i, j int) bool { return parse.NaturalLess(out[i], out[j]) })
	return out
}

// valueText renders a fact for people: write back / on / x4 where it helps.
func valueText(v any) string {
	switch x := v.(type) {
	case nil:
		return "unknown"
	case string:
		if x == "" {
			return `""`
		}
		return x
	case bool:
		if x {
			return "yes"
		}
		return "no"
	case float64:
		return strconv.FormatFloat(x, 'f', -1, 64)
	}
	rv := reflect.ValueOf(v)
	if rv.Kind() == reflect.Slice {
		if rv.Len() == 0 {
			return "none"
		}
		parts := make([]string, rv.Len())
		for i := range parts {
			parts[i] = valueText(rv.Index(i).Interface())
		}
		return strings.Join(parts, "; ")
	}
	return fmt.Sprint(v)
}

// factText renders a change's value with the words of its fact.
func factText(c FactChange, v any) string {
	b, isBool := v.(bool)
	switch {
	case c.Fact == "wc_kernel_on" && isBool:
		if b {
			return "write back"
		}
		return "write through"
	case c.Fact == "wc_drive_enabled" && isBool:
		if b {
			return "on"
		}
		return "off"
	case (c.Fact == "pcie_cur_width" || c.Fact == "pcie_max_width") && v != nil:
		return "x" + valueText(v)
	}
	return valueText(v)
}

// WriteJSON writes the diff as the diskdoctor-diff/v1 object, indented.
func (d *Diff) WriteJSON(w io.Writer) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(d)
}

// WriteText prints the comparison for a person, laid out for width
// columns (report.DefaultWidth when 0): every line wrapped at word
// boundaries with a hanging indent, a word longer than a line cut only
// when nothing else fits (report.Wrap).
func (d *Diff) WriteText(w io.Writer, width int) {
	if width <= 0 {
		width = report.DefaultWidth
	}
	para := func(text string, indent int) {
		for _, l := range report.Wrap(text, width, 0, indent) {
			fmt.Fprintln(w, l)
		}
	}
	para(fmt.Sprintf("diskdoctor diff — %s → %s", d.Old.Source, d.New.Source), 2)
	verdict := "NO CHANGE"
	switch {
	case d.Worse:
		verdict = "WORSE"
	case len(d.Findings.Resolved) > 0 || len(d.Findings.Changed) > 0:
		verdict = "BETTER"
	case len(d.Changes) > 0:
		verdict = "CHANGED, NO NEW FINDING"
	}
	para(fmt.Sprintf("%s: %d facts changed, %d findings appeared, %d resolved, %d changed severity (verdict %s → %s)",
		verdict, len(d.Changes), len(d.Findings.Appeared), len(d.Findings.Resolved), len(d.Findings.Changed), d.Old.Verdict, d.New.Verdict), 2)
	if d.Old.Redacted != d.New.Redacted {
		para("note: one side is redacted, the other not; identity facts (serials, WWNs, by-id) are not compared anyway", 2)
	}
	fmt.Fprintln(w)
	if len(d.Changes) == 0 {
		fmt.Fprintln(w, "Facts: no change")
	} else {
		fmt.Fprintln(w, "Facts:")
		writeFacts(w, d.Changes, width)
	}
	fmt.Fprintln(w)
	section := func(title string, n int) bool {
		if n == 0 {
			fmt.Fprintf(w, "%s: none\n", title)
			return false
		}
		fmt.Fprintf(w, "%s:\n", title)
		return true
	}
	// A finding's line: its mark and severity, then the title wrapped
	// under the title's column.
	finding := func(mark, severity, rest string) {
		head := fmt.Sprintf("  %s %-8s ", mark, severity)
		lines := report.Wrap(rest, width, len(head), len(head))
		fmt.Fprintln(w, head+lines[0])
		for _, l := range lines[1:] {
			fmt.Fprintln(w, l)
		}
	}
	if section("Findings appeared", len(d.Findings.Appeared)) {
		for _, f := range d.Findings.Appeared {
			finding("+", strings.ToUpper(f.Severity), fmt.Sprintf("%s [%s] on %s", f.Title, f.Rule, f.Subject))
		}
	}
	if section("Findings resolved", len(d.Findings.Resolved)) {
		for _, f := range d.Findings.Resolved {
			finding("-", strings.ToUpper(f.Severity), fmt.Sprintf("%s [%s] on %s", f.Title, f.Rule, f.Subject))
		}
	}
	if section("Severity changed", len(d.Findings.Changed)) {
		for _, f := range d.Findings.Changed {
			finding("~", strings.ToUpper(f.Old)+" →", fmt.Sprintf("%s %s [%s] on %s", strings.ToUpper(f.New), f.Title, f.Rule, f.Subject))
		}
	}
}

// writeFacts prints the changed facts in three columns (subject, fact,
// change), the change wrapped under its column; where the first two leave
// it too little room, the change goes on the next line, indented.
func writeFacts(w io.Writer, changes []FactChange, width int) {
	const minChange = 20
	subjW, labelW := 0, 0
	for _, c := range changes {
		subjW, labelW = max(subjW, textWidth(c.Subject)), max(labelW, textWidth(c.Label))
	}
	col := 2 + subjW + 2 + labelW + 2
	for _, c := range changes {
		var what string
		switch c.Kind {
		case "added":
			what = "new: " + factText(c, c.New)
		case "removed":
			what = "gone (was " + factText(c, c.Old) + ")"
		case "grew":
			what = factText(c, c.Old) + " → " + factText(c, c.New) + " (grew)"
		default:
			what = factText(c, c.Old) + " → " + factText(c, c.New)
		}
		head := "  " + pad(c.Subject, subjW) + "  " + pad(c.Label, labelW) + "  "
		if width-col < minChange {
			// Subject and fact on a line (the fact wrapped), the change
			// under them.
			lines := report.Wrap(c.Label, width, 2+textWidth(c.Subject)+2, 4)
			fmt.Fprintln(w, "  "+c.Subject+"  "+lines[0])
			for _, l := range lines[1:] {
				fmt.Fprintln(w, l)
			}
			for _, l := range report.Wrap(what, width, 6, 6) {
				fmt.Fprintln(w, strings.Repeat(" ", 6)+strings.TrimLeft(l, " "))
			}
			continue
		}
		lines := report.Wrap(what, width, col, col)
		fmt.Fprintln(w, head+lines[0])
		for _, l := range lines[1:] {
			fmt.Fprintln(w, l)
		}
	}
}

// textWidth is the columns a string takes on a terminal.
func textWidth(s string) int { return runewidth.StringWidth(s) }

// pad fills s with spaces to n columns.
func pad(s string, n int) string { return s + strings.Repeat(" ", max(0, n-textWidth(s))) }
