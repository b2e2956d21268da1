package multipath

import (
	"bytes"
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/diskdoctor/diskdoctor/machine"
)

// queueingArgv asks multipathd, per map, what it does once the map has no
// path left: the "queueing" column (%Q, libmultipath print.c
// snprint_queueing) prints "on" for no_path_retry queue (I/O waits for a
// path for ever), "off" for fail, "N chk" or "N sec" for a retry count
// still to run, "-" when unset. multipath -ll cannot say it: its
// features show queue_if_no_path for a retry count too, as multipath
// loads every map whose no_path_retry is not "fail" with that feature and
// multipathd clears it when the count runs out (libmultipath
// configure.c, multipath.conf(5) no_path_retry).
var queueingArgv = []string{"multipathd", "show", "maps", "format", "%n %Q"}

// QueueingArgv is the command the doctor runs (a copy).
func QueueingArgv() []string { return slices.Clone(queueingArgv) }

// Queueing is one map's line of QueueingArgv's output.
type Queueing struct {
	Name, Queueing, Line string
}

// Forever: the map queues I/O with no limit once every path is gone.
func (q Queueing) Forever() bool { return q.Queueing == "on" }

// ParseQueueing reads QueueingArgv's output: a header ("name queueing"),
// then a map name and its queueing value per line. A line with no value
// is skipped; a listing over the bounds is machine.ErrParse.
func ParseQueueing(b []byte) ([]Queueing, error) {
	if len(b) > MaxOutputBytes {
		return nil, fmt.Errorf("%w: multipathd show maps output of %d bytes (at most %d read)", machine.ErrParse, len(b), MaxOutputBytes)
	}
	var out []Queueing
	for i, raw := range bytes.Split(b, []byte("\n")) {
		line := strings.TrimSpace(string(raw))
		f := strings.Fields(line)
		if len(f) < 2 || (i == 0 && f[0] == "name") {
			continue
		}
		if len(out) >= MaxMaps {
			return nil, fmt.Errorf("%w: multipathd show maps lists more than %d maps", machine.ErrParse, MaxMaps)
		}
		out = append(out, Queueing{Name: f[0], Queueing: strings.Join(f[1:], " "), Line: line})
	}
	return out, nil
}

// ReadQueueing runs QueueingArgv. A non-zero exit (multipathd not
// running) is an error.
func ReadQueueing(ctx context.Context, h *machine.Host) ([]Queueing, error) {
	res, err := h.Run(ctx, queueingArgv...)
	if err != nil {
		return nil, err
	}
	if res.Exit != 0 {
		return nil, machine.ExitError(res)
	}
	return ParseQueueing(res.Stdout)
}
