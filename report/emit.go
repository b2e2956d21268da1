package report

import (
	"fmt"
	"io"

	"github.com/diskdoctor/diskdoctor/machine"
	"github.com/diskdoctor/diskdoctor/rules"
)

// Emit renders rep in format to w or, with output set, into that file
// through machine.WriteAtomically, world-readable for node_exporter.
func Emit(w io.Writer, output, format string, rep *rules.Report, run RunInfo) error {
	render, ok := Lookup(format)
	if !ok {
		return fmt.Errorf("unknown format %q", format)
	}
	if output == "" {
		return render(w, rep, run)
	}
	return machine.WriteAtomically(output, 0o644, func(f io.Writer) error { return render(f, rep, run) })
}

// EmitFailure writes Failure to w and, with output set, into that file
// too, so that a textfile collector's file does not keep the last good
// report after a run that could not examine the machine. An interrupted
// run (stopped by its operator or its deadline) leaves the file as it
// was; text writes nothing.
func EmitFailure(w io.Writer, output, format string, tool Tool, reason, message string) {
	_ = Failure(w, format, tool, reason, message)
	if output != "" && output != "-" && format != "" && format != "text" && reason != FailInterrupted {
		_ = machine.WriteAtomically(output, 0o644, func(f io.Writer) error {
			return Failure(f, format, tool, reason, message)
		})
	}
}
