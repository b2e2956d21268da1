package snapshot

import (
	"context"
	"errors"
	"fmt"
	"io"
	"time"

	"github.com/dustin/go-humanize"

	"github.com/diskdoctor/diskdoctor/checks"
	"github.com/diskdoctor/diskdoctor/doctor"
	"github.com/diskdoctor/diskdoctor/machine"
	"github.com/diskdoctor/diskdoctor/report"
)

// Source is the machine a snapshot records, and the label its meta file
// gives it: this one ("live"), or the recorded machine at root (a fixture
// or an unpacked snapshot), labelled with root, opened as the doctor opens
// it (doctor.Open).
func Source(ctx context.Context, root string) (*machine.Host, string, error) {
	h, label, _, err := doctor.Open(ctx, doctor.Options{Root: root})
	if err != nil {
		return nil, "", err
	}
	if root == "" {
		label = "live"
	}
	return h, label, nil
}

// HostRootSource is Source for the live host whose root filesystem is
// mounted at dir (from a container; machine.HostRoot): recorded like this
// machine, labelled "live" with the directory it was read from.
func HostRootSource(ctx context.Context, dir string) (*machine.Host, string, error) {
	h, _, _, err := doctor.Open(ctx, doctor.Options{HostRoot: dir})
	if err != nil {
		return nil, "", err
	}
	label := "live"
	if h.HostMounted() {
		label = "live (--host-root " + h.Root() + ")"
	}
	return h, label, nil
}

// RecordOptions tune Record.
type RecordOptions struct {
	// KeepSerials turns redaction off.
	KeepSerials  bool
	ProbeTimeout time.Duration
	// Progress, when set, is told what is being done.
	Progress func(string)
}

// Record runs the doctor (doctor.Run) on src with a recorder attached and
// collects what it read: the list of what to capture is derived from the
// probes themselves, and includes what the rules read (the machine's own
// datasheets), so that a replay judges as the doctor judged. src is read
// only through its Host methods.
func Record(ctx context.Context, src *machine.Host, o RecordOptions) (*Recording, error) {
	rec := NewRecorder()
	h := rec.Attach(src) // src.WithTracer(rec), counting commands in flight
	opts := doctor.Options{ProbeTimeout: o.ProbeTimeout, Context: "auto"}
	if o.Progress != nil {
		o.Progress("examining the machine")
	}
	run, err := doctor.Run(ctx, h, opts)
	if err != nil {
		return nil, err
	}
	// A second pass judges the devices a default run leaves out (virtual
	// ones, NVMe multipath paths), so that a replay with --device NAME finds
	// what that reads too. Judging is per device and the host-wide reads
	// are the same, so the devices of the first pass need no second one.
	var names []string
	byDefault := &checks.Env{} // its IsJudged with no --device: the default set
	for _, d := range run.Checks.Devices {
		if !byDefault.IsJudged(d) {
			names = append(names, d.Name)
		}
	}
	if len(names) > 0 {
		opts.Devices = names
		if _, err := doctor.Run(ctx, h, opts); err != nil {
			return nil, err
		}
	}
	// A probe that timed out returns at its deadline while its command is
	// still being killed (the exec runner waits up to a second more): let
	// those finish so that they are recorded as timed out, not missing.
	if !rec.Wait(ctx, o.ProbeTimeout+3*time.Second) {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
	}
	var prog func(done, total int)
	if o.Progress != nil {
		prog = func(done, total int) { o.Progress(fmt.Sprintf("recording %d/%d paths", done, total)) }
	}
	return rec.Collect(ctx, src, CollectOptions{Redact: !o.KeepSerials, ReadTimeout: o.ProbeTimeout, Progress: prog})
}

// TakeOptions say what `diskdoctor snapshot` records and where it writes.
type TakeOptions struct {
	RecordOptions
	Output   string // the archive; "-" for the out writer of Take
	Root     string // a recorded machine instead of this one
	HostRoot string // the live host mounted at this directory instead
	Version  string // the doctor's, for the meta file
}

// Take records the machine o names (Source, HostRootSource, Record) and
// writes the archive to o.Output, readable by its owner only since it
// describes the machine, or to out for "-". Progress goes to errw when it
// is a terminal, and the summary (WriteSummary) to errw at the end.
func Take(ctx context.Context, o TakeOptions, out, errw io.Writer) error {
	start := time.Now()
	var src *machine.Host
	var label string
	var err error
	switch {
	case o.HostRoot != "" && o.Root != "":
		return errors.New("snapshot: --host-root records a live host; it excludes --root (a recording)")
	case o.HostRoot != "":
		src, label, err = HostRootSource(ctx, o.HostRoot)
	default:
		src, label, err = Source(ctx, o.Root)
	}
	if err != nil {
		return err
	}
	if report.IsTerminal(errw) {
		o.Progress = func(s string) { fmt.Fprintf(errw, "\r\x1b[Kdiskdoctor snapshot: %s", s) }
	}
	rec, err := Record(ctx, src, o.RecordOptions)
	if err != nil {
		return err
	}
	if o.Progress != nil {
		o.Progress("writing " + o.Output)
	}
	meta := rec.Meta(o.Version, label, start).Marshal()
	var st ArchiveStats
	write := func(w io.Writer) error {
		var err error
		st, err = WriteArchive(w, rec, meta, start)
		return err
	}
	if o.Output == "-" {
		err = write(out)
	} else {
		err = machine.WriteAtomically(o.Output, 0o600, write)
	}
	if o.Progress != nil {
		report.ClearLine(errw)
	}
	if err != nil {
		return err
	}
	WriteSummary(errw, o.Output, rec, st, time.Since(start))
	return nil
}

// WriteSummary tells the person who took the snapshot what went into the
// archive written to output (its counts, its sizes, whether it is
// redacted, how long it took) and the first of the paths that could not be
// read.
func WriteSummary(w io.Writer, output string, rec *Recording, st ArchiveStats, took time.Duration) {
	red := "serials, WWNs, MACs and host name redacted"
	if !rec.Redacted {
		red = "serials kept (--keep-serials)"
	}
	fmt.Fprintf(w, "diskdoctor snapshot: wrote %s: %d files, %d directories, %d links, %d commands; %s uncompressed, %s compressed; %s; %s\n",
		output, st.Files, st.Dirs, st.Links, len(rec.Commands), humanize.IBytes(uint64(st.Bytes)), humanize.IBytes(uint64(st.Compressed)), red, took.Round(time.Millisecond))
	if n := len(rec.Unreadable); n > 0 {
		fmt.Fprintf(w, "diskdoctor snapshot: %d paths could not be read and are not in the snapshot (listed in %s):\n", n, MetaFile)
		for i, u := range rec.Unreadable {
			if i == 10 {
				fmt.Fprintf(w, "  … and %d more\n", n-10)
				break
			}
			fmt.Fprintln(w, "  "+u)
		}
	}
}
