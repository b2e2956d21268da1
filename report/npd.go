package report

// --format npd: a custom plugin of Kubernetes' node-problem-detector
// (its custom plugin monitor, pkg/custompluginmonitor). The plugin
// protocol is the exit status and one line of output:
//
//	CRITICAL: write-cache-disabled on sda,sdb,sdc,sdd; io-pressure-high on host
//
// The exit status is NPD's Status (pkg/custompluginmonitor/types/types.go:
// OK = 0, NonOK = 1, Unknown = 2; config/plugin/check_ntp.sh uses the
// same three), not the doctor's Nagios-compatible one: a warning or a
// critical verdict is NonOK (1), a run with no verdict (the doctor's 3)
// is Unknown (2). NPD keeps only the first max_output_length bytes of the
// output, 80 by default (pkg/custompluginmonitor/types/config.go
// defaultMaxOutputLength; plugin.go cuts the trimmed output at that many
// bytes), so the line is fitted to 80 bytes here, where the doctor knows
// what to drop, rather than cut there in the middle of a device name or
// a UTF-8 sequence.

import (
	"fmt"
	"io"
	"strings"
	"unicode/utf8"

	"github.com/diskdoctor/diskdoctor/rules"
)

func init() {
	Register("npd", renderNPD)
	registerExit("npd", NPDExit)
}

// NPDMaxLine is the most bytes of output node-problem-detector keeps by
// default (max_output_length).
const NPDMaxLine = 80

// NPD's plugin statuses (pkg/custompluginmonitor/types/types.go).
const (
	npdOK      = 0
	npdNonOK   = 1
	npdUnknown = 2
)

// NPDExit is the exit status of --format npd for the doctor's own.
func NPDExit(code int) int {
	switch code {
	case rules.ExitOK:
		return npdOK
	case rules.ExitWarning, rules.ExitCritical:
		return npdNonOK
	}
	return npdUnknown
}

func renderNPD(w io.Writer, rep *rules.Report, _ RunInfo) error {
	_, err := fmt.Fprintln(w, npdLine(rep))
	return err
}

// npdLine is the verdict and as many of the warning and critical findings
// (rule and subjects, most important first) as fit in NPDMaxLine bytes;
// what does not fit is counted ("+2 more"), never cut off unsaid.
func npdLine(rep *rules.Report) string {
	// The first word is the Nagios status word of the verdict.
	line := nagiosStatus[rep.ExitCode()] + ":"
	var problems []rules.Finding
	info := 0
	for _, f := range rep.Findings {
		if f.Severity == rules.Info {
			info++
			continue
		}
		problems = append(problems, f)
	}
	if len(problems) == 0 && rep.Ready != nil && !*rep.Ready && len(rep.NotReady) > 0 {
		// Nothing found, but not ready for a benchmark: what was measured.
		n := rep.NotReady[0]
		what := n.Rule
		if what == "" {
			what = n.Reason
		}
		return npdShorten(line+" not ready to benchmark: "+notReadyItem(n, what), NPDMaxLine)
	}
	if len(problems) == 0 {
		line += " no warning or critical findings"
		if info > 0 {
			line += fmt.Sprintf(" (%d info)", info)
		}
		return npdShorten(line, NPDMaxLine)
	}
	for i, f := range problems {
		// Room is kept for counting this finding and the rest, should
		// the next one not fit.
		more := ""
		if rest := len(problems) - i - 1; rest > 0 {
			more = fmt.Sprintf("; +%d more", rest)
		}
		sep := " "
		if i > 0 {
			sep = "; "
		}
		part := npdFinding(f, NPDMaxLine-len(line)-len(sep)-len(more), i == 0)
		if part == "" {
			return line + fmt.Sprintf("; +%d more", len(problems)-i)
		}
		line += sep + part
	}
	return line
}

// npdFinding is "rule on subject,subject,+N" in at most room bytes, or ""
// when not even the rule and the start of its first subject fit; the first
// finding is shortened instead.
func npdFinding(f rules.Finding, room int, first bool) string {
	rule := clean(f.Rule)
	if len(rule) > room {
		if first {
			return npdShorten(rule, room)
		}
		return ""
	}
	if len(f.Subjects) == 0 {
		return rule
	}
	s := rule + " on "
	for j, sub := range f.Subjects {
		sub = clean(sub)
		tail := ""
		if left := len(f.Subjects) - j - 1; left > 0 {
			tail = fmt.Sprintf(",+%d", left)
		}
		if j > 0 {
			sub = "," + sub
		}
		if len(s)+len(sub)+len(tail) <= room {
			s += sub
			continue
		}
		if j > 0 {
			return s + fmt.Sprintf(",+%d", len(f.Subjects)-j)
		}
		// Not even the first subject fits whole: its start does (a
		// hostile or very long name); or the first finding goes without
		// its subjects, a later one is only counted.
		if n := room - len(s) - len(tail); n >= len("x...") {
			return s + npdShorten(sub, n) + tail
		}
		if first {
			return rule
		}
		return ""
	}
	return s
}

// npdShorten cuts s to at most n bytes on a character boundary, marking
// the cut with "...".
func npdShorten(s string, n int) string {
	if len(s) <= n {
		return s
	}
	if n < 3 {
		return s[:0]
	}
	cut := n - 3
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return strings.TrimRight(s[:cut], " ") + "..."
}

// NPDUnknown is the line of a run that reached no verdict (exit status 2
// under --format npd).
func NPDUnknown(reason string) string {
	return npdShorten("UNKNOWN: "+clean(strings.NewReplacer("\n", " ", "\r", " ").Replace(reason)), NPDMaxLine)
}
