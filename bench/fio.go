package bench

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/diskdoctor/diskdoctor/internal/shellquote"
	"github.com/diskdoctor/diskdoctor/probes/fio"
)

// listedEngines reads `fio --enghelp`.
func (b *run) listedEngines(ctx context.Context) map[string]bool {
	ctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	out, _, _ := b.env.Runner.Fio(ctx, b.fio, []string{"--enghelp"})
	m := map[string]bool{}
	for _, l := range strings.Split(string(out), "\n") {
		if strings.HasPrefix(l, "\t") || strings.HasPrefix(l, " ") {
			m[strings.TrimSpace(l)] = true
		}
	}
	return m
}

func (b *run) dryRunEngine(ctx context.Context) (string, string) {
	if b.o.Engine != "auto" {
		return b.o.Engine, "as given"
	}
	listed := b.listedEngines(ctx)
	for _, e := range Engines() {
		if listed[e] {
			return e, "auto: the first of " + strings.Join(Engines(), ", ") + " that this fio lists; a real run also tries it on the test file"
		}
	}
	return "psync", "auto: fio lists none of " + strings.Join(Engines(), ", ")
}

// chooseEngine tries each candidate with a tiny read of the test file.
func (b *run) chooseEngine(ctx context.Context) error {
	b.direct = (b.tgt.IsDevice || b.facts.DirectOK) && !b.o.Buffered
	cands := Engines()
	if b.o.Engine != "auto" {
		cands = []string{b.o.Engine}
	} else {
		listed := b.listedEngines(ctx)
		var l []string
		for _, e := range cands {
			if listed[e] || len(listed) == 0 {
				l = append(l, e)
			}
		}
		cands = l
	}
	var tried []string
	for _, e := range cands {
		j := &fio.Job{Name: "diskdoctor-engine-probe"}
		j.Set("filename", fioFilename(b.tgt.File))
		j.Set("size", "1m")
		j.Set("io_size", "64k")
		j.Set("rw", "read")
		j.Set("bs", "4k")
		j.Set("iodepth", "2")
		j.Set("ioengine", e)
		j.Set("direct", onOff(b.direct))
		out, err := b.execFio(ctx, j.Argv())
		if err == nil {
			b.engine = e
			b.fioVersion = out.Version
			if len(tried) > 0 {
				b.engineNote = "not usable here: " + strings.Join(tried, "; ")
			}
			return nil
		}
		if ctx.Err() != nil {
			return ctx.Err()
		}
		if errors.Is(err, ErrNotRecorded) {
			return err // another engine is not recorded either
		}
		tried = append(tried, e+" ("+firstLine(err.Error())+")")
	}
	return fmt.Errorf("no fio engine works on %s: %s", b.tgt.File, strings.Join(tried, "; "))
}

func firstLine(s string) string {
	s, _, _ = strings.Cut(strings.TrimSpace(s), "\n")
	return s
}

// execFio runs fio through the runner and parses its JSON.
func (b *run) execFio(ctx context.Context, argv []string) (*fio.Output, error) {
	stdout, stderr, runErr := b.env.Runner.Fio(ctx, b.fio, argv)
	if ctx.Err() != nil {
		return nil, ctx.Err()
	}
	if runErr != nil {
		if errors.Is(runErr, ErrNotRecorded) {
			return nil, runErr
		}
		return nil, fmt.Errorf("fio: %w: %s", runErr, tail(string(stderr)+string(stdout)))
	}
	out, _, perr := fio.Parse(stdout)
	if perr != nil {
		return nil, fmt.Errorf("fio output: %w (stderr: %s)", perr, tail(string(stderr)))
	}
	for _, j := range out.Jobs {
		if j.Error != 0 {
			return nil, fmt.Errorf("fio job %s failed with error %d (%s): %s", j.Name, j.Error, errnoText(j.Error), tail(string(stderr)))
		}
	}
	return out, nil
}

func tail(s string) string {
	s = strings.TrimSpace(s)
	if len(s) > 400 {
		s = "…" + s[len(s)-400:]
	}
	return s
}

// runFio runs the profile: the sweep's points until latency breaks away,
// then the plain tests.
func (b *run) runFio(ctx context.Context) error {
	specs := Specs(b.o)
	var plain, sweep []Spec
	b.progTotal = 0
	for _, s := range specs {
		if b.o.Profile == "sweep" && s.Kind == "rnd" {
			sweep = append(sweep, s)
		} else {
			plain = append(plain, s)
		}
		b.progTotal += b.duration(s)
	}
	b.progStart = time.Now()
	n, i := len(specs), 0
	if len(sweep) > 0 {
		b.sweep = &Sweep{Op: sweep[0].Op, Rule: KneeRule}
		for _, s := range sweep {
			i++
			row, err := b.runSpec(ctx, i, n, s)
			if err != nil {
				return err
			}
			b.rows = append(b.rows, row)
			if stop := b.sweep.add(row); stop {
				b.sweep.Stopped = fmt.Sprintf("stopped at load %d: p99 broke away", row.QD*row.Threads)
				break
			}
		}
		b.sweep.finish()
	}
	for _, s := range plain {
		i++
		row, err := b.runSpec(ctx, i, n, s)
		if err != nil {
			return err
		}
		b.rows = append(b.rows, row)
	}
	return nil
}

func (b *run) duration(s Spec) time.Duration {
	if s.Kind == "steady" {
		return b.o.SteadyMax
	}
	return b.o.Runtime
}

func (b *run) runSpec(ctx context.Context, i, n int, s Spec) (Row, error) {
	j := b.job(s)
	d := b.duration(s)
	if b.o.Verbose {
		if b.progress != nil {
			fmt.Fprint(b.progress, "\r\033[K")
		}
		b.note("[%d/%d] %s", i, n, shellquote.Join(append([]string{"fio"}, j.Argv()...)))
	}
	stop := b.tick(fmt.Sprintf("[%d/%d] %s %s", i, n, s.Test, s.Op), d)
	out, err := b.execFio(ctx, j.Argv())
	stop()
	if err != nil {
		return Row{}, fmt.Errorf("%s %s: %w", s.Test, s.Op, err)
	}
	if b.fioVersion == "" {
		b.fioVersion = out.Version
	}
	if len(out.Jobs) == 0 {
		return Row{}, fmt.Errorf("%s %s: fio reported no job", s.Test, s.Op)
	}
	return b.fioRow(s, j, &out.Jobs[0])
}

// syncEngines can have one I/O in flight per job, whatever iodepth says.
var syncEngines = map[string]bool{"sync": true, "psync": true, "vsync": true, "pvsync": true, "pvsync2": true, "mmap": true}

// AchievedQD is the queue depth a row may be labelled with: the one asked
// for only when the engine and I/O mode can honour it and fio's iodepth
// distribution shows it.
func AchievedQD(engine string, direct bool, asked int, fioDepth int) (int, string) {
	switch {
	case asked <= 1:
		return 1, ""
	case syncEngines[engine]:
		return 1, engine + " is a synchronous engine: one I/O in flight per job"
	case engine == "libaio" && !direct:
		return 1, "libaio without O_DIRECT submits synchronously: one I/O in flight per job"
	case fioDepth > 0 && fioDepth < asked:
		return fioDepth, fmt.Sprintf("fio's iodepth distribution: most I/Os were issued at depth %d or less", fioDepth)
	}
	return asked, ""
}

// fioRow reads one test's figures from fio's report. A job that moved no
// data is a failure, not a row of zeros: fio may have refused the target
// ("appears mounted") and still exited 0.
func (b *run) fioRow(s Spec, j *fio.Job, out *fio.JobOut) (Row, error) {
	io := out.Read
	if s.Op == "write" {
		io = out.Write
	}
	if io.IOBytes <= 0 || io.IOPS <= 0 {
		return Row{}, fmt.Errorf("%s %s: fio did no I/O (%d bytes): the job did not run on %s", s.Test, s.Op, io.IOBytes, b.tgt.File)
	}
	qd, note := AchievedQD(b.engine, b.direct, s.QD, out.AchievedDepth())
	row := Row{
		Test: Label(s.Kind, s.BS, qd, s.Jobs), Asked: s.Test, Kind: s.Kind, Op: s.Op, BlockSize: s.BS,
		AskedQD: s.QD, QD: qd, Threads: s.Jobs, Tool: "fio",
		MBs: io.BWBytes / 1e6, IOPS: io.IOPS,
		Job: j.Ini(), Command: shellquote.Join(append([]string{"fio"}, j.Argv()...)),
	}
	if note != "" {
		row.Notes = append(row.Notes, "labelled "+row.Test+", not "+s.Test+": "+note)
	}
	if !b.direct {
		row.Notes = append(row.Notes, "buffered I/O (O_DIRECT not used)")
	}
	us := func(ns float64) float64 { return ns / 1000 }
	row.Lat.Mean = us(io.Lat.Mean)
	for _, p := range []struct {
		pct float64
		dst *float64
	}{{50, &row.Lat.P50}, {99, &row.Lat.P99}, {99.9, &row.Lat.P999}} {
		if v, ok := io.Clat.Pct(p.pct); ok {
			*p.dst = us(v)
		}
	}
	if ss := out.SteadyState; ss != nil {
		row.Steady = &Steady{Attained: ss.Attained == 1 && !strings.Contains(ss.Measured, "nan"), Criterion: ss.Criterion, Measured: ss.Measured, WindowS: ss.Duration, MBs: ss.Data.BWMean / 1e6}
		if !row.Steady.Attained {
			row.Notes = append(row.Notes, fmt.Sprintf("steady state not reached within --steady-max %s: the figure is the last window's", b.o.SteadyMax))
		}
	}
	return row, nil
}
