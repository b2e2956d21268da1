package bench

import (
	"context"
	"errors"
	"fmt"
	"os"
	"regexp"
	"strconv"
	"strings"

	"github.com/diskdoctor/diskdoctor/internal/shellquote"
)

// The dd fallback, when fio is not installed (or --dd): the four
// measurements of the domain brief's write-cache table, each with
// incompressible data (a random source file, written first) and bounded by
// --runtime (dd prints its summary when interrupted). Less precise than
// fio: one stream, no queue depth, no latency distribution.

type ddSpec struct {
	test, kind, op string
	bs             int
	flags          []string // dd operands beyond if/of/bs/count
	read           bool     // reads the test file instead of writing it
}

func (b *run) ddSpecs() []ddSpec {
	direct := func(f string) string {
		if b.direct {
			return f
		}
		return ""
	}
	var specs []ddSpec
	add := func(s ddSpec) {
		var fl []string
		for _, f := range s.flags {
			if f != "" && !strings.HasSuffix(f, "=") {
				fl = append(fl, f)
			}
		}
		s.flags = fl
		specs = append(specs, s)
	}
	add(ddSpec{test: "SEQ1M write+fsync", kind: "dd-seq", op: "write", bs: mib, flags: []string{"conv=fsync,notrunc"}})
	add(ddSpec{test: "SEQ1M write " + or(direct("O_DIRECT"), "buffered"), kind: "dd-direct", op: "write", bs: mib,
		flags: []string{"conv=notrunc", "oflag=" + direct("direct")}})
	add(ddSpec{test: "4K write " + or(direct("O_DIRECT+"), "") + "dsync", kind: "dd-dsync", op: "write", bs: 4096,
		flags: []string{"conv=notrunc", "oflag=" + strings.TrimPrefix(direct("direct")+",dsync", ",")}})
	add(ddSpec{test: "SEQ1M read " + or(direct("O_DIRECT"), "buffered"), kind: "dd-read", op: "read", bs: mib, read: true,
		flags: []string{"iflag=" + direct("direct")}})
	return specs
}

func (b *run) ddArgv(s ddSpec, src string) []string {
	count := strconv.FormatUint(b.o.Size/uint64(s.bs), 10)
	if s.read {
		return append([]string{"dd", "if=" + b.tgt.File, "of=/dev/null", "bs=" + strconv.Itoa(s.bs), "count=" + count}, s.flags...)
	}
	return append([]string{"dd", "if=" + src, "of=" + b.tgt.File, "bs=" + strconv.Itoa(s.bs), "count=" + count}, s.flags...)
}

func (b *run) runDD(ctx context.Context) error {
	b.direct = (b.tgt.IsDevice || b.facts.DirectOK) && !b.o.Buffered
	dd, err := b.env.Runner.LookPath("dd")
	if err != nil {
		return errors.New("neither fio nor dd is installed (apt-get install fio)")
	}
	src := b.tgt.File + ".src"
	if b.tgt.IsDevice {
		src = fmt.Sprintf("%s/diskdoctor-bench-%d.src", os.TempDir(), os.Getpid())
	}
	b.created = append(b.created, src)
	if err := b.env.Runner.Fill(ctx, src, b.o.Size, false, b.progressFunc("writing the random source file")); err != nil {
		return err
	}
	specs := b.ddSpecs()
	b.progTotal = b.o.Runtime * 4
	for i, s := range specs {
		argv := b.ddArgv(s, src)
		stop := b.tick(fmt.Sprintf("[%d/%d] dd %s", i+1, len(specs), s.test), b.o.Runtime)
		stderr, err := b.env.Runner.DD(ctx, dd, argv[1:], b.o.Runtime)
		stop()
		if ctx.Err() != nil {
			return ctx.Err()
		}
		n, secs, perr := ParseDD(stderr)
		if perr != nil {
			if err != nil {
				return fmt.Errorf("dd %s: %v: %s", s.test, err, tail(string(stderr)))
			}
			return fmt.Errorf("dd %s: %w", s.test, perr)
		}
		if err != nil {
			return fmt.Errorf("dd %s: %v: %s", s.test, err, tail(string(stderr)))
		}
		if n <= 0 {
			return fmt.Errorf("dd %s: no data moved: %s", s.test, tail(string(stderr)))
		}
		b.rows = append(b.rows, ddRow(s, argv, n, secs))
	}
	return nil
}

func ddRow(s ddSpec, argv []string, n int64, secs float64) Row {
	row := Row{Test: s.test, Asked: s.test, Kind: s.kind, Op: s.op, BlockSize: s.bs, AskedQD: 1, QD: 1, Threads: 1, Tool: "dd",
		Command: shellquote.Join(argv)}
	if secs > 0 {
		row.MBs = float64(n) / secs / 1e6
		row.IOPS = float64(n) / float64(s.bs) / secs
		if row.IOPS > 0 {
			row.Lat.Mean = 1e6 / row.IOPS
		}
	}
	if s.kind == "dd-dsync" && row.Lat.Mean > 0 {
		row.Lat.P50 = row.Lat.Mean // the only latency dd gives; compared with the datasheet's write latency
		row.Notes = append(row.Notes, "the p50 column is the mean latency derived from dd's rate (dd measures no distribution)")
	}
	return row
}

// "67108864 bytes (67 MB, 64 MiB) copied, 0.123 s, 545 MB/s"; older dd:
// "67108864 bytes (67 MB) copied, 0.123 s, 545 MB/s".
var ddSummary = regexp.MustCompile(`^(\d+) bytes? .*copied, ([0-9.]+(?:e[-+]?\d+)?) s, `)

// ParseDD reads the summary line of dd's standard error (the last one:
// status=progress lines, separated by carriage returns, may precede it).
func ParseDD(b []byte) (int64, float64, error) {
	var last []string
	for _, l := range strings.FieldsFunc(string(b), func(r rune) bool { return r == '\n' || r == '\r' }) {
		if m := ddSummary.FindStringSubmatch(l); m != nil {
			last = m
		}
	}
	if last == nil {
		return 0, 0, fmt.Errorf("dd printed no summary line: %s", tail(string(b)))
	}
	n, err1 := strconv.ParseInt(last[1], 10, 64)
	secs, err2 := strconv.ParseFloat(last[2], 64)
	if err1 != nil || err2 != nil || secs < 0 || n < 0 {
		return 0, 0, fmt.Errorf("dd summary %q: unreadable", last[0])
	}
	return n, secs, nil
}
