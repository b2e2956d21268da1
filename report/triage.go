package report

import (
	"fmt"

	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/charmbracelet/lipgloss"

	"github.com/diskdoctor/diskdoctor/checks"
	"github.com/diskdoctor/diskdoctor/probes/window"
	"github.com/diskdoctor/diskdoctor/rules"
)

// Thresholds of the triage answer, in %util over the window (iostat -x):
// a device busy nearly all the window is where requests queue.
const (
	bottleneckUtil = 90
	busyUtil       = rules.BusyUtilPct
	bytesPerMB     = 1e6 // MB/s as datasheets count, decimal
)

// triageAnswer is the first line of a sampled report: what held the
// machine back in the window, and the finding that explains it.
func triageAnswer(p palette, rep *rules.Report) (string, lipgloss.Style) {
	s := rep.Sample
	secs := strconv.FormatFloat(s.Seconds, 'f', -1, 64)
	top := busiest(s)
	if top == nil || top.RS+top.WS == 0 {
		return "QUIET: no device did I/O in the " + secs + " s window", p.ok
	}
	name := clean(top.Name)
	figures := num(top.UtilPct) + " % busy, " + throughput(rep, *top)
	var msg string
	style := p.Warning
	switch {
	case top.UtilPct >= bottleneckUtil:
		msg = "BOTTLENECK " + name + ": " + figures
		style = p.Critical
	case top.UtilPct >= busyUtil:
		msg = "BUSY " + name + ": " + figures
	default:
		return fmt.Sprintf("NO BOTTLENECK in the %s s window: the busiest device, %s, was %s", secs, name, figures), p.ok
	}
	if rank, f, ok := causeOf(rep, top.Name); ok {
		msg += fmt.Sprintf(" — cause: %s (finding %d)", strings.ToLower(clean(f.Title[:1]))+clean(f.Title[1:]), rank)
	} else if j := isJudged(rep, top.Name); !j {
		msg += " — not a judged disk (name it with --device " + name + ")"
	}
	return msg, style
}

// throughput is what a device moved in the window, each direction apart,
// the one its datasheet share is of first and with that share ("3277 MB/s
// read = 93.6 % of its datasheet, 1.6 MB/s written"): the share is of one
// direction's rated rate (datasheetShare), so it is never set beside the
// sum of both, which would read as another figure for the same quantity.
// A direction below what the table prints (0.05 MB/s) is left out.
func throughput(rep *rules.Report, d window.DeviceRates) string {
	read, written := num(d.RMBs)+" MB/s read", num(d.WMBs)+" MB/s written"
	first, second := read, written
	firstMBs, secondMBs := d.RMBs, d.WMBs
	if d.WMBs >= d.RMBs { // the direction datasheetShare judges
		first, second = written, read
		firstMBs, secondMBs = d.WMBs, d.RMBs
	}
	if pct, ok := datasheetShare(rep, d); ok {
		// A class default is no datasheet of the device's own
		// (Datasheet.ModelEntry): said as what it is.
		of := "its datasheet"
		if ds := datasheetOf(rep, d.Name); ds != nil && !ds.ModelEntry {
			of = "its class's default figure (no datasheet for its model)"
		}
		first += fmt.Sprintf(" = %s %% of %s", num(pct), of)
	} else if firstMBs < idleMBs {
		return "0.0 MB/s"
	}
	if secondMBs < idleMBs {
		return first
	}
	return first + ", " + second
}

// rw is a process's I/O in MB/s, read and written apart as the iotop
// table prints them, a direction below what it prints left out.
func rw(readBps, writeBps float64) string {
	var parts []string
	if readBps/bytesPerMB >= idleMBs {
		parts = append(parts, num(readBps/bytesPerMB)+" MB/s read")
	}
	if writeBps/bytesPerMB >= idleMBs {
		parts = append(parts, num(writeBps/bytesPerMB)+" MB/s written")
	}
	if len(parts) == 0 {
		return "0.0 MB/s"
	}
	return strings.Join(parts, ", ")
}

// busiest is the device with the highest %util in the window (then the
// most MB/s), or nil.
func busiest(s *checks.Sample) *window.DeviceRates {
	var top *window.DeviceRates
	if s == nil {
		return nil
	}
	for i := range s.Devices {
		d := &s.Devices[i]
		if top == nil || d.UtilPct > top.UtilPct || (d.UtilPct == top.UtilPct && d.RMBs+d.WMBs > top.RMBs+top.WMBs) {
			top = d
		}
	}
	return top
}

// busyInWindow is the device whose load keeps the verdict from a plain OK
// or READY: the busiest one when it was busy (busyUtil), and with
// --context benchmark the busiest that did more than the noise floor
// (DeviceRates.Active, where bench refuses); nil without a window or load.
func busyInWindow(rep *rules.Report) *window.DeviceRates {
	top := busiest(rep.Sample)
	if top == nil || top.UtilPct >= busyUtil {
		return top
	}
	if rep.Host.Context != "benchmark" {
		return nil
	}
	var active *window.DeviceRates
	for i := range rep.Sample.Devices {
		d := &rep.Sample.Devices[i]
		if d.Active() && (active == nil || d.UtilPct > active.UtilPct) {
			active = d
		}
	}
	return active
}

// busyFigures says how busy a device was in the window, by the
// quantities that made it busy (rules.DeviceLoad).
func busyFigures(d window.DeviceRates) string {
	return clean(rules.DeviceLoad(d)) + " in the window"
}

// busiestProcess names the process that did most I/O on a device in the
// window, as bench's preflight names a competitor: pid, command
// (window.ShortCommand's program and first arguments, never a whole
// command line), unit, its MB/s and its share of the device's busy time.
// The share is computed from the I/O the process did on that device: the
// kernel counts a process's I/O without saying on which device (proc(5),
// /proc/pid/io), so it is known per device only from the process's
// cgroup's io.stat (window.ProcRates.Devices), or when the device was the
// only busy one in the window, which is then said. Otherwise the process's
// total is given, and that it cannot be split per device. "" when no
// process's I/O could be read.
func busiestProcess(s *checks.Sample, d window.DeviceRates) string {
	if s == nil || len(s.Processes) == 0 {
		return ""
	}
	dev := clean(d.Name)
	// The share is of the bytes the device moved: what both counters
	// measure. Bytes are not busy time (a seek costs an HDD more than a
	// megabyte of sequential writes), so it is not called a share of it.
	// A process's count can exceed what the device moved (write_bytes
	// grows when a page is dirtied, before writeback: proc(5)); no share
	// is then known, and that is said rather than a share of 100 %.
	share := func(bps float64) string {
		moved := (d.RMBs + d.WMBs) * bytesPerMB
		switch {
		case moved <= 0:
			return ""
		case bps > 1.05*moved:
			return fmt.Sprintf(", more than all %s moved", dev)
		}
		return fmt.Sprintf(", ~%.0f %% of what %s moved", 100*min(bps/moved, 1), dev)
	}
	p, on, how := deviceProcess(s, d)
	switch how {
	case byCgroup:
		return fmt.Sprintf("; top process on %s %s: %s there (its cgroup's io.stat)%s", dev, processName(p), rw(on.ReadBytesPerS, on.WriteBytesPerS), share(on.ReadBytesPerS+on.WriteBytesPerS))
	case onlyBusy:
		return fmt.Sprintf("; top process %s: %s%s (%s the only busy device)", processName(p), rw(p.ReadBytesPerS, p.WriteBytesPerS), share(p.Total()), dev)
	}
	return fmt.Sprintf("; top process %s: %s on all devices together, which /proc/PID/io cannot split per device", processName(p), rw(p.ReadBytesPerS, p.WriteBytesPerS))
}

// How a process's I/O on a device is known (deviceProcess).
const (
	acrossDevices = iota // its total on every device: not split per device
	byCgroup             // its cgroup's io.stat, per device
	onlyBusy             // the device was the only busy one
)

// deviceProcess is the process that did most I/O on a device in the
// window and how that is known: its cgroup's io.stat (topOnDevice, with
// its I/O there), the device being the only busy one, else the process
// that did most I/O on all devices together (acrossDevices), which may
// not be the device's. s has processes.
func deviceProcess(s *checks.Sample, d window.DeviceRates) (window.ProcRates, window.ProcDeviceRates, int) {
	if p, _, ok := topOnDevice(s, d); ok {
		on, _ := p.On(d.Name)
		return p, on, byCgroup
	}
	p := s.Processes[0]
	for _, q := range s.Processes[1:] {
		if q.Total() > p.Total() {
			p = q
		}
	}
	if only, ok := onlyBusyDevice(s); ok && only == d.Name {
		return p, window.ProcDeviceRates{}, onlyBusy
	}
	return p, window.ProcDeviceRates{}, acrossDevices
}

// topOnDevice is the process that did most I/O on a device as its cgroup
// counted it (window.ProcRates.Devices), and its bytes per second there;
// false when none was counted on it, or when a process whose I/O is not
// split per device may have done more there: what the device moved beyond
// the counted rows bounds what the others did on it.
func topOnDevice(s *checks.Sample, d window.DeviceRates) (window.ProcRates, float64, bool) {
	var top window.ProcRates
	var most, counted float64
	for _, p := range s.Processes {
		if on, ok := p.On(d.Name); ok {
			counted += on.ReadBytesPerS + on.WriteBytesPerS
			if on.ReadBytesPerS+on.WriteBytesPerS > most {
				top, most = p, on.ReadBytesPerS+on.WriteBytesPerS
			}
		}
	}
	if most == 0 {
		return top, 0, false
	}
	rest := (d.RMBs+d.WMBs)*bytesPerMB - counted
	for _, p := range s.Processes {
		if len(p.Devices) == 0 && min(p.Total(), rest) > most {
			return top, 0, false
		}
	}
	return top, most, true
}

// onlyBusyDevice is the one device that did more than the noise floor in
// the window (window.DeviceRates.Active); false when none or several did.
func onlyBusyDevice(s *checks.Sample) (string, bool) {
	var name string
	for _, d := range s.Devices {
		if d.Active() {
			if name != "" {
				return "", false
			}
			name = d.Name
		}
	}
	return name, name != ""
}

// processName is "pid N command (unit)", for a row of exited threads and children
// "exited threads and children of pid N command (unit)".
func processName(p window.ProcRates) string {
	name := p.Comm
	if p.Cmdline != "" {
		name = p.Cmdline
	}
	text := fmt.Sprintf("pid %d %s", p.PID, clean(name))
	if u := window.Unit(p.Cgroup); u != "" && u != "/" {
		text += " (" + clean(u) + ")"
	}
	if p.ExitedChildren {
		text = "exited threads and children of " + text
	}
	return text
}

// num prints a measured figure the way iostat does: one decimal, none
// for large values.
func num(v float64) string {
	if v >= 100 {
		return strconv.FormatFloat(v, 'f', 0, 64)
	}
	return strconv.FormatFloat(v, 'f', 1, 64)
}

// causeOf is the finding that explains a device's load: the best-ranked
// finding on the device that explains others (the engine notes "explains
// …"), else the best-ranked warning or critical finding on it.
func causeOf(rep *rules.Report, dev string) (int, rules.Finding, bool) {
	fallback := -1
	for i, f := range rep.Findings {
		if !slices.Contains(f.Subjects, dev) || f.Severity == rules.Info {
			continue
		}
		for _, n := range f.Notes {
			if strings.HasPrefix(n, "explains ") {
				return i + 1, f, true
			}
		}
		if fallback < 0 {
			fallback = i
		}
	}
	if fallback >= 0 {
		return fallback + 1, rep.Findings[fallback], true
	}
	return 0, rules.Finding{}, false
}

func isJudged(rep *rules.Report, dev string) bool {
	for _, d := range rep.Devices {
		if d["name"] == dev {
			j, _ := d[checks.FactJudged].(bool)
			return j
		}
	}
	return false
}

// datasheetShare is the device's throughput as a share of its datasheet's
// sequential figure (write when it mostly wrote), from the datasheet the
// report names for it.
func datasheetShare(rep *rules.Report, r window.DeviceRates) (float64, bool) {
	ds := datasheetOf(rep, r.Name)
	if ds == nil {
		return 0, false
	}
	rated, moved := ds.SeqReadMBs, r.RMBs
	if r.WMBs >= r.RMBs {
		rated, moved = ds.SeqWriteMBs, r.WMBs
	}
	if rated <= 0 {
		return 0, false
	}
	return 100 * moved / rated, true
}

// datasheetOf looks a device's model up in the embedded datasheets, as the
// engine did (a user's --datasheets is not known here: the share is then
// left out rather than guessed).
func datasheetOf(rep *rules.Report, dev string) *rules.Datasheet {
	for _, d := range rep.Devices {
		if d["name"] != dev {
			continue
		}
		named, _ := d["datasheet"].(map[string]any)
		product, _ := named["product"].(string)
		model, _ := d[checks.FactModel].(string)
		class, _ := d[checks.FactClass].(string)
		if product == "" || model == "" {
			return nil
		}
		table, err := rules.LoadDatasheets("")
		if err != nil {
			return nil
		}
		if ds := table.Lookup(model, class); ds != nil && ds.Product == product {
			return ds
		}
	}
	return nil
}

// triageTables are the window's iostat -x and iotop -o: the devices and
// the processes that did I/O, the most first, each idle one left out and
// counted (a device below the noise floor, window.DeviceRates.Active; a
// process below what the table prints, idleMBs).
func triageTables(t *textWriter, rep *rules.Report) {
	s := rep.Sample
	t.line(t.p.Heading.Render(fmt.Sprintf("Devices in the %s s window", strconv.FormatFloat(s.Seconds, 'f', -1, 64))) + t.p.Dim.Render("  (iostat -x)"))
	devs, idleDevs := busyDevices(s.Devices)
	var rows [][]string
	for _, d := range devs {
		name := clean(d.Name)
		if under := beneath(rep, d.Name); len(under) > 0 {
			name += " (on " + clean(compactSubjects(under)) + ")"
		}
		share := "-"
		if pct, ok := datasheetShare(rep, d); ok {
			share = num(pct)
		}
		rows = append(rows, []string{name, num(d.RS), num(d.WS), num(d.RMBs), num(d.WMBs), num(d.RAwaitMs), num(d.WAwaitMs), num(d.AquSz), num(d.UtilPct), share})
	}
	if len(rows) == 0 {
		t.line("  no device did I/O above the noise floor" + idleNote(idleDevs, "device", "devices"))
	} else {
		cols := []column{
			{header: "DEVICE", shrink: true, minW: 8},
			{header: "r/s", right: true, drop: 4}, {header: "w/s", right: true, drop: 5},
			{header: "rMB/s", right: true}, {header: "wMB/s", right: true},
			{header: "r_await", right: true, drop: 2}, {header: "w_await", right: true, drop: 3},
			{header: "aqu-sz", right: true, drop: 1}, {header: "%util", right: true},
			{header: "%sheet", right: true, drop: 6},
		}
		header, lines, omitted := fitTable(cols, rows, t.width)
		t.line(t.p.Bold.Render(header))
		for _, l := range lines {
			t.line(l)
		}
		if len(omitted) > 0 {
			t.line(t.p.Dim.Render(truncate("(left out at this width: "+strings.Join(omitted, ", ")+")", t.width)))
		}
		if idleDevs > 0 {
			t.line(t.p.Dim.Render(fmt.Sprintf("  (%d idle %s not shown: below 5 %% busy, 1 MB/s and 50 IO/s)", idleDevs, plural(idleDevs != 1, "device", "devices"))))
		}
	}
	t.blank()
	t.line(t.p.Heading.Render("Processes doing I/O") + t.p.Dim.Render("  (iotop -o)"))
	procs, idleProcs := busyProcesses(s.Processes)
	var prows [][]string
	for _, p := range procs {
		command := p.Comm
		if p.Cmdline != "" {
			command = p.Cmdline // iotop's COMMAND; cut to the width below
		}
		if p.ExitedChildren {
			// The kernel adds a reaped child's I/O to its parent's
			// /proc/PID/io (kernel/exit.c, wait_task_zombie).
			command = "exited threads and children of " + command
		}
		prows = append(prows, []string{strconv.Itoa(p.PID), clean(command), clean(unitOf(p.Cgroup)), num(p.ReadBytesPerS / bytesPerMB), num(p.WriteBytesPerS / bytesPerMB)})
	}
	if len(prows) == 0 {
		t.line("  no process did storage I/O that could be read" + idleNote(idleProcs, "process", "processes"))
	} else {
		cols := []column{
			{header: "PID", right: true}, {header: "COMMAND", shrink: true, minW: 16, maxW: 40},
			{header: "UNIT / CGROUP", shrink: true, minW: 12, drop: 1},
			{header: "READ MB/s", right: true}, {header: "WRITE MB/s", right: true},
		}
		header, lines, _ := fitTable(cols, prows, t.width)
		t.line(t.p.Bold.Render(header))
		for _, l := range lines {
			t.line(l)
		}
		if idleProcs > 0 {
			t.line(t.p.Dim.Render(fmt.Sprintf("  (%d %s under 0.05 MB/s not shown)", idleProcs, plural(idleProcs != 1, "process", "processes"))))
		}
	}
	// Said when most processes could not be read: the check then left the
	// skipped entry sample-processes (a few unreadable ones are normal).
	if n := s.ProcessesUnreadable; n > 0 && slices.ContainsFunc(rep.Skipped, func(sk checks.Skipped) bool { return sk.Check == "sample-processes" }) {
		t.wrapped("", 0, 2, fmt.Sprintf("%d processes' /proc/PID/io could not be read (another user's, without root): their I/O is not in this table; run as root to see every process.", n), t.p.Warning)
	}
}

// idleMBs is the least a process's row must move to be listed: below it
// the table would print 0.0 and 0.0.
const idleMBs = 0.05

// busyDevices are the devices above the noise floor
// (window.DeviceRates.Active), the busiest first (%util, as the triage
// answer ranks them, then MB/s), and how many were left out.
func busyDevices(all []window.DeviceRates) ([]window.DeviceRates, int) {
	var out []window.DeviceRates
	for _, d := range all {
		if d.Active() {
			out = append(out, d)
		}
	}
	sort.SliceStable(out, func(i, j int) bool {
		a, b := out[i], out[j]
		if a.UtilPct != b.UtilPct {
			return a.UtilPct > b.UtilPct
		}
		return a.RMBs+a.WMBs > b.RMBs+b.WMBs
	})
	return out, len(all) - len(out)
}

// busyProcesses are the processes that moved at least idleMBs, the most
// first, and how many were left out.
func busyProcesses(all []window.ProcRates) ([]window.ProcRates, int) {
	var out []window.ProcRates
	for _, p := range all {
		if p.Total()/bytesPerMB >= idleMBs {
			out = append(out, p)
		}
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].Total() > out[j].Total() })
	return out, len(all) - len(out)
}

// idleNote is " (N idle devices)" after a table left empty, "" for none.
func idleNote(n int, one, many string) string {
	if n == 0 {
		return ""
	}
	return fmt.Sprintf(" (%d idle %s not shown)", n, plural(n != 1, one, many))
}

// unitOf is the systemd unit of a cgroup path (window.Unit), "-" for none.
func unitOf(cgroup string) string {
	if u := window.Unit(cgroup); u != "" {
		return u
	}
	return "-"
}

// beneath are the disks a stacked device (dm, md, a partition's holder)
// sits on, from the disks' holders.
func beneath(rep *rules.Report, dev string) []string {
	var out []string
	for _, d := range rep.Devices {
		name, _ := d["name"].(string)
		holders, _ := d[checks.FactHolders].([]string)
		if slices.Contains(holders, dev) {
			out = append(out, name)
		}
	}
	return out
}
