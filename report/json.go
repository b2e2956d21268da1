package report

import (
	"bytes"
	"encoding/json"
	"io"
	"math"
	"runtime"
	"slices"
	"strconv"
	"time"

	"github.com/diskdoctor/diskdoctor/internal/parallel"
	"github.com/diskdoctor/diskdoctor/rules"
)

// renderJSON is the diskdoctor/v1 contract (docs/output.md), byte for byte
// what encoding/json's Encoder with SetIndent("", "  ") writes. It streams:
// the encoder would build the whole document, then a second, indented copy
// of it, two buffers of the report's size grown by doubling; here the
// devices, which are nearly all of a large report, are written one at a
// time through a small buffer, and the rest (host, findings, skipped,
// passed, sample: structs, small) go through encoding/json itself.
func renderJSON(w io.Writer, rep *rules.Report, run RunInfo) error {
	j := &jsonWriter{w: w, buf: make([]byte, 0, jsonFlushAt+4096)}
	j.raw("{\n  \"schema\": ")
	j.value(rep.Schema, 1)
	provenance(j, run)
	j.raw(",\n  \"host\": ")
	j.value(rep.Host, 1)
	j.raw(",\n  \"verdict\": ")
	j.value(rep.Verdict, 1)
	j.raw(",\n  \"findings\": ")
	j.value(rep.Findings, 1)
	j.raw(",\n  \"skipped\": ")
	j.value(rep.Skipped, 1)
	j.raw(",\n  \"passed\": ")
	j.value(rep.Passed, 1)
	if len(rep.WaivedFindings) > 0 { // omitempty
		j.raw(",\n  \"waived_findings\": ")
		j.value(rep.WaivedFindings, 1)
	}
	if len(rep.Waivers) > 0 { // omitempty
		j.raw(",\n  \"waivers\": ")
		j.value(rep.Waivers, 1)
	}
	if rep.Config != "" { // omitempty
		j.raw(",\n  \"config\": ")
		j.value(rep.Config, 1)
	}
	j.raw(",\n  \"devices\": ")
	j.devices(rep.Devices, 1)
	if len(rep.Controllers) > 0 { // omitempty
		j.raw(",\n  \"controllers\": ")
		j.value(rep.Controllers, 1)
	}
	if rep.Sample != nil { // omitempty
		j.raw(",\n  \"sample\": ")
		j.value(rep.Sample, 1)
	}
	j.raw("\n}\n")
	return j.flush()
}

// devicesChunk is how many devices one worker writes at a time: small
// enough that a round of chunks held for writing in order stays a few
// hundred kilobytes, large enough that each worker's key orders (order)
// are reused for most of its objects.
const devicesChunk = 64

// devices writes the report's devices as value would, on every core for a
// large machine: its devices are most of the document, and nothing else
// runs while it is written. Each round gives every worker a chunk of
// consecutive devices to write into its own buffer; the chunks are then
// written in order, so the bytes are value's (TestRenderJSONManyDevices).
func (j *jsonWriter) devices(devs []map[string]any, depth int) {
	workers := runtime.GOMAXPROCS(0)
	if j.err != nil || workers < 2 || len(devs) < 2*devicesChunk {
		j.value(devs, depth)
		return
	}
	parts := make([]*jsonWriter, workers)
	for i := range parts {
		parts[i] = &jsonWriter{keep: true, buf: make([]byte, 0, devicesChunk*8<<10)}
	}
	j.raw("[")
	for start := 0; start < len(devs); start += workers * devicesChunk {
		end := min(len(devs), start+workers*devicesChunk)
		n := (end - start + devicesChunk - 1) / devicesChunk
		parallel.Each(n, workers, func(c int) {
			p := parts[c]
			for i := start + c*devicesChunk; i < min(end, start+(c+1)*devicesChunk) && p.err == nil; i++ {
				if i > 0 {
					p.raw(",")
				}
				p.newline(depth + 1)
				p.object(devs[i], depth+1)
			}
		})
		if j.flush() != nil {
			return
		}
		for _, p := range parts[:n] {
			if p.err != nil {
				j.err = p.err
				return
			}
			if _, j.err = j.w.Write(p.buf); j.err != nil {
				return
			}
			p.buf = p.buf[:0]
		}
	}
	j.newline(depth)
	j.raw("]")
}

// provenance writes what program wrote the report, when it started and how
// long it took (issue #25), each where RunInfo knows it.
func provenance(j *jsonWriter, run RunInfo) {
	if run.Tool.Version != "" {
		j.raw(",\n  \"tool\": ")
		j.value(run.Tool, 1)
	}
	if !run.Start.IsZero() {
		j.raw(",\n  \"started_at\": ")
		j.value(run.Start.Format(time.RFC3339), 1)
		j.raw(",\n  \"duration_seconds\": ")
		j.value(math.Round(run.Duration.Seconds()*1000)/1000, 1)
	}
}

// jsonFlushAt is how much the writer holds before it writes.
const jsonFlushAt = 32 << 10

// jsonWriter writes indented JSON ("  " per level, keys of maps sorted,
// HTML characters escaped: encoding/json's defaults). Values of the types
// a report's facts hold are written directly; any other goes through
// json.Marshal and json.Indent, so that its output is the encoder's by
// construction. The first error is kept and stops the writing.
type jsonWriter struct {
	w       io.Writer
	keep    bool // buf is not written to w: the caller takes it (devices)
	buf     []byte
	err     error
	scratch bytes.Buffer
	orders  [][]keyOrder // per nesting depth
}

func (j *jsonWriter) raw(s string) { j.buf = append(j.buf, s...) }

func (j *jsonWriter) flush() error {
	if j.keep {
		return j.err
	}
	if j.err == nil && len(j.buf) > 0 {
		_, j.err = j.w.Write(j.buf)
	}
	j.buf = j.buf[:0]
	return j.err
}

func (j *jsonWriter) newline(depth int) {
	j.buf = append(j.buf, '\n')
	for range depth {
		j.buf = append(j.buf, ' ', ' ')
	}
}

// writeArray writes a slice as encoding/json indents it: null for nil, []
// for empty, else one element a line, one level deeper.
func writeArray[T any](j *jsonWriter, x []T, depth int, elem func(T)) {
	if x == nil {
		j.raw("null")
		return
	}
	if len(x) == 0 {
		j.raw("[]")
		return
	}
	j.raw("[")
	for i, e := range x {
		if i > 0 {
			j.raw(",")
		}
		j.newline(depth + 1)
		elem(e)
	}
	j.newline(depth)
	j.raw("]")
}

// value writes v at nesting depth (its opening bracket is already placed;
// its inner lines are indented one level deeper).
func (j *jsonWriter) value(v any, depth int) {
	if j.err != nil {
		return
	}
	if len(j.buf) >= jsonFlushAt {
		if j.flush() != nil {
			return
		}
	}
	switch x := v.(type) {
	case nil:
		j.raw("null")
	case string:
		j.str(x)
	case bool:
		j.buf = strconv.AppendBool(j.buf, x)
	case int:
		j.buf = strconv.AppendInt(j.buf, int64(x), 10)
	case int64:
		j.buf = strconv.AppendInt(j.buf, x, 10)
	case uint64:
		j.buf = strconv.AppendUint(j.buf, x, 10)
	case float64:
		if math.IsNaN(x) || math.IsInf(x, 0) {
			j.marshal(v, depth) // the encoder's error
			return
		}
		j.float(x)
	case []string:
		writeArray(j, x, depth, func(e string) { j.str(e) })
	case []any:
		writeArray(j, x, depth, func(e any) { j.value(e, depth+1) })
	case []map[string]any:
		writeArray(j, x, depth, func(e map[string]any) { j.object(e, depth+1) })
	case map[string]any:
		j.object(x, depth)
	default:
		j.marshal(v, depth)
	}
}

func (j *jsonWriter) object(m map[string]any, depth int) {
	if m == nil {
		j.raw("null")
		return
	}
	if len(m) == 0 {
		j.raw("{}")
		return
	}
	for len(j.orders) <= depth {
		j.orders = append(j.orders, nil)
	}
	keys, vals := j.order(m, depth)
	j.raw("{")
	for i, k := range keys {
		if i > 0 {
			j.raw(",")
		}
		j.newline(depth + 1)
		j.str(k)
		j.raw(": ")
		j.value(vals[i], depth+1)
	}
	j.newline(depth)
	j.raw("}")
	clear(vals)
}

// maxOrders is how many sorted key lists are kept per depth: a machine's
// devices have a few kinds of fact sets (a SATA disk's, an NVMe disk's,
// a partition-less or virtual one's).
const maxOrders = 4

// keyOrder is a sorted key list of an object already written, with room
// for the values of the next object with the same keys.
type keyOrder struct {
	keys []string
	vals []any
}

// order is m's keys sorted as encoding/json sorts them, and their values.
// A thousand devices' objects have the same hundred-odd keys or a few sets
// of them: a list sorted for an earlier object is reused when m has
// exactly its keys (as many, and each of them), which costs a lookup per
// key instead of a sort.
func (j *jsonWriter) order(m map[string]any, depth int) ([]string, []any) {
	orders := j.orders[depth]
	for oi := range orders {
		o := &orders[oi]
		if len(o.keys) != len(m) {
			continue
		}
		all := true
		for i, k := range o.keys {
			v, ok := m[k]
			if !ok {
				all = false
				break
			}
			o.vals[i] = v
		}
		if all {
			return o.keys, o.vals
		}
		clear(o.vals)
	}
	o := keyOrder{keys: make([]string, 0, len(m)), vals: make([]any, len(m))}
	for k := range m {
		o.keys = append(o.keys, k)
	}
	slices.Sort(o.keys) // encoding/json sorts string keys the same way
	for i, k := range o.keys {
		o.vals[i] = m[k]
	}
	if len(orders) == maxOrders {
		copy(orders, orders[1:])
		orders = orders[:maxOrders-1]
	}
	j.orders[depth] = append(orders, o)
	return o.keys, o.vals
}

// str writes a string as encoding/json does; one with anything to escape
// (quotes, backslashes, control characters, HTML's <, > and &, or
// anything outside printable ASCII) goes through json.Marshal.
func (j *jsonWriter) str(s string) {
	for i := 0; i < len(s); i++ {
		if !jsonPlain[s[i]] {
			j.marshal(s, 0)
			return
		}
	}
	j.buf = append(j.buf, '"')
	j.buf = append(j.buf, s...)
	j.buf = append(j.buf, '"')
}

// jsonPlain are the bytes str writes as they are: printable ASCII but the
// quote, the backslash and HTML's <, > and &.
var jsonPlain = func() (t [256]bool) {
	for c := 0x20; c < 0x7f; c++ {
		t[c] = c != '"' && c != '\\' && c != '<' && c != '>' && c != '&'
	}
	return t
}()

// float is encoding/json's float64 format: the shortest representation,
// exponent notation below 1e-6 and from 1e21 on, e-07 written e-7.
func (j *jsonWriter) float(f float64) {
	format := byte('f')
	if abs := math.Abs(f); abs != 0 && (abs < 1e-6 || abs >= 1e21) {
		format = 'e'
	}
	start := len(j.buf)
	j.buf = strconv.AppendFloat(j.buf, f, format, -1, 64)
	if format == 'e' {
		b := j.buf[start:]
		if n := len(b); n >= 4 && b[n-4] == 'e' && b[n-3] == '-' && b[n-2] == '0' {
			b[n-2] = b[n-1]
			j.buf = j.buf[:len(j.buf)-1]
		}
	}
}

// marshal writes v through encoding/json, indented for its depth.
func (j *jsonWriter) marshal(v any, depth int) {
	b, err := json.Marshal(v)
	if err != nil {
		j.err = err
		return
	}
	j.scratch.Reset()
	prefix := make([]byte, 0, 2*depth)
	for range depth {
		prefix = append(prefix, ' ', ' ')
	}
	if err := json.Indent(&j.scratch, b, string(prefix), "  "); err != nil {
		j.err = err
		return
	}
	j.buf = append(j.buf, j.scratch.Bytes()...)
}
