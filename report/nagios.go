package report

// --format nagios: a monitoring plugin's output (Nagios, Icinga, Naemon,
// Sensu, any check runner). Line 1 is the status line, self-contained:
//
//	DISKDOCTOR CRITICAL - write-cache-disabled on sda,sdb,sdc,sdd; io-pressure-high on host | critical=2 warning=1 info=1 skipped=0
//
// The status word is the verdict and matches the exit status (0 OK,
// 1 WARNING, 2 CRITICAL; 3 UNKNOWN is an error before any report exists).
// The following lines are the plugin's long output: one line per finding
// and per skipped entry, most important first.

import (
	"bufio"
	"fmt"
	"io"
	"strings"

	"github.com/diskdoctor/diskdoctor/rules"
)

func init() {
	Register("nagios", renderNagios)
}

// Bounds that keep the status line short enough for any plugin runner
// (Nagios 3 cuts plugin output at 4 KiB, some UIs show one line).
const (
	nagiosMaxFindings = 3 // findings named on the status line
	nagiosMaxSubjects = 8 // subjects named per finding
)

// nagiosStatus is the status word of each exit status.
var nagiosStatus = map[int]string{
	rules.ExitOK:       "OK",
	rules.ExitWarning:  "WARNING",
	rules.ExitCritical: "CRITICAL",
	rules.ExitUnknown:  "UNKNOWN",
}

func renderNagios(w io.Writer, rep *rules.Report, _ RunInfo) error {
	status := nagiosStatus[rep.ExitCode()]
	counts := map[string]int{}
	for _, f := range rep.Findings {
		counts[f.Severity]++
	}

	// The summary names the findings of the verdict's severity, in rank
	// order; OK names none.
	var named []string
	var more int
	want := rep.Verdict // "critical" or "warning"
	for _, f := range rep.Findings {
		if f.Severity != want {
			continue
		}
		if len(named) == nagiosMaxFindings {
			more++
			continue
		}
		named = append(named, f.Rule+" on "+nagiosSubjects(f.Subjects))
	}
	var summary string
	switch {
	case rep.Verdict == rules.VerdictOK:
		summary = "no warning or critical findings"
		if n := counts[rules.Info]; n > 0 {
			summary += fmt.Sprintf(" (%d info)", n)
		}
	case len(named) == 0:
		// Not ready for a benchmark, with nothing found: said below.
	default:
		summary = strings.Join(named, "; ")
		if more > 0 {
			summary += fmt.Sprintf("; %d more %s", more, want)
		}
		if rep.Verdict == rules.VerdictCritical && counts[rules.Warning] > 0 {
			summary += fmt.Sprintf("; %d warning", counts[rules.Warning])
		}
	}
	if rep.Ready != nil && !*rep.Ready {
		// Each reason named (a rule by its id, as the findings are) and
		// apart: a device's load is itself a list of figures.
		var why []string
		for _, n := range rep.NotReady {
			what := n.Rule
			if what == "" {
				what = n.Reason
			}
			why = append(why, notReadyItem(n, what))
		}
		summary += "; not ready to benchmark: " + strings.Join(why, "; ")
	}
	// What could not be examined keeps an OK from being a plain one.
	if len(rep.Incomplete) > 0 {
		var inc []string
		for i, c := range rep.Incomplete {
			if i == nagiosMaxFindings {
				inc = append(inc, fmt.Sprintf("+%d more", len(rep.Incomplete)-i))
				break
			}
			inc = append(inc, c.Check+" on "+nagiosSubjects(c.Subjects)+" ("+c.Reason+")")
		}
		summary += "; incomplete: " + strings.Join(inc, ", ")
	}
	if n := len(rep.Skipped); n > 0 {
		summary += fmt.Sprintf("; %d skipped", n)
	}

	summary = strings.TrimPrefix(summary, "; ")
	bw := bufio.NewWriter(w)
	fmt.Fprintf(bw, "DISKDOCTOR %s - %s | critical=%d warning=%d info=%d skipped=%d incomplete=%d\n",
		status, nagiosText(summary), counts[rules.Critical], counts[rules.Warning], counts[rules.Info], len(rep.Skipped), len(rep.Incomplete))

	// Long output.
	for _, f := range rep.Findings {
		fmt.Fprintln(bw, nagiosText(strings.ToUpper(f.Severity)+" "+f.Rule+" on "+nagiosSubjects(f.Subjects)+": "+f.Title))
	}
	// A waived finding is listed, below the ones that count: the state
	// and the counts leave it out.
	for _, f := range rep.WaivedFindings {
		fmt.Fprintln(bw, nagiosText("WAIVED "+f.Rule+" on "+nagiosSubjects(f.Subjects)+": "+f.Waiver.Reason))
	}
	for _, w := range rep.Waivers {
		if w.State == rules.WaiverExpired {
			fmt.Fprintln(bw, nagiosText("EXPIRED waiver of "+w.Rule+" ("+w.Source+"): ended "+w.Until))
		}
	}
	for _, s := range rep.Skipped {
		line := "SKIPPED " + s.Check
		if len(s.Subjects) > 0 {
			line += " on " + nagiosSubjects(s.Subjects)
		}
		line += ": " + s.Reason
		if s.Hint != "" {
			line += "; " + s.Hint
		}
		fmt.Fprintln(bw, nagiosText(line))
	}
	return bw.Flush()
}

// nagiosSubjects lists subjects comma-separated, at most nagiosMaxSubjects.
func nagiosSubjects(subjects []string) string {
	if len(subjects) <= nagiosMaxSubjects {
		return strings.Join(subjects, ",")
	}
	return strings.Join(subjects[:nagiosMaxSubjects], ",") + fmt.Sprintf(",+%d more", len(subjects)-nagiosMaxSubjects)
}

// NagiosUnknown is the status line of a run that could not judge: the
// machine could not be examined, or the run was interrupted.
func NagiosUnknown(reason string) string {
	return fmt.Sprintf("DISKDOCTOR UNKNOWN - %s", nagiosText(reason))
}

// nagiosText keeps free text on one line and out of the performance data:
// a "|" would start perfdata, a line feed a new line of output; control
// characters are escaped (a web UI or a terminal shows the status line).
func nagiosText(s string) string {
	return clean(strings.NewReplacer("|", "/", "\n", " ", "\r", " ").Replace(s))
}
