package report

import (
	"encoding/json"
	"fmt"
	"io"
)

// Failure reasons: a bounded set, so that the Prometheus label stays one
// of a few values whatever the message says.
const (
	FailUsage       = "usage"       // a flag, argument or option was wrong
	FailExamine     = "examine"     // the machine could not be examined
	FailInterrupted = "interrupted" // a signal or the deadline ended the run
	FailInternal    = "internal"    // a bug (a panic)
)

// Failure writes, in format, that a run ended without a verdict (exit 3)
// and why, so that a consumer of that format learns it from the output
// and not only from stderr: a JSON document with "error" (valid against
// the schema), Prometheus diskdoctor_up 0 with the reason (the message
// itself in the HELP text: free text is never a label), the Nagios UNKNOWN
// line, node-problem-detector's UNKNOWN line (exit status 2 there). The
// text format writes nothing (stderr has the message).
func Failure(w io.Writer, format string, tool Tool, reason, message string) error {
	var err error
	switch format {
	case "json":
		doc := struct {
			Schema string `json:"schema"`
			Tool   Tool   `json:"tool"`
			Error  string `json:"error"`
			Reason string `json:"reason"`
			Exit   int    `json:"exit"`
		}{"diskdoctor/v1", tool, message, reason, 3}
		enc := json.NewEncoder(w)
		enc.SetIndent("", "  ")
		err = enc.Encode(doc)
	case "prometheus":
		var doc promDoc
		doc.family("diskdoctor_up", "Whether the last run examined the machine and reached a verdict (1) or ended without one (0, exit status 3).").add(0)
		// The message goes into HELP, free text that is no label: the
		// reason label stays one of four values.
		doc.family("diskdoctor_error_info", "Why the last run reached no verdict (reason: usage, examine, interrupted or internal); always 1. This run: "+nagiosText(message)).add(1, "reason", reason)
		err = doc.write(w)
	case "nagios":
		_, err = fmt.Fprintln(w, NagiosUnknown(message))
	case "npd":
		_, err = fmt.Fprintln(w, NPDUnknown(message))
	}
	return err
}
