package main

import (
	"fmt"
	"math"
	"strings"
	"time"

	"github.com/diskdoctor/diskdoctor/rules"
)

// BenchSchema identifies `diskdoctor bench --format json`.
const BenchSchema = "diskdoctor-bench/v1"

// benchOutput is the bench's report (`--format json` prints it).
type benchOutput struct {
	Schema     string               `json:"schema"`
	Host       rules.Host           `json:"host"`
	Target     benchPathFacts       `json:"target"`
	Tool       string               `json:"tool"` // fio or dd
	FioVersion string               `json:"fio_version,omitempty"`
	Engine     string               `json:"engine,omitempty"`
	EngineNote string               `json:"engine_note,omitempty"`
	Direct     bool                 `json:"direct"`
	Profile    string               `json:"profile"`
	RuntimeS   float64              `json:"runtime_s"`
	ElapsedS   float64              `json:"elapsed_s"`
	Datasheet  *benchDatasheet      `json:"datasheet"`
	Preflight  benchPreflightResult `json:"preflight"`
	Rows       []benchRow           `json:"rows"`
	Sweep      *benchSweep          `json:"sweep,omitempty"`
	Reading    []string             `json:"reading"`
}

// benchDatasheet is the expectation every row is compared with.
type benchDatasheet struct {
	Device      string  `json:"device"`
	Product     string  `json:"product"`
	Class       string  `json:"class"`
	ClassName   string  `json:"class_name"`
	Source      string  `json:"source"`
	ModelEntry  bool    `json:"model_entry"`
	SeqReadMBs  float64 `json:"seq_read_mbs,omitempty"`
	SeqWriteMBs float64 `json:"seq_write_mbs,omitempty"`
	RandReadIO  float64 `json:"rand_read_iops,omitempty"`
	RandWriteIO float64 `json:"rand_write_iops,omitempty"`
	WriteLatUs  float64 `json:"write_latency_us,omitempty"`
	PLP         bool    `json:"plp"`
	Note        string  `json:"note,omitempty"`
}

// benchRow is one measured test.
type benchRow struct {
	Test      string  `json:"test"`  // the label, with the queue depth achieved
	Asked     string  `json:"asked"` // the label asked for
	Kind      string  `json:"kind"`  // seq, rnd, sync, steady, dd-…
	Op        string  `json:"op"`    // read, write
	BlockSize int     `json:"block_size"`
	AskedQD   int     `json:"asked_qd"`
	QD        int     `json:"qd"`
	Threads   int     `json:"threads"`
	Tool      string  `json:"tool"`
	MBs       float64 `json:"mb_s"`
	IOPS      float64 `json:"iops"`
	Lat       struct {
		Mean float64 `json:"mean"`
		P50  float64 `json:"p50"`
		P99  float64 `json:"p99"`
		P999 float64 `json:"p99_9"`
	} `json:"lat_us"`
	Datasheet *benchFigure `json:"datasheet,omitempty"`
	Pct       *float64     `json:"pct_of_datasheet,omitempty"`
	Steady    *benchSteady `json:"steady_state,omitempty"`
	Notes     []string     `json:"notes,omitempty"`
	Job       string       `json:"job,omitempty"` // the fio job file
	Command   string       `json:"command"`       // the command line that reproduces it
}

// benchFigure is the datasheet figure a row is held against.
type benchFigure struct {
	Field string  `json:"field"`
	Value float64 `json:"value"`
	Unit  string  `json:"unit"`
}

type benchSteady struct {
	Attained  bool    `json:"attained"`
	Criterion string  `json:"criterion"`
	Measured  string  `json:"measured"`
	WindowS   float64 `json:"window_s"`
	MBs       float64 `json:"mb_s"`
}

// --- the sweep ---

// benchKneeRule is the definition of the knee, as printed and documented.
const benchKneeRule = "the knee is the highest load before the first point whose p99 exceeds 3× the lowest p99 so far, or whose IOPS grow less than 10 % over the previous point; the sweep stops once p99 exceeds 3× the lowest"

type benchSweep struct {
	Op       string            `json:"op"`
	Points   []benchSweepPoint `json:"points"`
	KneeLoad int               `json:"knee_load"` // QD × jobs at the knee; 0 when no point broke away
	Knee     string            `json:"knee"`      // the knee's label
	Reason   string            `json:"reason"`    // what broke away after it
	Rule     string            `json:"rule"`
	Stopped  string            `json:"stopped,omitempty"`
	broke    bool
}

type benchSweepPoint struct {
	Test  string  `json:"test"`
	Load  int     `json:"load"`
	QD    int     `json:"qd"`
	Jobs  int     `json:"jobs"`
	IOPS  float64 `json:"iops"`
	P99Us float64 `json:"p99_us"`
	Knee  bool    `json:"knee,omitempty"`
}

// add records a point; it reports whether the sweep should stop.
func (s *benchSweep) add(r benchRow) bool {
	p := benchSweepPoint{Test: r.Test, Load: r.QD * r.Threads, QD: r.QD, Jobs: r.Threads, IOPS: r.IOPS, P99Us: r.Lat.P99}
	s.Points = append(s.Points, p)
	n := len(s.Points)
	if n < 2 {
		return false
	}
	lowest := math.Inf(1)
	for _, q := range s.Points[:n-1] {
		if q.P99Us > 0 {
			lowest = min(lowest, q.P99Us)
		}
	}
	prev := s.Points[n-2]
	latBreak := !math.IsInf(lowest, 1) && p.P99Us > 3*lowest
	gainBreak := prev.IOPS > 0 && p.IOPS < 1.10*prev.IOPS
	if !s.broke && (latBreak || gainBreak) {
		s.broke = true
		s.KneeLoad, s.Knee = prev.Load, prev.Test
		s.Points[n-2].Knee = true
		var why []string
		if latBreak {
			why = append(why, fmt.Sprintf("p99 %s is %.1f× the lowest (%s)", benchUs(p.P99Us), p.P99Us/lowest, benchUs(lowest)))
		}
		if gainBreak {
			why = append(why, fmt.Sprintf("IOPS %+.0f %% over %s", 100*(p.IOPS/prev.IOPS-1), prev.Test))
		}
		s.Reason = "at " + p.Test + ": " + strings.Join(why, ", ")
	}
	return latBreak
}

func (s *benchSweep) finish() {
	if !s.broke && len(s.Points) > 0 {
		last := s.Points[len(s.Points)-1]
		s.Reason = fmt.Sprintf("no break-away up to %s: the knee lies beyond (raise --max-depth)", last.Test)
	}
}

// --- the datasheet ---

// benchDatasheetFor finds the datasheet of the device under the target:
// the first judged disk the doctor knows, looked up in the table.
func benchDatasheetFor(rep *rules.Report, ds *rules.Datasheets, pf benchPathFacts) *benchDatasheet {
	if rep == nil || ds == nil {
		return nil
	}
	byName := map[string]map[string]any{}
	for _, d := range rep.Devices {
		if n, ok := d["name"].(string); ok {
			byName[n] = d
		}
	}
	var products []string
	var out *benchDatasheet
	for _, name := range pf.Disks {
		d := byName[name]
		if d == nil {
			continue
		}
		model, _ := d["model"].(string)
		class, _ := d["class"].(string)
		e := ds.Lookup(model, class)
		if e == nil {
			continue
		}
		if !benchContains(products, e.Product) {
			products = append(products, e.Product)
		}
		if out != nil {
			continue
		}
		out = &benchDatasheet{Device: name, Product: e.Product, Class: e.Class, Source: e.Source, ModelEntry: e.ModelEntry,
			SeqReadMBs: e.SeqReadMBs, SeqWriteMBs: e.SeqWriteMBs, RandReadIO: e.RandReadIOPS, RandWriteIO: e.RandWriteIOPS,
			WriteLatUs: e.WriteLatencyUs, PLP: e.PLP}
		if c := ds.Lookup("", e.Class); c != nil {
			out.ClassName = c.Name
		}
	}
	if out == nil {
		return nil
	}
	if len(pf.Disks) > 1 {
		out.Note = fmt.Sprintf("%d devices under this path (%s): the figures are one device's datasheet (%s); a stripe may exceed them, parity or mirrors writes fall below", len(pf.Disks), strings.Join(pf.Disks, ", "), strings.Join(products, "; "))
	}
	return out
}

// compare sets the row's datasheet figure and percentage. Throughput and
// IOPS: measured / datasheet. Sync commit latency: datasheet latency /
// measured p50 (so that 100 % means "as fast as the device", like the rest).
func (r *benchRow) compare(d *benchDatasheet) {
	if d == nil {
		return
	}
	var fig benchFigure
	var measured float64
	switch {
	case r.Kind == "sync" || r.Kind == "dd-dsync":
		fig = benchFigure{"write_latency_us", d.WriteLatUs, "µs"}
		measured = r.Lat.P50
		if measured == 0 && r.IOPS > 0 {
			measured = 1e6 / r.IOPS * float64(max(r.Threads, 1))
		}
		if fig.Value > 0 && measured > 0 {
			r.Datasheet = &fig
			p := 100 * fig.Value / measured
			r.Pct = &p
		}
		return
	case r.Kind == "rnd" && r.Op == "read":
		fig, measured = benchFigure{"rand_read_iops", d.RandReadIO, "IOPS"}, r.IOPS
	case r.Kind == "rnd":
		fig, measured = benchFigure{"rand_write_iops", d.RandWriteIO, "IOPS"}, r.IOPS
	case r.Op == "read":
		fig, measured = benchFigure{"seq_read_mbs", d.SeqReadMBs, "MB/s"}, r.MBs
	default:
		fig, measured = benchFigure{"seq_write_mbs", d.SeqWriteMBs, "MB/s"}, r.MBs
	}
	if fig.Value > 0 {
		r.Datasheet = &fig
		p := 100 * measured / fig.Value
		r.Pct = &p
	}
}

// result assembles the report.
func (b *benchRun) result() *benchOutput {
	out := &benchOutput{Schema: BenchSchema, Target: b.facts, Tool: b.tool, FioVersion: b.fioVersion, Engine: b.engine,
		EngineNote: b.engineNote, Direct: b.direct, Profile: b.o.profile, RuntimeS: b.o.runtime.Seconds(),
		ElapsedS: b.elapsed.Round(time.Millisecond).Seconds(), Preflight: b.pre, Rows: b.rows, Sweep: b.sweep}
	if b.tool == "dd" {
		out.Profile = "dd"
	}
	if b.report != nil {
		out.Host = b.report.Host
	}
	out.Datasheet = benchDatasheetFor(b.report, b.ds, b.facts)
	for i := range out.Rows {
		out.Rows[i].compare(out.Datasheet)
	}
	if out.Rows == nil {
		out.Rows = []benchRow{}
	}
	out.Reading = benchReading(out)
	return out
}

// --- the doctor's reading of the numbers ---

var benchSSDClasses = map[string]bool{"sata-ssd": true, "sas-ssd": true, "nvme-gen3": true, "nvme-gen4": true, "nvme-gen5": true, "optane": true}

// benchExplains lists, per symptom, the findings that explain it.
var benchExplains = map[string][]string{
	"writes": {"write-cache-disabled", "write-cache-state-mismatch", "trim-not-scheduled", "trim-unsupported", "zfs-background-work", "md-background-work", "io-pressure-high", "device-saturated", "smart-failing", "zfs-device-slow"},
	"all":    {"pcie-link-degraded", "cpu-governor-powersave", "zfs-background-work", "md-background-work", "io-pressure-high", "device-saturated", "kernel-io-errors", "kernel-thermal-throttling", "smart-link-errors", "smart-temperature"},
	"sync":   {"cpu-governor-powersave", "write-cache-disabled", "zfs-sync-writes-log"},
	"cache":  {"bench-file-smaller-than-ram", "bench-file-smaller-than-arc", "bench-direct-io-unsupported", "bench-zfs-direct-io"},
}

func (o *benchOutput) found(symptom string) []string {
	var ids []string
	for _, id := range benchExplains[symptom] {
		if o.Preflight.has(id) {
			ids = append(ids, id)
		}
	}
	return ids
}

func benchPctRange(rows []benchRow, keep func(benchRow) bool) (lo, hi float64, n int) {
	lo, hi = math.Inf(1), 0
	for _, r := range rows {
		if r.Pct == nil || !keep(r) {
			continue
		}
		lo, hi, n = min(lo, *r.Pct), max(hi, *r.Pct), n+1
	}
	return lo, hi, n
}

func benchPctText(lo, hi float64) string {
	f := func(v float64) string {
		if v < 10 {
			return fmt.Sprintf("%.1f", v)
		}
		return fmt.Sprintf("%.0f", v)
	}
	if f(lo) == f(hi) {
		return f(lo) + " %"
	}
	return f(lo) + "–" + f(hi) + " %"
}

// benchReading derives the doctor's reading from the measured fractions of
// the datasheet, the device class and the preflight's findings.
func benchReading(o *benchOutput) []string {
	var out []string
	d := o.Datasheet
	className := "device"
	if d != nil && d.ClassName != "" {
		className = d.ClassName
	}
	cite := func(ids []string) string {
		if len(ids) == 0 {
			return ""
		}
		return " — the doctor found: " + strings.Join(ids, ", ")
	}
	if o.Tool == "dd" {
		out = append(out, "measured with dd (fio is not installed): one stream, no queue depth, coarse timing; treat these as a rough check and install fio for figures to rely on")
	}
	switch {
	case d == nil:
		out = append(out, "no datasheet is known for the device under this path: the figures stand alone (add the model to a --datasheets file to compare)")
	case d.Class == "virtual" && d.SeqReadMBs == 0 && d.SeqWriteMBs == 0 && d.RandReadIO == 0 && d.RandWriteIO == 0:
		out = append(out, "a virtual disk: the figures are the host's storage and the hypervisor's I/O path; there is no hardware datasheet to hold them against")
	}
	isRead := func(r benchRow) bool { return r.Op == "read" }
	isWrite := func(r benchRow) bool { return r.Op == "write" && r.Kind != "sync" && r.Kind != "dd-dsync" }
	before := len(out)
	rlo, rhi, rn := benchPctRange(o.Rows, isRead)
	wlo, whi, wn := benchPctRange(o.Rows, isWrite)
	if rn > 0 && rhi > 150 {
		out = append(out, fmt.Sprintf("reads at up to %s of the datasheet: faster than a %s can go, so they came from a cache (page cache or ARC), not the disk%s", benchPctText(rhi, rhi), className, cite(o.found("cache"))))
	}
	ssd := d != nil && benchSSDClasses[d.Class]
	switch {
	case wn > 0 && whi < 10 && ssd:
		msg := fmt.Sprintf("writes at %s of datasheet on a %s: check the write cache and TRIM before anything else", benchPctText(wlo, whi), className)
		if rn > 0 && rlo >= 50 {
			msg += fmt.Sprintf(" (reads at %s are fine, so the media and the link are not the problem)", benchPctText(rlo, rhi))
		}
		if ids := o.found("writes"); len(ids) > 0 {
			msg += cite(ids)
		} else {
			msg += " — the doctor found no cause on this machine: look at hdparm -W, the drive's firmware, and whether it was ever trimmed"
		}
		out = append(out, msg)
	case wn > 0 && whi < 10:
		out = append(out, fmt.Sprintf("writes at %s of datasheet on a %s%s", benchPctText(wlo, whi), className, cite(o.found("writes"))))
	}
	if rn > 0 && wn > 0 && rhi < 50 && whi < 50 {
		msg := fmt.Sprintf("reads (%s) and writes (%s) both below half the datasheet: the path, not the media — PCIe link, controller, CPU power states, or other work on the device", benchPctText(rlo, rhi), benchPctText(wlo, whi))
		out = append(out, msg+cite(o.found("all")))
	}
	if rn+wn > 0 && min(rlo, wlo) >= 50 && max(rhi, whi) <= 150 {
		out = append(out, fmt.Sprintf("within the datasheet (%s): the hardware does what it is specified for; if the application is slow, look above the disk", benchPctText(min(rlo, wlo), max(rhi, whi))))
	}
	if n := len(out); rn+wn > 0 && n == before {
		// None of the patterns above: say where the figures stand.
		var parts []string
		if rn > 0 {
			parts = append(parts, "reads at "+benchPctText(rlo, rhi))
		}
		if wn > 0 {
			parts = append(parts, "writes at "+benchPctText(wlo, whi))
		}
		out = append(out, strings.Join(parts, ", ")+" of the datasheet"+cite(o.found("all")))
	}
	// Synchronous commits.
	for _, r := range o.Rows {
		if r.Kind != "sync" || r.Threads != 1 {
			continue
		}
		msg := fmt.Sprintf("one thread commits %s 4 KiB writes/s, p50 %s, p99.9 %s", benchNum(r.IOPS), benchUs(r.Lat.P50), benchUs(r.Lat.P999))
		if d != nil && d.WriteLatUs > 0 && r.Lat.P50 > 5*d.WriteLatUs {
			msg += fmt.Sprintf(": %.0f× the device's ~%s write latency, so most of each commit is spent above the device or in cache flushes", r.Lat.P50/d.WriteLatUs, benchUs(d.WriteLatUs))
			if !d.PLP {
				msg += " (a drive without power-loss protection must flush its cache on every commit: low sync figures are its nature)"
			}
			msg += cite(o.found("sync"))
		}
		out = append(out, msg)
	}
	// Sustained writes against the burst.
	var burst, steady *benchRow
	for i := range o.Rows {
		r := &o.Rows[i]
		if r.Kind == "seq" && r.Op == "write" && burst == nil {
			burst = r
		}
		if r.Kind == "steady" {
			steady = r
		}
	}
	if steady != nil {
		msg := fmt.Sprintf("sustained writes settle at %s MB/s", benchNum(steady.MBs))
		if steady.Steady != nil && !steady.Steady.Attained {
			msg = fmt.Sprintf("sustained writes did not settle within --steady-max (last %s MB/s): run longer, or with a bigger --size", benchNum(steady.MBs))
		}
		if burst != nil && burst.MBs > 0 && steady.MBs < 0.5*burst.MBs {
			msg += fmt.Sprintf(", %.0f %% of the short test's %s MB/s: an SLC or DRAM cache absorbed the short tests; the sustained figure is the drive's", 100*steady.MBs/burst.MBs, benchNum(burst.MBs))
		}
		out = append(out, msg)
	}
	if s := o.Sweep; s != nil {
		if s.KneeLoad > 0 {
			out = append(out, fmt.Sprintf("sweep knee at %s (load %d): beyond it, %s", s.Knee, s.KneeLoad, s.Reason))
		} else {
			out = append(out, "sweep: "+s.Reason)
		}
	}
	if !o.Direct && o.Tool == "fio" {
		out = append(out, "buffered I/O: O_DIRECT is not honoured here, so queue depths are labelled as achieved and reads may be the page cache's")
	}
	if ids := o.Preflight.critical(); len(ids) > 0 && o.Preflight.Forced {
		out = append(out, "run with --force despite critical findings ("+strings.Join(ids, ", ")+"): the figures measure them")
	}
	if d != nil && d.Note != "" {
		out = append(out, d.Note)
	}
	return out
}

func benchNum(v float64) string {
	switch {
	case v >= 100:
		return fmt.Sprintf("%.0f", v)
	case v >= 10:
		return fmt.Sprintf("%.1f", v)
	}
	return fmt.Sprintf("%.2f", v)
}

func benchUs(us float64) string {
	switch {
	case us <= 0:
		return "-"
	case us >= 10000:
		return fmt.Sprintf("%.0f ms", us/1000)
	case us >= 1000:
		return fmt.Sprintf("%.1f ms", us/1000)
	case us >= 100:
		return fmt.Sprintf("%.0f µs", us)
	}
	return fmt.Sprintf("%.1f µs", us)
}
