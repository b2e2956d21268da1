package window

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"math"
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/diskdoctor/diskdoctor/machine"
	"github.com/diskdoctor/diskdoctor/probes/system"
	"github.com/prometheus/procfs"
	"github.com/prometheus/procfs/blockdevice"
	"go.yaml.in/yaml/v3"
)

// Counters are the cumulative kernel counters that a sampling window
// differences: /proc/diskstats, PSI totals, and per-process I/O.
type Counters struct {
	Disks map[string]blockdevice.IOStats
	PSI   *system.Pressure
	Procs map[int]ProcCounters
	// CPU is the "cpu" line of /proc/stat (seconds in each state since
	// boot, all CPUs); nil where it could not be read.
	CPU *procfs.CPUStat
	// ProcsDenied counts processes whose /proc/<pid>/io could not be read
	// (other users' processes without root).
	ProcsDenied int
	// DevNos maps a device's name to its "MAJ:MIN" (/proc/diskstats), the
	// key of a cgroup's io.stat.
	DevNos map[string]string
	// CgroupIO is each cgroup's storage bytes so far per device, by cgroup
	// path (cgroup v2 io.stat: Documentation/admin-guide/cgroup-v2.rst),
	// for the cgroups whose parent enables the io controller; nil on
	// cgroup v1 or where none does.
	CgroupIO map[string]map[string]DeviceBytes
	// CgroupProcs are the processes of the cgroups of the processes that
	// did I/O in the window (cgroup.procs), read with the second reading.
	CgroupProcs map[string][]int
}

// DeviceBytes are bytes read from and written to one device so far.
type DeviceBytes struct {
	Read, Write uint64
}

// ProcCounters is one process's storage I/O so far (/proc/<pid>/io).
type ProcCounters struct {
	PID                   int
	Comm, Cgroup          string
	Cmdline               string // ShortCommand of /proc/PID/cmdline; live only, never recorded: see fillCgroups
	ReadBytes, WriteBytes uint64
	// OwnRead and OwnWrite are the I/O of the process's live threads (the
	// sum of /proc/PID/task/TID/io). /proc/PID/io adds to them the I/O of
	// its exited threads and of the children it reaped: wait_task_zombie
	// (kernel/exit.c) adds a reaped child's ioac to the parent's
	// signal->ioac, which do_io_accounting (fs/proc/base.c) sums into the
	// process's file, while a thread's own file holds its ioac alone.
	// OwnKnown is false where the threads were not read (a recording
	// without them, a process that hid them).
	OwnRead, OwnWrite uint64
	OwnKnown          bool
}

// ReadCounters reads one set of counters, with every process's name and
// cgroup.
func ReadCounters(ctx context.Context, h *machine.Host) (*Counters, error) {
	c, err := readCounters(ctx, h, true, false)
	if err != nil {
		return nil, err
	}
	fillCgroups(ctx, h, nil, c)
	return c, nil
}

// readCounters reads the disks' and the processes' counters; comm adds each
// process's name, threads each process's own I/O (readThreads). A
// process's files are read through the Host like any
// other (contained, bounded, non-blocking) rather than through procfs' Proc,
// which costs twice the system calls, and a window reads several files of
// every process.
func readCounters(ctx context.Context, h *machine.Host, comm, threads bool) (*Counters, error) {
	if err := h.Uses("/proc/diskstats"); err != nil {
		return nil, err
	}
	c := &Counters{Disks: map[string]blockdevice.IOStats{}, Procs: map[int]ProcCounters{}, DevNos: map[string]string{}}
	bfs, err := blockdevice.NewFS(h.Path("/proc"), h.Path("/"))
	if err != nil {
		return nil, fmt.Errorf("/proc: %w", machine.ErrNotAvailable)
	}
	stats, err := bfs.ProcDiskstats()
	if err != nil {
		return nil, machine.FileErr("/proc/diskstats", err)
	}
	for _, s := range stats {
		c.Disks[s.DeviceName] = s.IOStats
		c.DevNos[s.DeviceName] = fmt.Sprintf("%d:%d", s.MajorNumber, s.MinorNumber)
	}
	c.PSI, _ = system.ReadPressure(ctx, h)
	c.CgroupIO = readCgroupIO(ctx, h)
	c.CPU = readCPUStat(h)
	ents, err := h.ReadDir(ctx, "/proc")
	if err != nil {
		return c, nil
	}
	for _, e := range ents {
		pid, err := strconv.Atoi(e.Name())
		if err != nil || pid <= 0 {
			continue
		}
		if ctx.Err() != nil {
			return c, machine.CtxErr(ctx.Err())
		}
		dir := "/proc/" + e.Name()
		b, err := h.ReadFileLimit(ctx, dir+"/io", procIOLimit)
		if err != nil {
			if errors.Is(err, machine.ErrPermission) {
				c.ProcsDenied++
			}
			continue // gone since the listing, or not a process
		}
		pc, ok := parseProcIO(b)
		if !ok {
			continue
		}
		pc.PID = pid
		// A process that never did I/O has none of its own either; the
		// threads of the others are read (readThreads).
		switch {
		case pc.ReadBytes == 0 && pc.WriteBytes == 0:
			pc.OwnKnown = true
		case threads:
			pc.OwnRead, pc.OwnWrite, pc.OwnKnown = readThreads(ctx, h, dir)
		}
		if comm {
			if b, err := h.ReadFileLimit(ctx, dir+"/comm", procCommLimit); err == nil {
				pc.Comm = strings.TrimSuffix(string(b), "\n")
			}
		}
		c.Procs[pid] = pc
	}
	return c, nil
}

// /proc/<pid>/io is seven "name: number" lines; comm is at most
// TASK_COMM_LEN (16) bytes, longer in recordings of newer kernels.
const (
	procIOLimit   = 1 << 10
	procCommLimit = 256
)

// readCPUStat reads /proc/stat's total line through procfs; nil when it
// cannot.
func readCPUStat(h *machine.Host) *procfs.CPUStat {
	if err := h.Uses("/proc/stat"); err != nil {
		return nil
	}
	pfs, err := procfs.NewFS(h.Path("/proc"))
	if err != nil {
		return nil
	}
	st, err := pfs.Stat()
	if err != nil {
		return nil
	}
	return &st.CPUTotal
}

// StealPct is the share of the CPUs' time between two /proc/stat
// readings that the hypervisor gave to others while this guest's vCPUs
// were runnable (steal, Documentation/filesystems/proc.rst): the steal
// growth over the growth of all states. Guest and guest_nice are left
// out, being counted in user and nice already (kernel/sched/cputime.c
// account_guest_time). ok is false when a reading is missing or no time
// passed.
func StealPct(a, b *procfs.CPUStat) (pct float64, ok bool) {
	if a == nil || b == nil {
		return 0, false
	}
	total := func(c *procfs.CPUStat) float64 {
		return c.User + c.Nice + c.System + c.Idle + c.Iowait + c.IRQ + c.SoftIRQ + c.Steal
	}
	d := total(b) - total(a)
	steal := b.Steal - a.Steal
	if !(d > 0) || steal < 0 || math.IsInf(d, 0) {
		return 0, false
	}
	return 100 * steal / d, true
}

// parseProcIO reads read_bytes and write_bytes (Documentation/filesystems/
// proc.rst: the bytes the process caused to be fetched from and sent to
// the storage layer).
func parseProcIO(b []byte) (ProcCounters, bool) {
	var pc ProcCounters
	var haveR, haveW bool
	for _, line := range strings.Split(string(b), "\n") {
		k, v, ok := strings.Cut(line, ":")
		if !ok {
			continue
		}
		n, err := strconv.ParseUint(strings.TrimSpace(v), 10, 64)
		if err != nil {
			continue
		}
		switch k {
		case "read_bytes":
			pc.ReadBytes, haveR = n, true
		case "write_bytes":
			pc.WriteBytes, haveW = n, true
		}
	}
	return pc, haveR && haveW
}

// maxThreads bounds the threads read for one process: beyond it the
// process's own I/O is left unknown rather than read at length.
const maxThreads = 4096

// readThreads sums the I/O of a process's live threads
// (/proc/PID/task/TID/io, each a thread's own): the process's own I/O,
// without its exited threads' and reaped children's. false when the
// threads cannot be read.
func readThreads(ctx context.Context, h *machine.Host, dir string) (rd, wr uint64, ok bool) {
	ents, err := h.ReadDir(ctx, dir+"/task")
	if err != nil || len(ents) == 0 || len(ents) > maxThreads {
		return 0, 0, false
	}
	for _, e := range ents {
		b, err := h.ReadFileLimit(ctx, dir+"/task/"+e.Name()+"/io", procIOLimit)
		if err != nil {
			if errors.Is(err, machine.ErrPermission) {
				return 0, 0, false
			}
			continue // exited since the listing: its I/O is no longer the process's own
		}
		tc, ok := parseProcIO(b)
		if !ok {
			return 0, 0, false
		}
		rd += tc.ReadBytes
		wr += tc.WriteBytes
	}
	return rd, wr, true
}

// cgroupRoot is where cgroup v2 is mounted on systemd and most other hosts.
const cgroupRoot = "/sys/fs/cgroup"

// maxCgroups bounds the cgroups whose io.stat a reading holds (a host of
// thousands of containers): the rest are left out, their processes' I/O
// then not split per device.
const maxCgroups = 2048

// readCgroupIO reads the io.stat of every cgroup whose parent enables the
// io controller (cgroup.subtree_control), walking down from the root only
// through such parents: a child has io.stat only then
// (Documentation/admin-guide/cgroup-v2.rst, "Controlling Controllers").
// nil on cgroup v1 or where no cgroup has it.
func readCgroupIO(ctx context.Context, h *machine.Host) map[string]map[string]DeviceBytes {
	out := map[string]map[string]DeviceBytes{}
	var walk func(dir, cg string)
	walk = func(dir, cg string) {
		sc, err := h.ReadFileLimit(ctx, dir+"/cgroup.subtree_control", procIOLimit)
		if err != nil || !slices.Contains(strings.Fields(string(sc)), "io") {
			return
		}
		ents, err := h.ReadDir(ctx, dir)
		if err != nil {
			return
		}
		for _, e := range ents {
			if !e.IsDir() || len(out) >= maxCgroups || ctx.Err() != nil {
				continue
			}
			child, path := dir+"/"+e.Name(), strings.TrimSuffix(cg, "/")+"/"+e.Name()
			if b, err := h.ReadFileLimit(ctx, child+"/io.stat", machine.ReadLimit(child)); err == nil {
				out[path] = parseIOStat(b)
			}
			walk(child, path)
		}
	}
	walk(cgroupRoot, "/")
	if len(out) == 0 {
		return nil
	}
	return out
}

// parseIOStat reads a cgroup's io.stat: one line per device, "MAJ:MIN
// rbytes=N wbytes=N rios=N …".
func parseIOStat(b []byte) map[string]DeviceBytes {
	out := map[string]DeviceBytes{}
	for _, line := range strings.Split(string(b), "\n") {
		f := strings.Fields(line)
		if len(f) < 2 || !strings.Contains(f[0], ":") {
			continue
		}
		var d DeviceBytes
		for _, kv := range f[1:] {
			k, v, _ := strings.Cut(kv, "=")
			n, err := strconv.ParseUint(v, 10, 64)
			if err != nil {
				continue
			}
			switch k {
			case "rbytes":
				d.Read = n
			case "wbytes":
				d.Write = n
			}
		}
		out[f[0]] = d
	}
	return out
}

// fillCgroups reads the cgroup of each process that did I/O since start
// (every process when start is nil): only those are named in a report.
// It also reads their own I/O (their threads', readThreads) and the
// processes of their cgroups (cgroup.procs), which say whether a cgroup's
// io.stat is one process's.
func fillCgroups(ctx context.Context, h *machine.Host, start, end *Counters) {
	for pid, e := range end.Procs {
		if start != nil {
			s, ok := start.Procs[pid]
			if ok && e.ReadBytes == s.ReadBytes && e.WriteBytes == s.WriteBytes {
				continue
			}
			if !ok && e.ReadBytes == 0 && e.WriteBytes == 0 {
				continue
			}
		}
		b, err := h.ReadFileLimit(ctx, "/proc/"+strconv.Itoa(pid)+"/cgroup", machine.ReadLimit("/proc/"))
		if err != nil {
			continue
		}
		e.Cgroup = lastCgroup(b)
		if e.ReadBytes != 0 || e.WriteBytes != 0 {
			e.OwnRead, e.OwnWrite, e.OwnKnown = readThreads(ctx, h, "/proc/"+strconv.Itoa(pid))
		}
		if _, ok := end.CgroupIO[e.Cgroup]; ok {
			if _, done := end.CgroupProcs[e.Cgroup]; !done {
				if end.CgroupProcs == nil {
					end.CgroupProcs = map[string][]int{}
				}
				end.CgroupProcs[e.Cgroup] = readCgroupProcs(ctx, h, e.Cgroup)
			}
		}
		// The command is for the person at the terminal (iotop shows it),
		// and only on the live machine. It is read without the tracer (a
		// command line can hold a password, and a snapshot is meant to be
		// shared), and only its program and first plain arguments are kept
		// (ShortCommand).
		if h.IsLive() {
			if b, err := h.WithTracer(nil).ReadFileLimit(ctx, "/proc/"+strconv.Itoa(pid)+"/cmdline", machine.ReadLimit("/proc/")); err == nil {
				e.Cmdline = ShortCommand(strings.Split(strings.TrimRight(string(b), "\x00"), "\x00"))
			}
		}
		end.Procs[pid] = e
	}
}

// readCgroupProcs lists a cgroup's processes (cgroup.procs); nil when it
// cannot be read.
func readCgroupProcs(ctx context.Context, h *machine.Host, cg string) []int {
	p := cgroupRoot + cg + "/cgroup.procs"
	b, err := h.ReadFileLimit(ctx, p, machine.ReadLimit(p))
	if err != nil {
		return nil
	}
	pids := []int{}
	for _, f := range strings.Fields(string(b)) {
		if n, err := strconv.Atoi(f); err == nil {
			pids = append(pids, n)
		}
	}
	return pids
}

// lastCgroup is the path of the last line of /proc/<pid>/cgroup
// ("hierarchy:controllers:path"; on cgroup v2 the one line "0::/path").
func lastCgroup(b []byte) string {
	lines := strings.Split(strings.TrimRight(string(b), "\n"), "\n")
	for i := len(lines) - 1; i >= 0; i-- {
		if f := strings.SplitN(lines[i], ":", 3); len(f) == 3 {
			return f[2]
		}
	}
	return ""
}

// Window is two readings of the counters, Seconds apart.
type Window struct {
	Seconds    float64
	Start, End *Counters
	Source     string // "live" or the recorded samples directory
}

// windowFile describes a recorded window: the machine tree itself is the
// first reading, samples/1/ the second, taken Seconds later.
type windowFile struct {
	Seconds float64 `yaml:"seconds"`
}

// A recorded window is as long as a person would sample: --sample takes
// seconds to hours. Outside these bounds rates would be meaningless (and
// 1e-300 s would make every rate infinite).
const (
	minWindowSeconds = 0.01
	maxWindowSeconds = 31 * 24 * 3600
)

// parseWindowFile decodes samples/window.yaml strictly: a finite number of
// seconds within the bounds, no unknown field.
func parseWindowFile(b []byte) (windowFile, error) {
	var wf windowFile
	dec := yaml.NewDecoder(bytes.NewReader(b))
	dec.KnownFields(true)
	if err := dec.Decode(&wf); err != nil {
		return wf, fmt.Errorf("/samples/window.yaml: %w: %w", machine.ErrParse, err)
	}
	if math.IsNaN(wf.Seconds) || wf.Seconds < minWindowSeconds || wf.Seconds > maxWindowSeconds {
		return wf, fmt.Errorf("/samples/window.yaml: %w: seconds must be a number from %g to %g, not %g", machine.ErrParse, float64(minWindowSeconds), float64(maxWindowSeconds), wf.Seconds)
	}
	return wf, nil
}

// HasRecorded reports whether a recorded machine holds a sampling
// window (samples/window.yaml, recorded beside the machine by hand:
// diskdoctor snapshot records none, docs/snapshots.md).
func HasRecorded(h *machine.Host) bool {
	return !h.IsLive() && h.Root() != "/" && h.Exists("/samples/window.yaml")
}

// Sample reads the counters, waits d (telling progress how far it
// is), and reads them again. A recorded machine replays its recorded window
// (samples/window.yaml and samples/1/) whatever d is.
func Sample(ctx context.Context, h *machine.Host, d time.Duration, progress func(elapsed time.Duration)) (*Window, error) {
	if !h.IsLive() && h.Root() != "/" {
		return recordedWindow(ctx, h)
	}
	// Names only at the end (where the report needs them) and cgroups only
	// for the processes that did I/O: on a host of many processes each file
	// read is a long pass over /proc. Without the first names a pid reused within the
	// window is not told apart; pid_max is 2^22 on 64-bit systemd hosts,
	// so reuse within seconds needs millions of process starts.
	start, err := readCounters(ctx, h, false, true)
	if err != nil {
		return nil, err
	}
	began := time.Now()
	tick := time.NewTicker(250 * time.Millisecond)
	defer tick.Stop()
	deadline := time.NewTimer(d)
	defer deadline.Stop()
wait:
	for {
		select {
		case <-ctx.Done():
			return nil, machine.CtxErr(ctx.Err())
		case <-deadline.C:
			break wait
		case <-tick.C:
			if progress != nil {
				progress(time.Since(began))
			}
		}
	}
	end, err := readCounters(ctx, h, true, false)
	if err != nil {
		return nil, err
	}
	secs := time.Since(began).Seconds()
	fillCgroups(ctx, h, start, end)
	return &Window{Seconds: secs, Start: start, End: end, Source: "live"}, nil
}

func recordedWindow(ctx context.Context, h *machine.Host) (*Window, error) {
	b, err := h.ReadFile(ctx, "/samples/window.yaml")
	if err != nil {
		return nil, fmt.Errorf("recorded machine has no sampling window (samples/window.yaml): %w", machine.ErrNotAvailable)
	}
	wf, err := parseWindowFile(b)
	if err != nil {
		return nil, err
	}
	start, err := readCounters(ctx, h, true, true)
	if err != nil {
		return nil, err
	}
	// The second reading is a machine tree of its own, resolved (like any
	// path) inside the first.
	second, err := h.Within("/samples/1")
	if err != nil {
		return nil, err
	}
	end, err := readCounters(ctx, second, true, false)
	if err != nil {
		return nil, fmt.Errorf("second reading: %w", err)
	}
	fillCgroups(ctx, second, start, end)
	return &Window{Seconds: wf.Seconds, Start: start, End: end, Source: "samples/window.yaml"}, nil
}

// DeviceRates are one device's figures over a window, with the definitions
// of sysstat's `iostat -x`, except that MB/s are 10^6 bytes per second (the
// unit of datasheets and fio), where iostat's kB/s are 1024 bytes.
type DeviceRates struct {
	Name     string  `json:"name"`
	RS       float64 `json:"r_s"`
	WS       float64 `json:"w_s"`
	RMBs     float64 `json:"r_mbs"`
	WMBs     float64 `json:"w_mbs"`
	RAwaitMs float64 `json:"r_await_ms"`
	WAwaitMs float64 `json:"w_await_ms"`
	RareqKiB float64 `json:"rareq_sz_kib"`
	WareqKiB float64 `json:"wareq_sz_kib"`
	AquSz    float64 `json:"aqu_sz"`
	UtilPct  float64 `json:"util_pct"`
}

// The noise floor of a device in a window: below all of these it counts as
// idle (journal commits, atime updates); above any, something else is
// using it, and a benchmark would measure that load too.
const (
	activeUtilPct = 5.0
	activeMBs     = 1.0
	activeIOPS    = 50.0
)

// Active says whether a device did more than the noise floor in the
// window.
func (r DeviceRates) Active() bool {
	util, mbs, iops := r.Above()
	return util || mbs || iops
}

// Above says which figures of the noise floor the device exceeded: its
// %util, its MB/s, its requests per second; a report names the ones that
// made it active.
func (r DeviceRates) Above() (util, mbs, iops bool) {
	return r.UtilPct >= activeUtilPct, r.RMBs+r.WMBs >= activeMBs, r.RS+r.WS >= activeIOPS
}

// Rates computes iostat -x figures from two readings secs apart. A counter
// that went backwards (the device was removed and re-added) counts as zero.
func Rates(name string, a, b blockdevice.IOStats, secs float64) DeviceRates {
	r := DeviceRates{Name: name}
	if secs <= 0 {
		return r
	}
	d := func(x, y uint64) float64 {
		if y < x {
			return 0
		}
		return float64(y - x)
	}
	rIOs, wIOs := d(a.ReadIOs, b.ReadIOs), d(a.WriteIOs, b.WriteIOs)
	rSect, wSect := d(a.ReadSectors, b.ReadSectors), d(a.WriteSectors, b.WriteSectors)
	r.RS, r.WS = rIOs/secs, wIOs/secs
	r.RMBs, r.WMBs = rSect*512/secs/1e6, wSect*512/secs/1e6
	if rIOs > 0 {
		r.RAwaitMs = d(a.ReadTicks, b.ReadTicks) / rIOs
		r.RareqKiB = rSect / 2 / rIOs
	}
	if wIOs > 0 {
		r.WAwaitMs = d(a.WriteTicks, b.WriteTicks) / wIOs
		r.WareqKiB = wSect / 2 / wIOs
	}
	r.AquSz = d(a.WeightedIOTicks, b.WeightedIOTicks) / secs / 1000
	r.UtilPct = d(a.IOsTotalTicks, b.IOsTotalTicks) / secs / 10
	if r.UtilPct > 100 {
		r.UtilPct = 100
	}
	return r
}

// ProcRates is one process's I/O over a window, like `iotop -o`.
type ProcRates struct {
	PID            int     `json:"pid"`
	Comm           string  `json:"comm"`
	Cmdline        string  `json:"cmdline,omitempty"`
	Cgroup         string  `json:"cgroup,omitempty"`
	ReadBytesPerS  float64 `json:"read_bytes_s"`
	WriteBytesPerS float64 `json:"write_bytes_s"`
	// ExitedChildren: the row is not the process's own I/O but that of its
	// threads and children that exited in the window, which the kernel adds
	// to the parent's /proc/PID/io when it reaps them (ProcCounters.Own).
	ExitedChildren bool `json:"exited_children,omitempty"`
	// Devices is the I/O per device, where the kernel counted it: the
	// process's cgroup's io.stat, when the process was the only one in
	// its cgroup that did I/O in the window. /proc/PID/io itself does not
	// say on which device (proc(5)).
	Devices []ProcDeviceRates `json:"devices,omitempty"`
}

// ProcDeviceRates is a process's I/O on one device over a window.
type ProcDeviceRates struct {
	Name           string  `json:"name"`
	ReadBytesPerS  float64 `json:"read_bytes_s"`
	WriteBytesPerS float64 `json:"write_bytes_s"`
}

// Total is the row's bytes per second, read and written.
func (p ProcRates) Total() float64 { return p.ReadBytesPerS + p.WriteBytesPerS }

// On is the row's I/O on one device, when the kernel counted it per
// device (Devices).
func (p ProcRates) On(dev string) (ProcDeviceRates, bool) {
	for _, d := range p.Devices {
		if d.Name == dev {
			return d, true
		}
	}
	return ProcDeviceRates{}, false
}

// TopProcesses returns the processes that did storage I/O in the window,
// the most I/O (read and written) first. A process that started during
// the window counts from zero. A process's own I/O and that of the
// children it reaped in the window are rows of their own, where its
// threads could be read (ProcCounters.Own).
func TopProcesses(w *Window, limit int) []ProcRates {
	var out []ProcRates
	for pid, e := range w.End.Procs {
		s, seen := w.Start.Procs[pid]
		if s.Comm != "" && s.Comm != e.Comm {
			s, seen = ProcCounters{}, false // the pid was reused
		}
		rd, wr := grown(s.ReadBytes, e.ReadBytes), grown(s.WriteBytes, e.WriteBytes)
		if rd == 0 && wr == 0 {
			continue
		}
		row := ProcRates{PID: pid, Comm: e.Comm, Cmdline: e.Cmdline, Cgroup: e.Cgroup}
		if e.OwnKnown && (s.OwnKnown || !seen) {
			ord, owr := min(grown(s.OwnRead, e.OwnRead), rd), min(grown(s.OwnWrite, e.OwnWrite), wr)
			if crd, cwr := rd-ord, wr-owr; crd+cwr > 0 {
				child := row
				child.ExitedChildren = true
				child.ReadBytesPerS, child.WriteBytesPerS = crd/w.Seconds, cwr/w.Seconds
				out = append(out, child)
			}
			rd, wr = ord, owr
		}
		if rd == 0 && wr == 0 {
			continue
		}
		row.ReadBytesPerS, row.WriteBytesPerS = rd/w.Seconds, wr/w.Seconds
		out = append(out, row)
	}
	splitByCgroup(w, out)
	sort.Slice(out, func(i, j int) bool {
		if a, b := out[i].Total(), out[j].Total(); a != b {
			return a > b
		}
		if out[i].PID != out[j].PID {
			return out[i].PID < out[j].PID
		}
		return !out[i].ExitedChildren
	})
	if limit > 0 && len(out) > limit {
		out = out[:limit]
	}
	return out
}

// grown is how much a cumulative counter grew; a counter that went
// backwards counts as zero.
func grown(a, b uint64) float64 {
	if b < a {
		return 0
	}
	return float64(b - a)
}

// splitByCgroup sets each row's I/O per device from its cgroup's io.stat
// when the row is the only I/O of its cgroup in the window: no other row
// in the cgroup or below it (io.stat counts a cgroup's descendants too),
// and every process of the cgroup readable (cgroup.procs), so that none
// whose /proc/PID/io was hidden shares the figures.
func splitByCgroup(w *Window, rows []ProcRates) {
	if w.Start.CgroupIO == nil || w.End.CgroupIO == nil || w.Seconds <= 0 {
		return
	}
	for i := range rows {
		cg := rows[i].Cgroup
		a, okA := w.Start.CgroupIO[cg]
		b, okB := w.End.CgroupIO[cg]
		if cg == "" || !okA || !okB || !alone(w, rows, i) {
			continue
		}
		for name, no := range w.End.DevNos {
			rd, wr := grown(a[no].Read, b[no].Read), grown(a[no].Write, b[no].Write)
			if rd+wr > 0 {
				rows[i].Devices = append(rows[i].Devices, ProcDeviceRates{Name: name, ReadBytesPerS: rd / w.Seconds, WriteBytesPerS: wr / w.Seconds})
			}
		}
		sort.Slice(rows[i].Devices, func(x, y int) bool { return rows[i].Devices[x].Name < rows[i].Devices[y].Name })
	}
}

// alone says whether rows[i] is the only I/O of its cgroup in the window.
func alone(w *Window, rows []ProcRates, i int) bool {
	cg := rows[i].Cgroup
	for j, r := range rows {
		if j != i && (r.Cgroup == cg || strings.HasPrefix(r.Cgroup, strings.TrimSuffix(cg, "/")+"/")) {
			return false
		}
	}
	procs, ok := w.End.CgroupProcs[cg]
	if !ok || procs == nil {
		return false
	}
	for _, pid := range procs {
		if _, readable := w.End.Procs[pid]; !readable {
			return false
		}
	}
	return true
}

// StallPct is the share of the window (in %) that the PSI total grew by:
// the pressure during the window, not the kernel's running averages.
func StallPct(a, b *procfs.PSILine, secs float64) (float64, bool) {
	if a == nil || b == nil || secs <= 0 || b.Total < a.Total {
		return 0, false
	}
	pct := float64(b.Total-a.Total) / (secs * 1e6) * 100
	if pct > 100 {
		pct = 100
	}
	return pct, true
}

// FormatRates is the evidence line for one device, in iostat's terms.
func FormatRates(r DeviceRates) string {
	f := func(v float64) string { return strconv.FormatFloat(v, 'f', 1, 64) }
	return strings.Join([]string{
		"r/s " + f(r.RS), "w/s " + f(r.WS), "rMB/s " + f(r.RMBs), "wMB/s " + f(r.WMBs),
		"r_await " + f(r.RAwaitMs) + " ms", "w_await " + f(r.WAwaitMs) + " ms",
		"aqu-sz " + f(r.AquSz), "%util " + f(r.UtilPct),
	}, ", ")
}
