package report

import (
	"fmt"
	"io"
	"strings"

	"github.com/charmbracelet/lipgloss"
	"github.com/charmbracelet/lipgloss/table"
	"github.com/muesli/termenv"

	"github.com/diskdoctor/diskdoctor/rules"
)

func init() {
	Register("text", func(w io.Writer, rep *rules.Report, run RunInfo) error {
		renderText(w, rep, run.Color)
		return nil
	})
}

// maxEvidence bounds the evidence lines printed per finding; JSON has all.
const maxEvidence = 10

type palette struct {
	r                                  *lipgloss.Renderer
	bold, dim, critical, warning, info lipgloss.Style
	ok, heading, risk                  lipgloss.Style
	riskStyles                         map[string]lipgloss.Style
}

func newPalette(w io.Writer, color bool) palette {
	r := lipgloss.NewRenderer(w)
	if color {
		r.SetColorProfile(termenv.ANSI256)
	} else {
		r.SetColorProfile(termenv.Ascii)
	}
	p := palette{r: r}
	p.bold = r.NewStyle().Bold(true)
	p.dim = r.NewStyle().Faint(true)
	p.critical = r.NewStyle().Bold(true).Foreground(lipgloss.Color("196"))
	p.warning = r.NewStyle().Bold(true).Foreground(lipgloss.Color("214"))
	p.info = r.NewStyle().Foreground(lipgloss.Color("39"))
	p.ok = r.NewStyle().Bold(true).Foreground(lipgloss.Color("42"))
	p.heading = r.NewStyle().Bold(true).Underline(true)
	p.riskStyles = map[string]lipgloss.Style{
		rules.RiskReadOnly:    r.NewStyle().Foreground(lipgloss.Color("42")),
		rules.RiskRuntime:     r.NewStyle().Foreground(lipgloss.Color("39")),
		rules.RiskPersistent:  r.NewStyle().Foreground(lipgloss.Color("214")),
		rules.RiskDestructive: r.NewStyle().Bold(true).Foreground(lipgloss.Color("196")),
	}
	return p
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

// renderText prints the report for a person: the verdict first, then the
// findings in rank order, the device table, and what was skipped.
func renderText(w io.Writer, rep *rules.Report, color bool) {
	p := newPalette(w, color)
	out := &strings.Builder{}
	h := rep.Host
	fmt.Fprintf(out, "%s %s\n", p.bold.Render("diskdoctor"), p.dim.Render(hostLine(h)))
	fmt.Fprintf(out, "%s\n\n", verdictLine(p, rep))

	for i, f := range rep.Findings {
		sev := p.severity(f.Severity).Render(strings.ToUpper(f.Severity))
		fmt.Fprintf(out, "%d. %s %s %s\n", i+1, sev, p.bold.Render(f.Title), p.dim.Render("["+f.Rule+"]"))
		field(out, p, "on", strings.Join(f.Subjects, ", "))
		field(out, p, "observed", f.Observed)
		field(out, p, "expected", f.Expected)
		field(out, p, "impact", f.Impact)
		if len(f.Evidence) > 0 {
			fmt.Fprintf(out, "   %s\n", p.dim.Render("evidence:"))
			for j, ev := range f.Evidence {
				if j == maxEvidence {
					fmt.Fprintf(out, "     … %d more (--format json lists all)\n", len(f.Evidence)-maxEvidence)
					break
				}
				fmt.Fprintf(out, "     %s: %s\n", ev.Source, ev.Value)
			}
		}
		for _, n := range f.Notes {
			fmt.Fprintf(out, "   %s %s\n", p.dim.Render("note:"), n)
		}
		if len(f.Remediation) > 0 {
			fmt.Fprintf(out, "   %s\n", p.dim.Render("fix:"))
			for _, m := range f.Remediation {
				label := fmt.Sprintf("%-13s", "["+m.Risk+"]")
				fmt.Fprintf(out, "     %s %s\n", p.riskStyles[m.Risk].Render(label), m.Command)
				if m.Note != "" {
					fmt.Fprintf(out, "     %s %s\n", strings.Repeat(" ", 13), p.dim.Render(m.Note))
				}
			}
		}
		out.WriteString("\n")
	}

	fmt.Fprintln(out, p.heading.Render("Devices"))
	out.WriteString(deviceTable(p, rep))
	out.WriteString("\n")

	if len(rep.Skipped) > 0 {
		fmt.Fprintf(out, "\n%s\n", p.heading.Render("Skipped checks"))
		for _, s := range rep.Skipped {
			subj := ""
			if len(s.Subjects) > 0 {
				subj = " (" + abbreviate(s.Subjects, 8) + ")"
			}
			fmt.Fprintf(out, "  %s%s: %s\n", p.bold.Render(s.Check), subj, s.Reason)
			fmt.Fprintf(out, "    %s %s\n", p.dim.Render("hint:"), s.Hint)
		}
	}
	fmt.Fprint(w, out.String())
}

func hostLine(h rules.Host) string {
	parts := []string{h.Hostname}
	if h.Platform != "" {
		plat := h.Platform
		if h.BIOS != "" {
			plat += ", BIOS " + h.BIOS
		}
		parts = append(parts, plat)
	}
	if h.Distro != "" {
		parts = append(parts, h.Distro)
	}
	if h.Kernel != "" {
		parts = append(parts, "kernel "+h.Kernel)
	}
	if h.Root != "/" {
		parts = append(parts, "recorded at "+h.Root)
	}
	return "— " + strings.Join(nonEmpty(parts), " · ")
}

func verdictLine(p palette, rep *rules.Report) string {
	count := map[string]int{}
	for _, f := range rep.Findings {
		count[f.Severity]++
	}
	plural := func(n int, word string) string {
		if n == 1 {
			return fmt.Sprintf("%d %s finding", n, word)
		}
		return fmt.Sprintf("%d %s findings", n, word)
	}
	switch rep.Verdict {
	case rules.VerdictCritical:
		msg := plural(count[rules.Critical], "critical")
		if count[rules.Warning] > 0 {
			msg += ", " + plural(count[rules.Warning], "warning")
		}
		return p.critical.Render("NOT READY to benchmark: " + msg)
	case rules.VerdictWarning:
		return p.warning.Render("CAUTION before benchmarking: " + plural(count[rules.Warning], "warning"))
	}
	msg := "READY: no warning or critical findings"
	if count[rules.Info] > 0 {
		msg += fmt.Sprintf(" (%d for information)", count[rules.Info])
	}
	return p.ok.Render(msg)
}

func field(out *strings.Builder, p palette, name, value string) {
	if value == "" {
		return
	}
	fmt.Fprintf(out, "   %s %s\n", p.dim.Render(fmt.Sprintf("%-9s", name+":")), value)
}

// deviceTable is the compact inventory of judged devices; virtual devices
// are counted, not listed.
func deviceTable(p palette, rep *rules.Report) string {
	t := table.New().Border(lipgloss.NormalBorder()).BorderStyle(p.dim).
		Headers("DEVICE", "MODEL", "BUS", "SIZE", "CLASS", "CACHE", "TRIM", "SCHED", "MOUNTS / POOLS")
	var skipped []string
	rows := 0
	for _, d := range rep.Devices {
		name, _ := d["name"].(string)
		if judged, _ := d["judged"].(bool); !judged {
			skipped = append(skipped, name)
			continue
		}
		rows++
		if rows > 50 {
			continue
		}
		t.Row(name, s(d["model"]), s(d["transport"]), size(d["size_bytes"]), s(d["class"]), cache(d), trimCell(d), s(d["scheduler"]), usage(d))
	}
	var b strings.Builder
	if rows > 0 {
		b.WriteString(t.String())
		b.WriteString("\n")
	}
	if rows > 50 {
		fmt.Fprintf(&b, "… %d more devices (--format json lists all)\n", rows-50)
	}
	if len(skipped) > 0 {
		fmt.Fprintf(&b, "%s\n", p.dim.Render(fmt.Sprintf("not judged (virtual, or NVMe paths; name one with --device): %s", abbreviate(skipped, 12))))
	}
	return b.String()
}

func cache(d map[string]any) string {
	switch d["wc_on"] {
	case true:
		return "on"
	case false:
		return "OFF"
	}
	return "-"
}

func trimCell(d map[string]any) string {
	if d["trim_supported"] == false {
		return "no"
	}
	switch d["trim_covered"] {
	case true:
		return "scheduled"
	case false:
		return "NEVER"
	}
	if d["trim_supported"] == true {
		return "yes"
	}
	return "-"
}

func usage(d map[string]any) string {
	var parts []string
	if mps, ok := d["mountpoints"].([]string); ok {
		parts = append(parts, mps...)
	}
	if pools, ok := d["zfs_pools"].([]string); ok {
		for _, pl := range pools {
			parts = append(parts, "zfs:"+pl)
		}
	}
	return abbreviate(parts, 3)
}

// siStep is a step of the decimal size units (kB, MB, GB), as drive
// datasheets count them.
const siStep = 1000

func size(v any) string {
	b, ok := v.(uint64)
	if !ok || b == 0 {
		return "-"
	}
	units := []string{"B", "kB", "MB", "GB", "TB", "PB"}
	f := float64(b)
	i := 0
	for f >= siStep && i < len(units)-1 {
		f /= siStep
		i++
	}
	if f >= 100 {
		return fmt.Sprintf("%.0f %s", f, units[i])
	}
	return fmt.Sprintf("%.1f %s", f, units[i])
}

func s(v any) string {
	if x, ok := v.(string); ok && x != "" {
		return x
	}
	return "-"
}

func abbreviate(xs []string, n int) string {
	if len(xs) <= n {
		return strings.Join(xs, ", ")
	}
	return strings.Join(xs[:n], ", ") + fmt.Sprintf(" … (+%d)", len(xs)-n)
}

func nonEmpty(xs []string) []string {
	var out []string
	for _, x := range xs {
		if x != "" {
			out = append(out, x)
		}
	}
	return out
}
