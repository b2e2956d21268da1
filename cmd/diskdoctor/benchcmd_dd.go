package main

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"regexp"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// The dd fallback, when fio is not installed: the four measurements of the
// domain brief's write-cache table, each with incompressible data (a random
// source file, written first) and bounded by --runtime (dd prints its
// summary when interrupted). Less precise than fio: one stream, no queue
// depth, no latency distribution.

type benchDDSpec struct {
	test, kind, op string
	bs             int
	flags          []string // dd operands beyond if/of/bs/count
	read           bool     // reads the test file instead of writing it
}

func (b *benchRun) ddSpecs() []benchDDSpec {
	direct := func(f string) string {
		if b.direct {
			return f
		}
		return ""
	}
	var specs []benchDDSpec
	add := func(s benchDDSpec) {
		var fl []string
		for _, f := range s.flags {
			if f != "" && !strings.HasSuffix(f, "=") {
				fl = append(fl, f)
			}
		}
		s.flags = fl
		specs = append(specs, s)
	}
	add(benchDDSpec{test: "SEQ1M write+fsync", kind: "dd-seq", op: "write", bs: 1 << 20, flags: []string{"conv=fsync,notrunc"}})
	add(benchDDSpec{test: "SEQ1M write " + benchOr(direct("O_DIRECT"), "buffered"), kind: "dd-direct", op: "write", bs: 1 << 20,
		flags: []string{"conv=notrunc", "oflag=" + direct("direct")}})
	add(benchDDSpec{test: "4K write " + benchOr(direct("O_DIRECT+"), "") + "dsync", kind: "dd-dsync", op: "write", bs: 4096,
		flags: []string{"conv=notrunc", "oflag=" + strings.TrimPrefix(direct("direct")+",dsync", ",")}})
	add(benchDDSpec{test: "SEQ1M read " + benchOr(direct("O_DIRECT"), "buffered"), kind: "dd-read", op: "read", bs: 1 << 20, read: true,
		flags: []string{"iflag=" + direct("direct")}})
	return specs
}

func (b *benchRun) ddArgv(s benchDDSpec, src string) []string {
	count := strconv.FormatUint(b.size/uint64(s.bs), 10)
	if s.read {
		return append([]string{"dd", "if=" + b.tgt.File, "of=/dev/null", "bs=" + strconv.Itoa(s.bs), "count=" + count}, s.flags...)
	}
	return append([]string{"dd", "if=" + src, "of=" + b.tgt.File, "bs=" + strconv.Itoa(s.bs), "count=" + count}, s.flags...)
}

func (b *benchRun) runDD(ctx context.Context) error {
	b.tool = "dd"
	b.direct = b.tgt.IsDevice || b.facts.DirectOK
	dd, err := exec.LookPath("dd")
	if err != nil {
		return errors.New("neither fio nor dd is installed (apt-get install fio)")
	}
	src := b.tgt.File + ".src"
	if b.tgt.IsDevice {
		src = fmt.Sprintf("%s/diskdoctor-bench-%d.src", os.TempDir(), os.Getpid())
	}
	f, err := os.OpenFile(src, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if err != nil {
		return fmt.Errorf("random source file: %w", err)
	}
	b.created = append(b.created, src)
	err = benchFillRandom(ctx, f, b.size, b.progressFunc("writing the random source file"))
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return err
	}
	specs := b.ddSpecs()
	b.progTotal = time.Duration(len(specs)) * b.o.runtime
	b.progStart = time.Now()
	for i, s := range specs {
		argv := b.ddArgv(s, src)
		stop := b.tick(fmt.Sprintf("[%d/%d] dd %s", i+1, len(specs), s.test), b.o.runtime)
		bytesDone, secs, err := benchExecDD(ctx, dd, argv[1:], b.o.runtime)
		stop(b.o.runtime)
		if err != nil {
			return fmt.Errorf("dd %s: %w", s.test, err)
		}
		row := benchRow{Test: s.test, Asked: s.test, Kind: s.kind, Op: s.op, BlockSize: s.bs, AskedQD: 1, QD: 1, Threads: 1, Tool: "dd",
			Command: benchShellLine(argv)}
		if secs > 0 {
			row.MBs = float64(bytesDone) / secs / 1e6
			row.IOPS = float64(bytesDone) / float64(s.bs) / secs
			if row.IOPS > 0 {
				row.Lat.Mean = 1e6 / row.IOPS
			}
		}
		if s.kind == "dd-dsync" && row.Lat.Mean > 0 {
			row.Lat.P50 = row.Lat.Mean // the only latency dd gives; compared with the datasheet's write latency
			row.Notes = append(row.Notes, "the p50 column is the mean latency derived from dd's rate (dd measures no distribution)")
		}
		b.rows = append(b.rows, row)
	}
	return nil
}

// benchExecDD runs dd for at most d: then it is interrupted (SIGINT), and
// GNU dd prints its summary before it exits. Cancelling ctx interrupts it
// too, and returns ctx's error.
func benchExecDD(ctx context.Context, dd string, args []string, d time.Duration) (int64, float64, error) {
	tctx, cancel := context.WithTimeout(ctx, d)
	defer cancel()
	cmd := exec.CommandContext(tctx, dd, args...)
	cmd.Env = append(os.Environ(), "LC_ALL=C")
	cmd.Cancel = func() error { return cmd.Process.Signal(syscall.SIGINT) }
	cmd.WaitDelay = 5 * time.Second
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	runErr := cmd.Run()
	if ctx.Err() != nil {
		return 0, 0, ctx.Err()
	}
	n, secs, perr := benchParseDD(stderr.Bytes())
	if perr != nil {
		if runErr != nil {
			return 0, 0, fmt.Errorf("%v: %s", runErr, benchTail(stderr.String()))
		}
		return 0, 0, perr
	}
	if runErr != nil && tctx.Err() == nil {
		return 0, 0, fmt.Errorf("%v: %s", runErr, benchTail(stderr.String()))
	}
	return n, secs, nil
}

// "67108864 bytes (67 MB, 64 MiB) copied, 0.123 s, 545 MB/s"; older dd:
// "67108864 bytes (67 MB) copied, 0.123 s, 545 MB/s".
var benchDDSummary = regexp.MustCompile(`^(\d+) bytes? .*copied, ([0-9.]+(?:e[-+]?\d+)?) s, `)

// benchParseDD reads the summary line of dd's standard error (the last
// one: status=progress lines, separated by carriage returns, may precede it).
func benchParseDD(b []byte) (int64, float64, error) {
	var last []string
	for _, l := range strings.FieldsFunc(string(b), func(r rune) bool { return r == '\n' || r == '\r' }) {
		if m := benchDDSummary.FindStringSubmatch(l); m != nil {
			last = m
		}
	}
	if last == nil {
		return 0, 0, fmt.Errorf("dd printed no summary line: %s", benchTail(string(b)))
	}
	n, err1 := strconv.ParseInt(last[1], 10, 64)
	secs, err2 := strconv.ParseFloat(last[2], 64)
	if err1 != nil || err2 != nil || secs < 0 || n < 0 {
		return 0, 0, fmt.Errorf("dd summary %q: unreadable", last[0])
	}
	return n, secs, nil
}
