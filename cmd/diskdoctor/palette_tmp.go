package main

// TEMPORARY, for benchcmd_render.go only: the text palette moved to
// report/ (report/text.go); bench's tables move to report/bench*.go on
// another branch. The lead deletes this file when that lands.

import (
	"fmt"
	"io"
	"strings"

	"github.com/charmbracelet/lipgloss"
	"github.com/muesli/termenv"

	"github.com/diskdoctor/diskdoctor/rules"
)

type palette struct {
	r                                  *lipgloss.Renderer
	bold, dim, critical, warning, info lipgloss.Style
	ok, heading                        lipgloss.Style
}

func newPalette(w io.Writer, color bool) palette {
	r := lipgloss.NewRenderer(w)
	if color {
		r.SetColorProfile(termenv.ANSI256)
	} else {
		r.SetColorProfile(termenv.Ascii)
	}
	return palette{
		r: r, bold: r.NewStyle().Bold(true), dim: r.NewStyle().Faint(true),
		critical: r.NewStyle().Bold(true).Foreground(lipgloss.Color("196")),
		warning:  r.NewStyle().Bold(true).Foreground(lipgloss.Color("214")),
		info:     r.NewStyle().Foreground(lipgloss.Color("39")),
		ok:       r.NewStyle().Bold(true).Foreground(lipgloss.Color("42")),
		heading:  r.NewStyle().Bold(true).Underline(true),
	}
}

func (p palette) severity(s string) lipgloss.Style {
	switch s {
	case rules.Critical:
		return p.critical
	case rules.Warning:
		return p.warning
	}
	return p.info
}

func abbreviate(xs []string, n int) string {
	if len(xs) <= n {
		return strings.Join(xs, ", ")
	}
	return strings.Join(xs[:n], ", ") + fmt.Sprintf(" … (+%d)", len(xs)-n)
}
