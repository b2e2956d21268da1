package report

import (
	"strings"
)

// column is one column of a text table.
type column struct {
	header string
	// drop is the order in which columns are left out when the table is
	// too wide: the lowest first; 0 is never left out.
	drop int
	// shrink: cells may be cut (with …) down to minW before any column is
	// left out.
	shrink bool
	minW   int
	maxW   int  // cut to this even when there is room (0: no bound)
	right  bool // numbers: aligned right
}

// fitTable lays a table out within w columns: first the shrinkable
// columns are cut down to their minimum, then columns are left out in
// their drop order; never is a row wrapped. It returns the lines (header
// first, without styling) and the headers of the columns left out.
func fitTable(cols []column, rows [][]string, w int) (header string, lines []string, omitted []string) {
	l := newLayout(cols, rows)
	l.shrink(w)
	omitted = l.drop(w)
	hs := make([]string, len(cols))
	for i, c := range cols {
		hs[i] = c.header
	}
	header = l.line(hs)
	for _, r := range rows {
		lines = append(lines, l.line(r))
	}
	return header, lines, omitted
}

// tableGap is the space between two columns.
const tableGap = 2

// layout is the columns of a table being fitted: which are kept, and each
// one's width.
type layout struct {
	cols   []column
	keep   []bool
	widths []int
}

// newLayout keeps every column at its widest cell (or header), capped at
// its maxW.
func newLayout(cols []column, rows [][]string) *layout {
	l := &layout{cols: cols, keep: make([]bool, len(cols)), widths: make([]int, len(cols))}
	for i, c := range cols {
		l.keep[i] = true
		l.widths[i] = width(c.header)
		for _, r := range rows {
			l.widths[i] = max(l.widths[i], width(r[i]))
		}
		if c.maxW > 0 {
			l.widths[i] = min(l.widths[i], max(c.maxW, width(c.header)))
		}
	}
	return l
}

func (l *layout) total() int {
	t, n := 0, 0
	for i := range l.cols {
		if l.keep[i] {
			t += l.widths[i]
			n++
		}
	}
	return t + tableGap*max(n-1, 0)
}

// shrink cuts the widest shrinkable column first, a column at a time,
// until the table fits or none can give more.
func (l *layout) shrink(w int) {
	for l.total() > w {
		best := -1
		for i, c := range l.cols {
			if l.keep[i] && c.shrink && l.widths[i] > max(c.minW, width(c.header)) && (best < 0 || l.widths[i] > l.widths[best]) {
				best = i
			}
		}
		if best < 0 {
			return
		}
		l.widths[best] = max(l.widths[best]-(l.total()-w), max(l.cols[best].minW, width(l.cols[best].header)))
	}
}

// drop leaves columns out, lowest drop order first, until the table fits;
// it returns their headers.
func (l *layout) drop(w int) (omitted []string) {
	for l.total() > w {
		victim := -1
		for i, c := range l.cols {
			if l.keep[i] && c.drop > 0 && (victim < 0 || c.drop < l.cols[victim].drop) {
				victim = i
			}
		}
		if victim < 0 {
			break
		}
		l.keep[victim] = false
		omitted = append(omitted, l.cols[victim].header)
	}
	return omitted
}

// line lays out one row's cells in the kept columns.
func (l *layout) line(cells []string) string {
	var b strings.Builder
	first := true
	for i, c := range l.cols {
		if !l.keep[i] {
			continue
		}
		if !first {
			b.WriteString(strings.Repeat(" ", tableGap))
		}
		first = false
		cell := truncate(cells[i], l.widths[i])
		pad := strings.Repeat(" ", l.widths[i]-width(cell))
		if c.right {
			b.WriteString(pad + cell)
		} else {
			b.WriteString(cell + pad)
		}
	}
	return strings.TrimRight(b.String(), " ")
}

// TableColumn is a column of FitTable: its header, whether it holds
// numbers (aligned right), whether its cells may be cut (…) down to MinW,
// and Drop, the order in which it is left out when even that is too wide
// (0: never).
type TableColumn struct {
	Header     string
	Right      bool
	Shrink     bool
	MinW, MaxW int
	Drop       int
}

// FitTable lays a table out within w columns as the text report's tables
// are (other commands' text, such as bench's, looks the same): header
// line, row lines (plain, cells cleaned of control characters), and the
// headers of the columns left out.
func FitTable(cols []TableColumn, rows [][]string, w int) (header string, lines, omitted []string) {
	cs := make([]column, len(cols))
	for i, c := range cols {
		cs[i] = column{header: c.Header, right: c.Right, shrink: c.Shrink, minW: c.MinW, maxW: c.MaxW, drop: c.Drop}
	}
	cleaned := make([][]string, len(rows))
	for i, r := range rows {
		cleaned[i] = make([]string, len(r))
		for j, cell := range r {
			cleaned[i][j] = clean(cell)
		}
	}
	return fitTable(cs, cleaned, w)
}
