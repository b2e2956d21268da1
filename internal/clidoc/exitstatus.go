// Package clidoc documents the command line from the cobra tree the program
// runs, so that the documentation can never describe other commands or
// flags than the binary has: every command's EXIT STATUS section of --help,
// and the man pages and shell completions the Debian package ships (each
// page with the EXIT STATUS and FILES sections man-pages(7) asks for).
//
// It reads nothing of the machine; its only effect is the files Write puts
// into the directory the packaging script names.
package clidoc

import (
	"regexp"
	"strings"

	"github.com/spf13/cobra"
)

// exitStatusHelp is each command's EXIT STATUS section, by command name.
// Every exit status is one of the design's four (docs/output.md): 0 OK,
// 1 WARNING, 2 CRITICAL, 3 UNKNOWN.
var exitStatusHelp = map[string]string{
	"diskdoctor": `  0  no warning or critical finding
  1  a warning finding, none critical
  2  a critical finding
  3  UNKNOWN: the machine could not be examined (bad root or snapshot, bad
     arguments), the run was interrupted (Ctrl-C, SIGTERM) or ran past its
     deadline, or the doctor failed; the previous --output file is left as
     it was
  --format prometheus exits 0 once the metrics are written, whatever the
  verdict (it is diskdoctor_verdict), and 3 as above`,
	"bench": `  0  the benchmark ran
  2  refused: the doctor found critical problems (--force runs anyway)
  3  it could not run, failed, or was interrupted (the test file is removed)`,
	"snapshot": `  0  the archive was written
  3  it could not be written, or the run was interrupted`,
	"diff": `  0  nothing got worse
  1  something got worse (a new finding, or a higher severity)
  3  a side could not be examined`,
}

// exitStatusDefault is the section of commands that only print.
const exitStatusDefault = `  0  printed
  3  bad arguments (an unknown name is answered with the closest one)`

// legacyExitStatus is an "Exit status: …" paragraph a command's Long text
// may still carry; it becomes the EXIT STATUS section.
var legacyExitStatus = regexp.MustCompile(`(?s)\n*Exit status: (.*?)(\n\n|$)`)

// AddExitStatusHelp gives every command, the subcommands of subcommands
// included, an EXIT STATUS section at the end of its help.
func AddExitStatusHelp(cmd *cobra.Command) {
	long := cmd.Long
	if long == "" {
		long = cmd.Short + "."
	}
	if !strings.Contains(long, "EXIT STATUS") {
		section, ok := exitStatusHelp[cmd.Name()]
		if m := legacyExitStatus.FindStringSubmatchIndex(long); m != nil {
			if !ok {
				section = "  " + strings.ReplaceAll(long[m[2]:m[3]], "\n", "\n  ")
			}
			long = strings.TrimRight(long[:m[0]]+"\n\n"+long[m[5]:], "\n")
		} else if !ok {
			section = exitStatusDefault
		}
		cmd.Long = long + "\n\nEXIT STATUS\n" + section
	}
	for _, sub := range cmd.Commands() {
		AddExitStatusHelp(sub)
	}
}

type exitCode struct {
	code    int
	meaning string
}

// exitStatusOf is the contract of design.md per command: the doctor's
// verdict for the examining commands, success or failure for the rest.
func exitStatusOf(cmd *cobra.Command) []exitCode {
	failed := exitCode{3, "The command could not run: bad arguments, an unreadable or invalid input, or an output that could not be written."}
	switch strings.TrimPrefix(cmd.CommandPath(), "diskdoctor") {
	case "":
		return []exitCode{
			{0, "No warning or critical finding (notes and skipped checks alone leave it 0); with --format prometheus, any verdict once the metrics are written."},
			{1, "At least one warning finding, no critical one."},
			{2, "At least one critical finding."},
			{3, "The machine could not be examined at all (bad --root or --snapshot, bad arguments, the report could not be written)."},
		}
	case " diff":
		return []exitCode{
			{0, "Nothing got worse between OLD and NEW."},
			{1, "Something got worse: a new finding, or a finding of higher severity."},
			failed,
		}
	case " bench":
		return []exitCode{
			{0, "The benchmark ran."},
			{2, "Refused: the doctor found critical problems that would make the numbers lie (--force runs anyway)."},
			{3, "The benchmark could not run: bad arguments, fio and the dd fallback failed, or the target is unusable."},
		}
	}
	return []exitCode{{0, "Success."}, failed}
}
