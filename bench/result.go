package bench

import (
	"fmt"
	"math"
	"strings"
	"time"

	"github.com/diskdoctor/diskdoctor/rules"
)

// Schema identifies `diskdoctor bench --format json`.
const Schema = "diskdoctor-bench/v1"

// Result is the bench's report (`--format json` prints it).
type Result struct {
	Schema     string     `json:"schema"`
	Host       rules.Host `json:"host"`
	Target     Facts      `json:"target"`
	Tool       string     `json:"tool"` // fio or dd
	FioVersion string     `json:"fio_version,omitempty"`
	Engine     string     `json:"engine,omitempty"`
	EngineNote string     `json:"engine_note,omitempty"`
	Direct     bool       `json:"direct"`
	Profile    string     `json:"profile"`
	RuntimeS   float64    `json:"runtime_s"`
	ElapsedS   float64    `json:"elapsed_s"` // the test file and the jobs
	// The doctor's overhead, apart from the figures: the preflight (facts,
	// doctor, competing-I/O window) and writing the test file.
	PreflightS float64    `json:"preflight_s"`
	PrepareS   float64    `json:"prepare_s"`
	Datasheet  *Datasheet `json:"datasheet"`
	Preflight  Preflight  `json:"preflight"`
	Rows       []Row      `json:"rows"`
	Sweep      *Sweep     `json:"sweep,omitempty"`
	Reading    []string   `json:"reading"`
}

// Datasheet is the expectation every row is compared with.
type Datasheet struct {
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

// Row is one measured test.
type Row struct {
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
	Datasheet *Figure  `json:"datasheet,omitempty"`
	Pct       *float64 `json:"pct_of_datasheet,omitempty"`
	Steady    *Steady  `json:"steady_state,omitempty"`
	Notes     []string `json:"notes,omitempty"`
	Job       string   `json:"job,omitempty"` // the fio job file
	Command   string   `json:"command"`       // the command line that reproduces it
}

// Figure is the datasheet figure a row is held against.
type Figure struct {
	Field string  `json:"field"`
	Value float64 `json:"value"`
	Unit  string  `json:"unit"`
}

type Steady struct {
	Attained  bool    `json:"attained"`
	Criterion string  `json:"criterion"`
	Measured  string  `json:"measured"`
	WindowS   float64 `json:"window_s"`
	MBs       float64 `json:"mb_s"`
}

// --- the sweep ---

// KneeRule is the definition of the knee, as printed and documented.
const KneeRule = "the knee is the highest load before the first point whose p99 exceeds 3× the lowest p99 so far, or whose IOPS grow less than 10 % over the previous point; the sweep stops once p99 exceeds 3× the lowest"

type Sweep struct {
	Op       string       `json:"op"`
	Points   []SweepPoint `json:"points"`
	KneeLoad int          `json:"knee_load"` // QD × jobs at the knee; 0 when no point broke away
	Knee     string       `json:"knee"`      // the knee's label
	Reason   string       `json:"reason"`    // what broke away after it
	Rule     string       `json:"rule"`
	Stopped  string       `json:"stopped,omitempty"`
	broke    bool
}

type SweepPoint struct {
	Test  string  `json:"test"`
	Load  int     `json:"load"`
	QD    int     `json:"qd"`
	Jobs  int     `json:"jobs"`
	IOPS  float64 `json:"iops"`
	P99Us float64 `json:"p99_us"`
	Knee  bool    `json:"knee,omitempty"`
}

// add records a point; it reports whether the sweep should stop.
func (s *Sweep) add(r Row) bool {
	p := SweepPoint{Test: r.Test, Load: r.QD * r.Threads, QD: r.QD, Jobs: r.Threads, IOPS: r.IOPS, P99Us: r.Lat.P99}
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
			why = append(why, fmt.Sprintf("p99 %s is %.1f× the lowest (%s)", Micros(p.P99Us), p.P99Us/lowest, Micros(lowest)))
		}
		if gainBreak {
			why = append(why, fmt.Sprintf("IOPS %+.0f %% over %s", 100*(p.IOPS/prev.IOPS-1), prev.Test))
		}
		s.Reason = "at " + p.Test + ": " + strings.Join(why, ", ")
	}
	return latBreak
}

func (s *Sweep) finish() {
	if !s.broke && len(s.Points) > 0 {
		last := s.Points[len(s.Points)-1]
		s.Reason = fmt.Sprintf("no break-away up to %s: the knee lies beyond (raise --max-depth)", last.Test)
	}
}

// --- the datasheet ---

// datasheetFor finds the datasheet of the device under the target:
// the first judged disk the doctor knows, looked up in the table.
func datasheetFor(rep *rules.Report, ds *rules.Datasheets, pf Facts) *Datasheet {
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
	var out *Datasheet
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
		if !contains(products, e.Product) {
			products = append(products, e.Product)
		}
		if out != nil {
			continue
		}
		out = &Datasheet{Device: name, Product: e.Product, Class: e.Class, Source: e.Source, ModelEntry: e.ModelEntry,
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
func (r *Row) compare(d *Datasheet) {
	if d == nil {
		return
	}
	var fig Figure
	var measured float64
	switch {
	case r.Kind == "sync" || r.Kind == "dd-dsync":
		fig = Figure{"write_latency_us", d.WriteLatUs, "µs"}
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
		fig, measured = Figure{"rand_read_iops", d.RandReadIO, "IOPS"}, r.IOPS
	case r.Kind == "rnd":
		fig, measured = Figure{"rand_write_iops", d.RandWriteIO, "IOPS"}, r.IOPS
	case r.Op == "read":
		fig, measured = Figure{"seq_read_mbs", d.SeqReadMBs, "MB/s"}, r.MBs
	default:
		fig, measured = Figure{"seq_write_mbs", d.SeqWriteMBs, "MB/s"}, r.MBs
	}
	if fig.Value > 0 {
		r.Datasheet = &fig
		p := 100 * measured / fig.Value
		r.Pct = &p
	}
}

// result assembles the report.
func (b *run) result() *Result {
	out := &Result{Schema: Schema, Target: b.facts, Tool: b.tool, FioVersion: b.fioVersion, Engine: b.engine,
		EngineNote: b.engineNote, Direct: b.direct, Profile: b.o.Profile, RuntimeS: b.o.Runtime.Seconds(),
		ElapsedS: b.elapsed.Round(time.Millisecond).Seconds(), PreflightS: b.preflightTook.Round(time.Millisecond).Seconds(),
		PrepareS: b.prepareTook.Round(time.Millisecond).Seconds(), Preflight: b.pre, Rows: b.rows, Sweep: b.sweep}
	if b.tool == "dd" {
		out.Profile = "dd"
	}
	if b.report != nil {
		out.Host = b.report.Host
	}
	out.Datasheet = datasheetFor(b.report, b.ds, b.facts)
	for i := range out.Rows {
		out.Rows[i].compare(out.Datasheet)
	}
	if out.Rows == nil {
		out.Rows = []Row{}
	}
	out.Reading = reading(out)
	return out
}
