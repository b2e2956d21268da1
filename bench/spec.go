package bench

import (
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/diskdoctor/diskdoctor/probes/fio"
)

// Spec is one test: what fio (or dd) is asked to do.
type Spec struct {
	Test string // "SEQ1M Q8T1", as asked
	Kind string // seq, rnd, sync, steady
	Op   string // read, write
	BS   int    // bytes
	QD   int
	Jobs int
}

func (s Spec) rw() string {
	if s.Kind == "rnd" || s.Kind == "sync" {
		return "rand" + s.Op
	}
	return s.Op
}

func (s Spec) slug() string {
	return strings.ToLower(strings.ReplaceAll(s.Test, " ", "-")) + "-" + s.Op
}

// Label names a test as CrystalDiskMark does: SEQ1M Q8T1, RND4K Q32T16,
// SYNC4K T1, STEADY SEQ1M Q8T1.
func Label(kind string, bs, qd, jobs int) string {
	name := "SEQ1M"
	switch {
	case kind == "sync":
		return fmt.Sprintf("SYNC4K T%d", jobs)
	case kind == "steady":
		name = "STEADY SEQ1M"
	case bs == 4096:
		name = "RND4K"
	}
	return fmt.Sprintf("%s Q%dT%d", name, qd, jobs)
}

func newSpec(kind, op string, bs, qd, jobs int) Spec {
	return Spec{Test: Label(kind, bs, qd, jobs), Kind: kind, Op: op, BS: bs, QD: qd, Jobs: jobs}
}

// Specs lists the tests of a profile, in run order (the sweep's points are
// decided while it runs; these are all it may run).
func Specs(o Options) []Spec {
	var out []Spec
	switch o.Profile {
	case "cdm":
		for _, op := range []string{"read", "write"} {
			out = append(out,
				newSpec("seq", op, mib, 8, 1),
				newSpec("seq", op, mib, 1, 1),
				newSpec("rnd", op, 4096, 32, 1),
				newSpec("rnd", op, 4096, 32, 16))
		}
	case "sync":
		for _, t := range []int{1, 4, 8, 16} {
			out = append(out, newSpec("sync", "write", 4096, 1, t))
		}
	case "sweep":
		op := "read"
		if o.Write {
			op = "write"
		}
		for l := 1; l <= o.MaxDepth; l *= 2 {
			qd := min(l, 32)
			out = append(out, newSpec("rnd", op, 4096, qd, l/qd))
		}
	}
	if o.Steady {
		out = append(out, newSpec("steady", "write", mib, 8, 1))
	}
	return out
}

// fioFilename escapes what fio reads as a separator in filename=.
func fioFilename(p string) string { return strings.ReplaceAll(p, ":", `\:`) }

// job renders a test as a fio job. Every test is its own fio run; the
// options are the same whether printed (--dry-run) or executed.
func (b *run) job(s Spec) *fio.Job {
	j := &fio.Job{Name: s.slug()}
	j.Set("filename", fioFilename(b.tgt.File))
	j.Set("size", strconv.FormatUint(b.o.Size, 10))
	j.Set("ioengine", b.engine)
	j.Set("direct", onOff(b.direct))
	j.Set("rw", s.rw())
	j.Set("bs", strconv.Itoa(s.BS))
	j.Set("iodepth", strconv.Itoa(s.QD))
	j.Set("numjobs", strconv.Itoa(s.Jobs))
	j.Set("group_reporting", "1")
	j.Set("stonewall", "")
	j.Set("time_based", "1")
	runtime := b.o.Runtime
	if s.Kind == "steady" {
		runtime = b.o.SteadyMax
	}
	j.Set("runtime", seconds(runtime))
	j.Set("invalidate", "1")
	// Incompressible data, fresh for every write: compressing or
	// deduplicating storage cannot shrink it.
	j.Set("refill_buffers", "1")
	j.Set("buffer_compress_percentage", "0")
	if !b.tgt.IsDevice {
		j.Set("allow_file_create", "0")
	}
	if s.Kind == "rnd" || s.Kind == "sync" {
		j.Set("randrepeat", "0")
		j.Set("norandommap", "1")
	}
	if s.Kind == "sync" {
		// O_DSYNC: each write returns when its data is on stable storage,
		// so fio's completion latency is the commit latency.
		j.Set("sync", "dsync")
	}
	if s.Kind == "steady" {
		dur := min(max(b.o.SteadyMax/5, 2*time.Second), time.Minute) // two samples at least: one gives a slope of nan
		j.Set("steadystate", "iops_slope:1%")
		j.Set("ss_dur", seconds(dur))
	}
	return j
}

func onOff(b bool) string {
	if b {
		return "1"
	}
	return "0"
}

func seconds(d time.Duration) string {
	return strconv.Itoa(int((d+time.Second-1)/time.Second)) + "s"
}
