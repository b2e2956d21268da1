package main

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
     it was`,
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

// addExitStatusHelp gives every command, the subcommands of subcommands
// included, an EXIT STATUS section at the end of its help.
func addExitStatusHelp(cmd *cobra.Command) {
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
		addExitStatusHelp(sub)
	}
}
