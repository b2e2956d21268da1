package bench

import (
	"encoding/json"
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/charmbracelet/lipgloss"
	"github.com/charmbracelet/lipgloss/table"

	"github.com/diskdoctor/diskdoctor/report"
)

// WriteJSON prints a bench result as the diskdoctor-bench/v1 object.
func WriteJSON(w io.Writer, res *Result) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(res)
}

// WriteText prints the bench report for a person: what was measured and
// how, the preflight, the results table (read and write side by side, as
// CrystalDiskMark and speedtest-hd print them), the sweep curve, and the
// doctor's reading.
func WriteText(w io.Writer, o *Result, color bool) {
	st := report.NewStyles(w, color)
	var b strings.Builder
	benchHeader(&b, st, o)
	benchPreflight(&b, st, o.Preflight)
	fmt.Fprintln(&b, st.Heading.Render("Results"))
	b.WriteString(benchTable(st, o))
	benchNotes(&b, st, o.Rows)
	benchSweep(&b, st, o.Sweep)
	fmt.Fprintf(&b, "\n%s\n", st.Heading.Render("Reading"))
	for _, r := range o.Reading {
		fmt.Fprintf(&b, "  • %s\n", r)
	}
	if o.Tool == "dd" {
		fmt.Fprintf(&b, "\n%s\n", st.Dim.Render("Reproduce any row by hand: --format json carries each row's dd command line."))
	} else {
		fmt.Fprintf(&b, "\n%s\n", st.Dim.Render("Reproduce any row by hand: --format json carries each row's fio job and command line; --dry-run prints the job files."))
	}
	fmt.Fprint(w, b.String())
}

func benchHeader(b *strings.Builder, st report.Styles, o *Result) {
	t := o.Target
	where := t.Path
	if len(t.Disks) > 0 {
		where += " on " + strings.Join(t.Disks, ", ")
	} else if t.Pool != "" {
		where += " on ZFS pool " + t.Pool
	}
	fmt.Fprintf(b, "%s %s\n", st.Bold.Render("diskdoctor bench"), st.Dim.Render("— "+where))
	var how []string
	if t.FSType != "" {
		how = append(how, t.FSType)
	}
	if o.Tool == "dd" {
		how = append(how, "dd fallback (LESS PRECISE)")
	} else {
		how = append(how, fmt.Sprintf("%s, engine %s", o.FioVersion, o.Engine))
	}
	if o.Direct {
		how = append(how, "O_DIRECT")
	} else {
		how = append(how, "BUFFERED (no O_DIRECT)")
	}
	how = append(how, "test file "+Size(t.FileSize)+" of random data", fmt.Sprintf("%gs per test", o.RuntimeS))
	fmt.Fprintf(b, "%s\n", st.Dim.Render(strings.Join(how, " · ")))
	if d := o.Datasheet; d != nil {
		fmt.Fprintf(b, "%s %s: %s\n", st.Dim.Render("datasheet"), d.Device, d.Product)
	}
	if o.EngineNote != "" {
		fmt.Fprintf(b, "%s %s\n", st.Dim.Render("engine:"), o.EngineNote)
	}
	b.WriteString("\n")
}

func benchPreflight(b *strings.Builder, st report.Styles, pre Preflight) {
	if len(pre.Checks) == 0 {
		return
	}
	fmt.Fprintln(b, st.Heading.Render("Preflight"))
	for _, c := range pre.Checks {
		sev := st.Severity(c.Severity).Render(fmt.Sprintf("%-8s", strings.ToUpper(c.Severity)))
		subj := ""
		if len(c.Subjects) > 0 {
			subj = " (" + benchAbbrev(c.Subjects, 6) + ")"
		}
		fmt.Fprintf(b, "  %s %s%s: %s\n", sev, c.ID, subj, c.Text)
	}
	b.WriteString("\n")
}

// benchNotes prints notes shared by several rows once, naming the rows.
func benchNotes(b *strings.Builder, st report.Styles, rows []Row) {
	var order []string
	rowsOf := map[string][]string{}
	for _, r := range rows {
		for _, n := range r.Notes {
			if strings.HasPrefix(n, "labelled ") {
				if _, reason, ok := strings.Cut(n, ": "); ok {
					n = "labelled with the queue depth achieved: " + reason
				}
			}
			if _, seen := rowsOf[n]; !seen {
				order = append(order, n)
			}
			rowsOf[n] = append(rowsOf[n], r.Test+" "+r.Op)
		}
	}
	for _, n := range order {
		fmt.Fprintf(b, "  %s %s (%s)\n", st.Dim.Render("note:"), n, benchAbbrev(rowsOf[n], 4))
	}
}

func benchSweep(b *strings.Builder, st report.Styles, s *Sweep) {
	if s == nil || len(s.Points) == 0 {
		return
	}
	fmt.Fprintf(b, "\n%s\n", st.Heading.Render("Sweep: random 4 KiB "+s.Op+"s at rising load"))
	unit := benchLatUnit(func(yield func(float64) bool) {
		for _, p := range s.Points {
			if !yield(p.P99Us) {
				return
			}
		}
	})
	t := table.New().Border(lipgloss.NormalBorder()).BorderStyle(st.Dim).Headers("LOAD", "TEST", "IOPS", "p99 "+unit.name, "")
	for _, pt := range s.Points {
		mark := ""
		if pt.Knee {
			mark = "← knee"
		}
		t.Row(fmt.Sprint(pt.Load), pt.Test, Num(pt.IOPS), unit.format(pt.P99Us), mark)
	}
	b.WriteString(t.String() + "\n")
	fmt.Fprintf(b, "  %s %s\n", st.Dim.Render("knee:"), s.Rule)
}

// benchLine is one line of the results table: a test, its read and write
// rows side by side.
type benchLine struct {
	label       string
	read, write *Row
}

func benchLines(rows []Row) []benchLine {
	var lines []benchLine
	index := map[string]int{}
	for i := range rows {
		r := &rows[i]
		key := r.Asked + "\x00" + r.Kind
		at, ok := index[key]
		if !ok {
			at = len(lines)
			index[key] = at
			label := r.Test
			if r.Asked != "" && r.Asked != r.Test {
				label += " (asked " + strings.TrimPrefix(strings.TrimPrefix(r.Asked, "SEQ1M "), "RND4K ") + ")"
			}
			lines = append(lines, benchLine{label: label})
		}
		if r.Op == "read" {
			lines[at].read = r
		} else {
			lines[at].write = r
		}
	}
	return lines
}

// benchUnit is a latency column's unit, one per column.
type benchUnit struct {
	name string
	div  float64
}

func (u benchUnit) format(us float64) string {
	if us <= 0 {
		return "-"
	}
	return Num(us / u.div)
}

// benchLatUnit picks ms when the column's largest value reaches 10 ms.
func benchLatUnit(values func(yield func(float64) bool)) benchUnit {
	hi := 0.0
	for v := range values {
		hi = max(hi, v)
	}
	if hi >= 10000 {
		return benchUnit{"ms", 1000}
	}
	return benchUnit{"µs", 1}
}

func benchTable(st report.Styles, o *Result) string {
	lines := benchLines(o.Rows)
	// Datasheet columns only when some row has a figure to be held against
	// (a virtual disk's class has none).
	ds := slices.ContainsFunc(o.Rows, func(r Row) bool { return r.Pct != nil })
	lat := func(op string, pick func(*Row) float64) benchUnit {
		return benchLatUnit(func(yield func(float64) bool) {
			for _, l := range lines {
				r := l.read
				if op == "write" {
					r = l.write
				}
				if r != nil && !yield(pick(r)) {
					return
				}
			}
		})
	}
	p50 := func(r *Row) float64 { return r.Lat.P50 }
	p99 := func(r *Row) float64 { return r.Lat.P99 }
	units := map[string][2]benchUnit{"read": {lat("read", p50), lat("read", p99)}, "write": {lat("write", p50), lat("write", p99)}}
	headers := []string{"TEST"}
	for _, op := range []string{"read", "write"} {
		u := units[op]
		up := strings.ToUpper(op[:1]) + op[1:]
		headers = append(headers, up+" MB/s", "IOPS", "p50 "+u[0].name, "p99 "+u[1].name)
		if ds {
			headers = append(headers, "datasheet", "%")
		}
	}
	t := table.New().Border(lipgloss.NormalBorder()).BorderStyle(st.Dim).Headers(headers...)
	for _, l := range lines {
		cells := []string{l.label}
		for _, op := range []string{"read", "write"} {
			r := l.read
			if op == "write" {
				r = l.write
			}
			u := units[op]
			if r == nil {
				cells = append(cells, "-", "-", "-", "-")
				if ds {
					cells = append(cells, "-", "-")
				}
				continue
			}
			cells = append(cells, Num(r.MBs), Num(r.IOPS), u[0].format(r.Lat.P50), u[1].format(r.Lat.P99))
			if ds {
				fig := "-"
				if r.Datasheet != nil {
					fig = Num(r.Datasheet.Value) + " " + r.Datasheet.Unit
				}
				cells = append(cells, fig, benchPct(st, r))
			}
		}
		t.Row(cells...)
	}
	return t.String() + "\n"
}

// benchPct is the measured share of the datasheet, coloured by how far
// below it is; above 150 % it came from a cache.
func benchPct(st report.Styles, r *Row) string {
	if r.Pct == nil || r.Datasheet == nil {
		return "-"
	}
	s := PctText(*r.Pct, *r.Pct)
	switch {
	case *r.Pct < 10:
		return st.Critical.Render(s)
	case *r.Pct < 50:
		return st.Warning.Render(s)
	case *r.Pct > 150:
		return st.Info.Render(s + " cache?")
	}
	return s
}

func benchAbbrev(xs []string, n int) string {
	if len(xs) <= n {
		return strings.Join(xs, ", ")
	}
	return strings.Join(xs[:n], ", ") + fmt.Sprintf(" and %d more", len(xs)-n)
}
