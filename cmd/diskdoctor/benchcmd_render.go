package main

import (
	"encoding/json"
	"fmt"
	"io"
	"strings"

	"github.com/charmbracelet/lipgloss"
	"github.com/charmbracelet/lipgloss/table"
)

func benchWriteJSON(w io.Writer, out *benchOutput) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(out)
}

// renderBench prints the bench report for a person: what was measured and
// how, the preflight, the results table against the datasheet, the sweep
// curve, and the doctor's reading.
func renderBench(w io.Writer, o *benchOutput, color bool) {
	p := newPalette(w, color)
	var b strings.Builder
	t := o.Target
	where := t.Path
	if len(t.Disks) > 0 {
		where += " on " + strings.Join(t.Disks, ", ")
	} else if t.Pool != "" {
		where += " on ZFS pool " + t.Pool
	}
	fmt.Fprintf(&b, "%s %s\n", p.bold.Render("diskdoctor bench"), p.dim.Render("— "+where))
	how := []string{}
	if t.FSType != "" {
		how = append(how, t.FSType)
	}
	if o.Tool == "dd" {
		how = append(how, "dd fallback (LESS PRECISE: fio not installed)")
	} else {
		how = append(how, fmt.Sprintf("%s, engine %s", o.FioVersion, o.Engine))
	}
	if o.Direct {
		how = append(how, "O_DIRECT")
	} else {
		how = append(how, "BUFFERED (no O_DIRECT)")
	}
	how = append(how, "test file "+benchBytes(t.FileSize)+" of random data", fmt.Sprintf("%gs per test", o.RuntimeS))
	fmt.Fprintf(&b, "%s\n", p.dim.Render(strings.Join(how, " · ")))
	if d := o.Datasheet; d != nil {
		fmt.Fprintf(&b, "%s %s: %s\n", p.dim.Render("datasheet"), d.Device, d.Product)
	}
	if o.EngineNote != "" {
		fmt.Fprintf(&b, "%s %s\n", p.dim.Render("engine:"), o.EngineNote)
	}
	b.WriteString("\n")

	if len(o.Preflight.Checks) > 0 {
		fmt.Fprintln(&b, p.heading.Render("Preflight"))
		for _, c := range o.Preflight.Checks {
			sev := p.severity(c.Severity).Render(fmt.Sprintf("%-8s", strings.ToUpper(c.Severity)))
			subj := ""
			if len(c.Subjects) > 0 {
				subj = " (" + abbreviate(c.Subjects, 6) + ")"
			}
			fmt.Fprintf(&b, "  %s %s%s: %s\n", sev, c.ID, subj, c.Text)
		}
		b.WriteString("\n")
	}

	fmt.Fprintln(&b, p.heading.Render("Results"))
	b.WriteString(benchTable(p, o))
	b.WriteString("\n")
	// Notes shared by several rows are printed once, with the rows named.
	var order []string
	rowsOf := map[string][]string{}
	for _, r := range o.Rows {
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
		fmt.Fprintf(&b, "  %s %s (%s)\n", p.dim.Render("note:"), n, abbreviate(rowsOf[n], 4))
	}

	if s := o.Sweep; s != nil && len(s.Points) > 0 {
		fmt.Fprintf(&b, "\n%s\n", p.heading.Render("Sweep: random 4 KiB "+s.Op+"s at rising load"))
		st := table.New().Border(lipgloss.NormalBorder()).BorderStyle(p.dim).Headers("LOAD", "TEST", "IOPS", "p99", "")
		for _, pt := range s.Points {
			mark := ""
			if pt.Knee {
				mark = "← knee"
			}
			st.Row(fmt.Sprint(pt.Load), pt.Test, benchNum(pt.IOPS), benchUs(pt.P99Us), mark)
		}
		b.WriteString(st.String() + "\n")
		fmt.Fprintf(&b, "  %s %s\n", p.dim.Render("knee:"), s.Rule)
	}

	fmt.Fprintf(&b, "\n%s\n", p.heading.Render("Reading"))
	for _, r := range o.Reading {
		fmt.Fprintf(&b, "  • %s\n", r)
	}
	if o.Tool == "dd" {
		fmt.Fprintf(&b, "\n%s\n", p.dim.Render("Reproduce any row by hand: --format json carries each row's dd command line."))
	} else {
		fmt.Fprintf(&b, "\n%s\n", p.dim.Render("Reproduce any row by hand: --format json carries each row's fio job and command line; --dry-run prints the job files."))
	}
	fmt.Fprint(w, b.String())
}

func benchTable(p palette, o *benchOutput) string {
	t := table.New().Border(lipgloss.NormalBorder()).BorderStyle(p.dim).
		Headers("TEST", "OP", "MB/s", "IOPS", "p50", "p99", "p99.9", "DATASHEET", "%")
	for _, r := range o.Rows {
		ds, pct := "-", "-"
		if r.Datasheet != nil {
			ds = benchNum(r.Datasheet.Value) + " " + r.Datasheet.Unit
		}
		if r.Pct != nil {
			pct = benchPctText(*r.Pct, *r.Pct)
			switch {
			case *r.Pct < 10:
				pct = p.critical.Render(pct)
			case *r.Pct < 50:
				pct = p.warning.Render(pct)
			case *r.Pct > 150:
				pct = p.info.Render(pct + " (cache?)")
			}
		}
		test := r.Test
		if r.Asked != "" && r.Asked != r.Test {
			test += " (asked " + strings.TrimPrefix(strings.TrimPrefix(r.Asked, "SEQ1M "), "RND4K ") + ")"
		}
		t.Row(test, r.Op, benchNum(r.MBs), benchNum(r.IOPS), benchUs(r.Lat.P50), benchUs(r.Lat.P99), benchUs(r.Lat.P999), ds, pct)
	}
	return t.String() + "\n"
}

// dryRunText prints every job the profile can run, as one ini file (each job
// is its own stonewalled group, so `fio FILE` runs them one after another
// as the bench does), each preceded by its command-line equivalent.
func (b *benchRun) dryRunText() string {
	var s strings.Builder
	fmt.Fprintf(&s, "# diskdoctor bench --profile %s: the fio jobs it runs, one fio run per job, in this order.\n", b.o.profile)
	fmt.Fprintf(&s, "# Test file: %s (%s; diskdoctor fills it with random data first, then removes it).\n", b.tgt.File, benchBytes(b.size))
	fmt.Fprintf(&s, "# To reproduce by hand: create the file (e.g. head -c %d /dev/urandom > FILE), then run a job: fio --output-format=json --section=NAME THIS-FILE\n", b.size)
	fmt.Fprintf(&s, "# Engine %s (%s); direct=1 unless the filesystem refuses O_DIRECT (the run then uses direct=0 and says so).\n", b.engine, b.engineNote)
	if b.o.profile == "sweep" {
		fmt.Fprintf(&s, "# Sweep: the run stops at the first point whose p99 exceeds 3× the lowest; %s.\n", benchKneeRule)
	}
	for _, sp := range benchSpecs(b.o) {
		j := b.job(sp)
		fmt.Fprintf(&s, "\n# %s %s\n# %s\n%s", sp.Test, sp.Op, benchShellLine(append([]string{"fio"}, j.Argv()...)), j.Ini())
	}
	return s.String()
}
