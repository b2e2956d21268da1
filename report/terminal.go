package report

import (
	"fmt"
	"io"
	"os"
	"strconv"
	"time"

	"github.com/charmbracelet/x/term"
)

// MinWidth is the narrowest width the text report can be laid out for:
// below it a finding's title alone no longer fits beside its rank and
// severity.
const MinWidth = 40

// ColorModes are the values of a --color flag, a new list each time.
func ColorModes() []string { return []string{"auto", "always", "never"} }

// TerminalWidth is the width of the terminal w is, from COLUMNS or the
// tty; 0 (the report's DefaultWidth) when w is not a terminal.
func TerminalWidth(w io.Writer) int {
	f, ok := w.(*os.File)
	if !ok || !IsTerminal(w) {
		return 0
	}
	if c, err := strconv.Atoi(os.Getenv("COLUMNS")); err == nil && c > 0 {
		return c
	}
	if cols, _, err := term.GetSize(f.Fd()); err == nil && cols > 0 {
		return cols
	}
	return 0
}

// IsTerminal tells whether w is a terminal (a character device), where
// colour and lines rewritten in place are wanted.
func IsTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	if !ok {
		return false
	}
	st, err := f.Stat()
	return err == nil && st.Mode()&os.ModeCharDevice != 0
}

// ColorWanted decides colour for a --color mode (ColorModes): auto is a
// terminal and no NO_COLOR in the environment.
func ColorWanted(mode string, w io.Writer) bool {
	switch mode {
	case "always":
		return true
	case "never":
		return false
	}
	return os.Getenv("NO_COLOR") == "" && IsTerminal(w)
}

// SampleProgress prints, in place on w, what the sampling window reads and
// the time left of total.
func SampleProgress(w io.Writer, total time.Duration) func(elapsed time.Duration) {
	return func(elapsed time.Duration) {
		left := max(total-elapsed, 0).Round(100 * time.Millisecond)
		fmt.Fprintf(w, "\r\033[Ksampling /proc/diskstats, /proc/pressure, /proc/*/io: %s left of %s", left, total)
	}
}

// ClearLine erases the line a progress function wrote, so that what follows
// does not start on it.
func ClearLine(w io.Writer) { fmt.Fprint(w, "\r\033[K") }
