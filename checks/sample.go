package checks

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/diskdoctor/diskdoctor/machine"
	"github.com/diskdoctor/diskdoctor/probes/window"
	"github.com/prometheus/procfs"
)

func init() {
	Register(Check{Name: "sample", Description: "a window of /proc/diskstats, PSI and /proc/<pid>/io, like iostat -x, iotop -o and pressure together: --sample long, 1 s by default on this machine", Run: sample})
}

// KindSample marks the one observation that carries the window's summary.
const KindSample = "sample"

// Sample is the measured window, as the JSON report's "sample" object.
type Sample struct {
	Seconds   float64              `json:"seconds"`
	Source    string               `json:"source"`
	Devices   []window.DeviceRates `json:"devices"`
	Processes []window.ProcRates   `json:"processes"`
	// Pressure is the share of the window (%) that tasks stalled, from the
	// growth of the PSI totals: io_some, io_full, cpu_some, memory_some...
	Pressure map[string]float64 `json:"pressure"`
	// Background lists processes known to load storage that ran during
	// the window (fstrim, backups, scrubs).
	Background          []string `json:"background,omitempty"`
	ProcessesUnreadable int      `json:"processes_unreadable,omitempty"`
	// Default: the short window a run without --sample takes on a live
	// machine (Options.LiveWindow), not one a person asked for.
	Default bool `json:"default,omitempty"`
}

// backgroundTools load storage on their own schedule and are often the real
// "slow disk".
var backgroundTools = map[string]bool{
	"fstrim": true, "blkdiscard": true, "rsync": true, "borg": true, "restic": true, "duplicity": true,
	"bacula-fd": true, "bareos-fd": true, "xfs_scrub": true, "e2scrub": true, "btrfs": true,
	"updatedb": true, "plocate-build": true, "mdadm": true, "zfs": true,
}

func sample(ctx context.Context, env *Env) []*Observation {
	d, byDefault := windowLength(env)
	if d <= 0 {
		return nil
	}
	w, err := readWindow(ctx, env, d)
	if err != nil {
		if !env.Host.IsLive() && !window.HasRecorded(env.Host) {
			// Not the kernel's doing: the recording was made without
			// one (diskdoctor snapshot records none).
			err = withHint(err, "the recording holds no second reading of the counters; run diskdoctor --sample 5s on the machine itself to measure a window")
		}
		env.Skip("sample", "", err)
		return nil
	}
	s := &Sample{Seconds: round(w.Seconds, 3), Source: w.Source, Pressure: map[string]float64{}, ProcessesUnreadable: w.End.ProcsDenied, Default: byDefault}
	out := sampleDevices(ctx, env, w, s)
	if s.Devices == nil {
		s.Devices = []window.DeviceRates{}
	}
	// Without root, other users' /proc/PID/io cannot be read (proc(5):
	// ptrace access mode): when that is most processes, the process table
	// is not the machine's.
	if readable := len(w.End.Procs); w.End.ProcsDenied > readable {
		env.Skip("sample-processes", "", fmt.Errorf("%w: /proc/PID/io of %d of %d processes could not be read; the processes doing I/O may be among them", machine.ErrPermission, w.End.ProcsDenied, w.End.ProcsDenied+readable))
	}
	host := sampleHost(w, s)
	summary := NewObservation("sample", KindSample, "window")
	summary.Set("summary", s)
	return append(append(out, host), summary)
}

// windowLength is the window to take: the one asked for (Sample), else on
// this machine the default one (LiveWindow, true). A recorded machine
// gets no window it was not asked for, so that its report stays the one
// its recording gave.
func windowLength(env *Env) (time.Duration, bool) {
	if env.Opts.Sample > 0 {
		return env.Opts.Sample, false
	}
	if env.Opts.LiveWindow > 0 && env.Host.IsLive() {
		return env.Opts.LiveWindow, true
	}
	return 0, false
}

// readWindow measures the window under its own deadline: the probe
// timeout is for one reading, the window is as long as asked.
func readWindow(ctx context.Context, env *Env, d time.Duration) (*window.Window, error) {
	wctx, cancel := context.WithTimeout(ctx, d+2*env.Opts.ProbeTimeout)
	defer cancel()
	return window.Sample(wctx, env.Host, d, env.Opts.Progress)
}

// sampleDevices is one observation per judged device with its rates over
// the window, all of them added to the window's summary.
func sampleDevices(ctx context.Context, env *Env, w *window.Window, s *Sample) []*Observation {
	src := fmt.Sprintf("/proc/diskstats, 2 readings %.1f s apart", w.Seconds)
	var out []*Observation
	for _, d := range env.Judged(ctx) {
		r, ok := windowRates(w, d.Name)
		if !ok {
			continue
		}
		s.Devices = append(s.Devices, r)
		o := NewObservation("sample", KindDevice, d.Name)
		ev := Evidence{src, window.FormatRates(r)}
		o.Set("sample_r_s", r.RS, ev)
		o.Set("sample_w_s", r.WS)
		o.Set("sample_r_mbs", r.RMBs)
		o.Set("sample_w_mbs", r.WMBs)
		o.Set("sample_r_await_ms", r.RAwaitMs)
		o.Set("sample_w_await_ms", r.WAwaitMs)
		o.Set("sample_rareq_kib", r.RareqKiB)
		o.Set("sample_wareq_kib", r.WareqKiB)
		o.Set("sample_aqu_sz", r.AquSz)
		o.Set("sample_util_pct", r.UtilPct)
		o.Set("sample_seconds", s.Seconds)
		out = append(out, o)
	}
	// Devices that are not judged (loop, dm, md, zram) but did I/O in the
	// window are measured too: a writer on a loop device is load on the
	// disks beneath it, and the triage view shows it.
	if devs, err := env.Devices(ctx); err == nil {
		for _, d := range devs {
			if env.IsJudged(d) {
				continue
			}
			if r, ok := windowRates(w, d.Name); ok && r.RS+r.WS > 0 {
				s.Devices = append(s.Devices, r)
			}
		}
	}
	return out
}

// windowRates is a device's rates over the window (iostat -x's, from two
// readings of /proc/diskstats: Documentation/admin-guide/iostats.rst);
// false when one reading lacks it.
func windowRates(w *window.Window, name string) (window.DeviceRates, bool) {
	a, okA := w.Start.Disks[name]
	b, okB := w.End.Disks[name]
	if !okA || !okB {
		return window.DeviceRates{}, false
	}
	return roundRates(window.Rates(name, a, b, w.Seconds)), true
}

// sampleHost is the host over the window: the share of it that tasks
// stalled (PSI), the processes that did most I/O, and the storage-heavy
// tools among them.
func sampleHost(w *window.Window, s *Sample) *Observation {
	host := NewObservation("sample", KindHost, "host")
	if w.Start.PSI != nil && w.End.PSI != nil {
		addStall(host, s, "io", w.Start.PSI.IO, w.End.PSI.IO, w.Seconds)
		addStall(host, s, "cpu", w.Start.PSI.CPU, w.End.PSI.CPU, w.Seconds)
		addStall(host, s, "memory", w.Start.PSI.Memory, w.End.PSI.Memory, w.Seconds)
	}
	addSteal(host, w)
	s.Processes = window.TopProcesses(w, 10)
	if s.Processes == nil {
		s.Processes = []window.ProcRates{}
	}
	for i := range s.Processes {
		p := &s.Processes[i]
		p.ReadBytesPerS, p.WriteBytesPerS = round(p.ReadBytesPerS, 0), round(p.WriteBytesPerS, 0)
		for j := range p.Devices {
			p.Devices[j].ReadBytesPerS, p.Devices[j].WriteBytesPerS = round(p.Devices[j].ReadBytesPerS, 0), round(p.Devices[j].WriteBytesPerS, 0)
		}
	}
	if len(s.Processes) > 0 {
		p := s.Processes[0]
		who, src := fmt.Sprintf("%s (pid %d)", p.Comm, p.PID), "/proc/"+fmt.Sprint(p.PID)+"/io, 2 readings"
		if p.ExitedChildren {
			// The kernel adds a reaped child's I/O to its parent's
			// /proc/PID/io (kernel/exit.c, wait_task_zombie).
			who = "the exited threads and children of " + who
			src += ", less its threads' /proc/PID/task/TID/io"
		}
		host.Set("top_process", topProcessText(who, p),
			Evidence{src, fmt.Sprintf("write_bytes +%.0f B/s, read_bytes +%.0f B/s", p.WriteBytesPerS, p.ReadBytesPerS)})
	}
	// A storage tool counts as background work only when it did I/O in
	// the window: mdadm --monitor or an idle rsync daemon runs all the
	// time and loads nothing.
	bg := map[string]bool{}
	for _, p := range window.TopProcesses(w, 0) {
		if backgroundTools[p.Comm] {
			bg[fmt.Sprintf("%s (pid %d)", p.Comm, p.PID)] = true
		}
	}
	s.Background = sortedKeys(bg)
	host.Set("background_processes", nonNil(s.Background))
	host.Set("sample_seconds", s.Seconds)
	return host
}

// topProcessText is the top process's I/O as the notes of device findings
// quote it: /proc/PID/io counts a process's I/O on every device together
// (proc(5)), so the figures are said to be that, and its I/O on one device
// is given only where its cgroup's io.stat counted it
// (window.ProcRates.Devices).
func topProcessText(who string, p window.ProcRates) string {
	text := fmt.Sprintf("%s: read %.1f MB/s, write %.1f MB/s on all devices together", who, p.ReadBytesPerS/1e6, p.WriteBytesPerS/1e6)
	var on []string
	for _, d := range p.Devices {
		on = append(on, fmt.Sprintf("%s read %.1f MB/s, write %.1f MB/s", d.Name, d.ReadBytesPerS/1e6, d.WriteBytesPerS/1e6))
	}
	if len(on) > 0 {
		text += "; per device (its cgroup's io.stat): " + strings.Join(on, "; ")
	}
	return text
}

// addStall records the share of the window that tasks stalled on a
// resource, from the growth of its PSI totals.
func addStall(o *Observation, s *Sample, res string, a, b *procfs.PSIStats, secs float64) {
	if a == nil || b == nil {
		return
	}
	for _, kind := range []struct {
		name string
		a, b *procfs.PSILine
	}{{"some", a.Some, b.Some}, {"full", a.Full, b.Full}} {
		pct, ok := window.StallPct(kind.a, kind.b, secs)
		if !ok {
			continue
		}
		pct = round(pct, 2)
		key := res + "_" + kind.name
		s.Pressure[key] = pct
		o.Set(key+"_window_pct", pct, Evidence{"/proc/pressure/" + res + ", 2 readings", fmt.Sprintf("%s total +%d µs in %.1f s = %.1f %%", kind.name, kind.b.Total-kind.a.Total, secs, pct)})
	}
}

func roundRates(r window.DeviceRates) window.DeviceRates {
	for _, f := range []*float64{&r.RS, &r.WS, &r.RMBs, &r.WMBs, &r.RAwaitMs, &r.WAwaitMs, &r.RareqKiB, &r.WareqKiB, &r.AquSz, &r.UtilPct} {
		*f = round(*f, 3)
	}
	return r
}
