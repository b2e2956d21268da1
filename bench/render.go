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

// WriteText prints the bench report for a person, laid out for width
// columns (0: report.DefaultWidth, a pipe's): what was measured and how,
// the preflight (the competing processes once, as a table), the results
// table (read and write side by side, as CrystalDiskMark and speedtest-hd
// print them, or one above the other when that does not fit), the sweep
// curve, and the doctor's reading.
func WriteText(w io.Writer, o *Result, color bool, width int) {
	width = textWidth(width)
	st := report.NewStyles(w, color)
	var b strings.Builder
	benchHeader(&b, st, o, width)
	benchPreflight(&b, st, o.Preflight, width)
	fmt.Fprintln(&b, st.Heading.Render("Results"))
	b.WriteString(benchTable(st, o, width))
	benchNotes(&b, st, o.Rows, width)
	benchSweep(&b, st, o.Sweep)
	fmt.Fprintf(&b, "\n%s\n", st.Heading.Render("Reading"))
	for _, r := range o.Reading {
		writeWrapped(&b, "  • ", 4, r, width, nil)
	}
	b.WriteString("\n")
	if o.Tool == "dd" {
		writeWrapped(&b, "", 0, "Reproduce any row by hand: --format json carries each row's dd command line.", width, &st.Dim)
	} else {
		writeWrapped(&b, "", 0, "Reproduce any row by hand: --format json carries each row's fio job and command line; --dry-run prints the job files.", width, &st.Dim)
	}
	fmt.Fprint(w, b.String())
}

// textWidth is the layout width: report.DefaultWidth for 0, never below
// report.MinWidth.
func textWidth(width int) int {
	if width <= 0 {
		return report.DefaultWidth
	}
	return max(width, report.MinWidth)
}

// writeWrapped writes prefix (already laid out, indent columns wide) and
// text wrapped to width, the other lines indented by indent; st styles
// the text (nil: plain).
func writeWrapped(b *strings.Builder, prefix string, indent int, text string, width int, st *lipgloss.Style) {
	for i, l := range report.Wrap(text, width, indent, indent) {
		if st != nil {
			l = strings.Repeat(" ", len(l)-len(strings.TrimLeft(l, " "))) + st.Render(strings.TrimLeft(l, " "))
		}
		if i == 0 {
			l = prefix + l
		}
		b.WriteString(l + "\n")
	}
}

// packItems joins items with sep into lines of at most width columns,
// breaking only between items.
func packItems(items []string, sep string, width int) []string {
	var lines []string
	cur := ""
	for _, it := range items {
		switch {
		case cur == "":
			cur = it
		case lipgloss.Width(cur+sep+it) <= width:
			cur += sep + it
		default:
			lines = append(lines, cur)
			cur = it
		}
	}
	if cur != "" {
		lines = append(lines, cur)
	}
	return lines
}

func benchHeader(b *strings.Builder, st report.Styles, o *Result, width int) {
	t := o.Target
	where := t.Path
	if len(t.Disks) > 0 {
		where += " on " + strings.Join(t.Disks, ", ")
	} else if t.Pool != "" {
		where += " on ZFS pool " + t.Pool
	}
	writeWrapped(b, st.Bold.Render("diskdoctor bench")+" ", len("diskdoctor bench "), "— "+where, width, &st.Dim)
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
	for _, l := range packItems(how, " · ", width) {
		fmt.Fprintf(b, "%s\n", st.Dim.Render(l))
	}
	if d := o.Datasheet; d != nil {
		writeWrapped(b, st.Dim.Render("datasheet")+" ", len("datasheet "), d.Device+": "+d.Product, width, nil)
	}
	if o.EngineNote != "" {
		writeWrapped(b, st.Dim.Render("engine:")+" ", len("engine: "), o.EngineNote, width, nil)
	}
	b.WriteString("\n")
}

// preflightIndent is where a preflight check's text starts: "  " and the
// severity in 8 columns and a space.
const preflightIndent = 11

func benchPreflight(b *strings.Builder, st report.Styles, pre Preflight, width int) {
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
		writeWrapped(b, "  "+sev+" ", preflightIndent, c.ID+subj+": "+c.Text, width, nil)
		var comp *Competing
		switch c.ID {
		case "bench-competing-io":
			comp = pre.Competing
		case "bench-competing-io-after":
			comp = pre.After
		}
		if comp.Busy() {
			for _, l := range comp.ProcessLines(width, preflightIndent) {
				b.WriteString(l + "\n")
			}
		}
	}
	b.WriteString("\n")
}

// ProcessLines lays out the processes that did I/O in the window as a
// table within width columns, indented, after a line saying what they are
// (Competing.ProcessesNote). Each is named once, by pid, command
// (window.ShortCommand: never a whole command line), unit, MB/s and its
// estimated IOPS and share of the device's busy time.
func (c *Competing) ProcessLines(width, indent int) []string {
	width = textWidth(width)
	pad := strings.Repeat(" ", indent)
	lines := report.Wrap(c.ProcessesNote(), width, indent, indent)
	lines[0] = pad + lines[0]
	if len(c.Processes) == 0 {
		return lines
	}
	cols := []report.TableColumn{
		{Header: "PID", Right: true},
		{Header: "COMMAND", Shrink: true, MinW: 12},
		{Header: "UNIT", Shrink: true, MinW: 10, Drop: 1},
		{Header: "MB/s", Right: true},
		{Header: "~IOPS", Right: true, Drop: 2},
		{Header: "~SHARE", Right: true},
	}
	var rows [][]string
	split := map[string]bool{}
	for _, p := range c.Processes {
		iops, pct := "?", "?"
		if p.IOPS != nil && p.TimePct != nil {
			iops, pct = fmt.Sprintf("%.0f", *p.IOPS), fmt.Sprintf("%.0f %%", *p.TimePct)
		}
		if p.ExitedChildren && p.ReadMBs+p.WriteMBs < 0.05 {
			// Ended threads fold into the process's file as reaped
			// children do (fs/proc/base.c do_io_accounting sums
			// signal->ioac): a few requests of them are no competitor.
			continue
		}
		split[p.Split] = true
		name := or(p.Cmdline, p.Comm)
		if p.ExitedChildren {
			name = "exited threads and children of " + name
		}
		rows = append(rows, []string{fmt.Sprint(p.PID), name, or(p.Unit, "-"), fmt.Sprintf("%.1f", p.ReadMBs+p.WriteMBs), iops, pct})
	}
	header, body, _ := report.FitTable(cols, rows, width-indent)
	lines = append(lines, pad+header)
	for _, l := range body {
		lines = append(lines, pad+l)
	}
	text := "~: estimated from each one's share of the bytes on these devices"
	switch {
	case split[""] && len(split) == 1:
		text = "~SHARE ?: the kernel counts a process's I/O on all devices together (/proc/PID/io), and other devices were busy too, so its share of these is not known"
	case split[""]:
		text += "; ?: its I/O on all devices together (/proc/PID/io) cannot be split per device"
	case split["only busy devices"]:
		text += " (the only busy ones in the window)"
	}
	note := report.Wrap(text, width, indent, indent)
	note[0] = pad + note[0]
	return append(lines, note...)
}

// benchNotes prints notes shared by several rows once, naming the rows.
func benchNotes(b *strings.Builder, st report.Styles, rows []Row, width int) {
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
		writeWrapped(b, "  "+st.Dim.Render("note:")+" ", len("  note: "), n+" ("+benchAbbrev(rowsOf[n], 4)+")", width, nil)
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

// benchUnit is the unit of a table's latency columns: one for all of
// them, so that read and write, p50 and p99 read alike.
type benchUnit struct {
	name string
	div  float64
}

func (u benchUnit) format(us float64) string {
	if us <= 0 {
		return "-"
	}
	v := us / u.div
	if v < 1 {
		return fmt.Sprintf("%.3f", v) // a fast p50 beside slow p99s in ms
	}
	return Num(v)
}

// benchLatUnit picks ms when the largest value reaches 10 ms, else µs.
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

// benchTable is the results: read and write side by side when that fits
// the width, else a read table above a write table. Every latency column
// has the same unit (benchLatUnit over all of them).
func benchTable(st report.Styles, o *Result, width int) string {
	lines := benchLines(o.Rows)
	// Datasheet columns only when some row has a figure to be held against
	// (a virtual disk's class has none).
	ds := slices.ContainsFunc(o.Rows, func(r Row) bool { return r.Pct != nil })
	unit := benchLatUnit(func(yield func(float64) bool) {
		for _, r := range o.Rows {
			if !yield(r.Lat.P50) || !yield(r.Lat.P99) {
				return
			}
		}
	})
	pick := func(l benchLine, op string) *Row {
		if op == "write" {
			return l.write
		}
		return l.read
	}
	render := func(ops ...string) string {
		headers := []string{"TEST"}
		for _, op := range ops {
			headers = append(headers, strings.ToUpper(op[:1])+op[1:]+" MB/s", "IOPS", "p50 "+unit.name, "p99 "+unit.name)
			if ds {
				headers = append(headers, "datasheet", "%")
			}
		}
		t := table.New().Border(lipgloss.NormalBorder()).BorderStyle(st.Dim).Headers(headers...)
		for _, l := range lines {
			cells := []string{l.label}
			for _, op := range ops {
				r := pick(l, op)
				if r == nil {
					cells = append(cells, "-", "-", "-", "-")
					if ds {
						cells = append(cells, "-", "-")
					}
					continue
				}
				cells = append(cells, Num(r.MBs), Num(r.IOPS), unit.format(r.Lat.P50), unit.format(r.Lat.P99))
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
	var ops []string
	for _, op := range []string{"read", "write"} {
		if slices.ContainsFunc(lines, func(l benchLine) bool { return pick(l, op) != nil }) {
			ops = append(ops, op)
		}
	}
	if len(ops) == 0 {
		ops = []string{"read", "write"}
	}
	both := render(ops...)
	if len(ops) == 1 || lipgloss.Width(both) <= width {
		return both
	}
	return render("read") + render("write")
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
