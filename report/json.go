package report

import (
	"bufio"
	"bytes"
	"encoding/json"
	"io"
	"math"
	"time"

	"github.com/diskdoctor/diskdoctor/rules"
)

// renderJSON writes the diskdoctor/v1 document (docs/output.md): the
// report as encoding/json's Encoder writes it with SetIndent("", "  "),
// with what program wrote it, when and how long it took after its schema.
// Each top-level field is encoded on its own, and the devices, nearly all
// of a large machine's document, one device at a time, so that the whole
// document and its indented copy are never in memory at once.
func renderJSON(w io.Writer, rep *rules.Report, run RunInfo) error {
	j := &jsonDoc{w: bufio.NewWriter(w)}
	// An Encoder keeps its indentation buffer from one value to the next
	// (encoding/json stream.go, Encoder.indentBuf), where MarshalIndent
	// allocates the value and its indented copy every time.
	j.top = json.NewEncoder(&j.buf)
	j.top.SetIndent("  ", "  ")
	j.device = json.NewEncoder(&j.buf)
	j.device.SetIndent("    ", "  ")
	j.write("{")
	j.field("schema", rep.Schema)
	if run.Tool.Version != "" {
		j.field("tool", run.Tool)
	}
	if !run.Start.IsZero() {
		j.field("started_at", run.Start.Format(time.RFC3339))
		j.field("duration_seconds", math.Round(run.Duration.Seconds()*1000)/1000)
	}
	j.field("host", rep.Host)
	if rep.Where != nil {
		j.field("platform", rep.Where)
	}
	j.field("verdict", rep.Verdict)
	j.field("incomplete", rep.Incomplete)
	j.field("ready", rep.Ready)
	if len(rep.NotReady) > 0 { // omitempty
		j.field("not_ready", rep.NotReady)
	}
	j.field("findings", rep.Findings)
	j.field("skipped", rep.Skipped)
	j.field("passed", rep.Passed)
	if len(rep.WaivedFindings) > 0 { // omitempty
		j.field("waived_findings", rep.WaivedFindings)
	}
	if len(rep.Waivers) > 0 {
		j.field("waivers", rep.Waivers)
	}
	if rep.Config != "" {
		j.field("config", rep.Config)
	}
	j.devices(rep.Devices)
	if len(rep.Controllers) > 0 {
		j.field("controllers", rep.Controllers)
	}
	if rep.Sample != nil {
		j.field("sample", rep.Sample)
	}
	j.write("\n}\n")
	if j.err != nil {
		return j.err
	}
	return j.w.Flush()
}

// jsonDoc writes a document's top-level fields in order; the first error
// is kept and stops the writing.
type jsonDoc struct {
	w           *bufio.Writer
	buf         bytes.Buffer  // one value, as an Encoder wrote it
	top, device *json.Encoder // a top-level field's value, a device
	fields      int
	err         error
}

func (j *jsonDoc) write(s string) {
	if j.err == nil {
		_, j.err = j.w.WriteString(s)
	}
}

// value writes v as enc indents it, without the newline Encode ends it
// with.
func (j *jsonDoc) value(v any, enc *json.Encoder) {
	if j.err != nil {
		return
	}
	j.buf.Reset()
	if j.err = enc.Encode(v); j.err != nil {
		return
	}
	_, j.err = j.w.Write(bytes.TrimSuffix(j.buf.Bytes(), []byte("\n")))
}

// key starts the next top-level field.
func (j *jsonDoc) key(name string) {
	if j.fields > 0 {
		j.write(",")
	}
	j.fields++
	j.write("\n  \"" + name + "\": ")
}

func (j *jsonDoc) field(name string, v any) {
	j.key(name)
	j.value(v, j.top)
}

// devices writes the devices field as field would, one device at a time.
func (j *jsonDoc) devices(devs []map[string]any) {
	if len(devs) == 0 {
		j.field("devices", devs) // null or []
		return
	}
	j.key("devices")
	j.write("[")
	for i, d := range devs {
		if i > 0 {
			j.write(",")
		}
		j.write("\n    ")
		j.value(d, j.device)
	}
	j.write("\n  ]")
}
