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
	const gap = 2
	keep := make([]bool, len(cols))
	widths := make([]int, len(cols))
	for i, c := range cols {
		keep[i] = true
		widths[i] = width(c.header)
		for _, r := range rows {
			widths[i] = max(widths[i], width(r[i]))
		}
		if c.maxW > 0 {
			widths[i] = min(widths[i], max(c.maxW, width(c.header)))
		}
	}
	total := func() int {
		t, n := 0, 0
		for i := range cols {
			if keep[i] {
				t += widths[i]
				n++
			}
		}
		return t + gap*max(n-1, 0)
	}
	// Shrink the widest shrinkable column first, a column at a time.
	for total() > w {
		best := -1
		for i, c := range cols {
			if keep[i] && c.shrink && widths[i] > max(c.minW, width(c.header)) && (best < 0 || widths[i] > widths[best]) {
				best = i
			}
		}
		if best < 0 {
			break
		}
		widths[best] = max(widths[best]-(total()-w), max(cols[best].minW, width(cols[best].header)))
	}
	for total() > w {
		victim := -1
		for i, c := range cols {
			if keep[i] && c.drop > 0 && (victim < 0 || c.drop < cols[victim].drop) {
				victim = i
			}
		}
		if victim < 0 {
			break
		}
		keep[victim] = false
		omitted = append(omitted, cols[victim].header)
	}
	line := func(cells []string) string {
		var b strings.Builder
		first := true
		for i, c := range cols {
			if !keep[i] {
				continue
			}
			if !first {
				b.WriteString(strings.Repeat(" ", gap))
			}
			first = false
			cell := truncate(cells[i], widths[i])
			pad := strings.Repeat(" ", widths[i]-width(cell))
			if c.right {
				b.WriteString(pad + cell)
			} else {
				b.WriteString(cell + pad)
			}
		}
		return strings.TrimRight(b.String(), " ")
	}
	hs := make([]string, len(cols))
	for i, c := range cols {
		hs[i] = c.header
	}
	header = line(hs)
	for _, r := range rows {
		lines = append(lines, line(r))
	}
	return header, lines, omitted
}
