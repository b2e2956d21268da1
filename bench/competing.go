package bench

import (
	"context"
	"fmt"
	"os"
	"strings"

	"github.com/diskdoctor/diskdoctor/machine"
	"github.com/diskdoctor/diskdoctor/probes/proc"
	"github.com/diskdoctor/diskdoctor/probes/window"
)

// Competing is other processes' I/O on the target's devices during a short
// window, measured with the sampling of `diskdoctor --sample`
// (window.Sample: /proc/diskstats and /proc/PID/io, twice).
type Competing struct {
	When      string               `json:"when"` // "before" the first job, "after" the last
	Seconds   float64              `json:"seconds"`
	Source    string               `json:"source"`
	Devices   []window.DeviceRates `json:"devices"`
	Processes []Competitor         `json:"processes"`
	// Active: a watched device did I/O beyond the noise floor.
	Active bool   `json:"busy"`
	Text   string `json:"text"`
}

// Competitor is one process that did storage I/O in the window. The kernel
// counts a process's I/O without saying on which device (proc(5),
// /proc/pid/io), so its IOPS and share of the devices' busy time are
// estimated from its share of the bytes, and only where its bytes on the
// target's disks are known (Split): from its cgroup's io.stat, or because
// the target's devices were the only busy ones. Elsewhere they are left
// out (null) rather than guessed from its I/O on every device.
type Competitor struct {
	PID     int    `json:"pid"`
	Comm    string `json:"comm"`
	Cmdline string `json:"cmdline,omitempty"`
	Unit    string `json:"unit,omitempty"` // the systemd unit or cgroup it runs in
	// OnDevice: it has a file open on the watched devices. False: it did
	// I/O somewhere, and its files could not be checked (recorded machine)
	// or none is open there.
	OnDevice bool `json:"on_device"`
	// ExitedChildren: the I/O of its threads and children that exited in
	// the window (window.ProcRates.ExitedChildren), not its own.
	ExitedChildren bool     `json:"exited_children,omitempty"`
	ReadMBs        float64  `json:"read_mb_s"`
	WriteMBs       float64  `json:"write_mb_s"`
	IOPS           *float64 `json:"iops_est"`
	TimePct        *float64 `json:"device_time_pct_est"`
	// Split says how its bytes on the target's disks are known: "cgroup
	// io.stat", "only busy devices", or "" (not known: IOPS and TimePct
	// null).
	Split string `json:"split,omitempty"`
}

// Busy says whether other I/O was seen (nil-safe).
func (c *Competing) Busy() bool { return c != nil && c.Active }

// watchCompeting samples the target's devices and everything stacked on
// them for --preflight-window and stores what it saw in *dst.
func (b *run) watchCompeting(ctx context.Context, dst **Competing, when string) error {
	if b.o.PreflightWindow <= 0 || len(b.facts.Stacked) == 0 {
		return nil
	}
	w, err := window.Sample(ctx, b.env.Host, b.o.PreflightWindow, nil)
	if err != nil {
		if ctx.Err() != nil {
			return ctx.Err()
		}
		if !b.pre.Has("bench-competing-io-unknown") {
			b.pre.Checks = append(b.pre.Checks, Check{ID: "bench-competing-io-unknown", Severity: "info",
				Text: "could not watch the devices for other I/O (" + err.Error() + ")"})
		}
		return nil
	}
	c := measureCompeting(ctx, b.env.Host, w, b.facts, when)
	*dst = c
	if c.Active {
		sev := "critical"
		if when == "after" || b.o.Force {
			sev = "warning"
		}
		id := "bench-competing-io"
		if when == "after" {
			id = "bench-competing-io-after"
		}
		b.pre.Checks = append(b.pre.Checks, Check{ID: id, Severity: sev, Subjects: b.facts.Disks, Text: c.Text})
		b.pre.verdict()
	}
	return nil
}

// measureCompeting reads a window: the watched devices' rates and the
// processes that did I/O (this process excluded), those with a file open
// on the devices first.
func measureCompeting(ctx context.Context, h *machine.Host, w *window.Window, pf Facts, when string) *Competing {
	c := &Competing{When: when, Seconds: w.Seconds, Source: w.Source, Devices: []window.DeviceRates{}, Processes: []Competitor{}}
	var busiest window.DeviceRates
	var totalMBs, totalIOPS float64
	for _, n := range pf.Stacked {
		a, okA := w.Start.Disks[n]
		e, okB := w.End.Disks[n]
		if !okA || !okB {
			continue
		}
		r := window.Rates(n, a, e, w.Seconds)
		c.Devices = append(c.Devices, r)
		if contains(pf.Disks, n) {
			totalMBs += r.RMBs + r.WMBs
			totalIOPS += r.RS + r.WS
			if r.UtilPct > busiest.UtilPct || busiest.Name == "" {
				busiest = r
			}
		}
		if r.Active() { // beyond the noise floor (DeviceRates.Active)
			c.Active = true
		}
	}
	if !c.Active {
		c.Text = fmt.Sprintf("no other I/O on %s in %.1f s", strings.Join(pf.Stacked, ", "), w.Seconds)
		return c
	}
	onlyTarget := onlyTargetBusy(w, pf)
	devNos := map[string]bool{}
	for _, d := range pf.DevNos {
		devNos[d] = true
	}
	var on, elsewhere []Competitor
	self := os.Getpid()
	for _, p := range window.TopProcesses(w, 50) {
		if p.PID == self {
			continue
		}
		// The command is window.ShortCommand's: never a whole command line,
		// which may carry another user's secrets or environment.
		cp := Competitor{PID: p.PID, Comm: printable(p.Comm), Cmdline: printable(p.Cmdline), Unit: printable(window.Unit(p.Cgroup)), ReadMBs: p.ReadBytesPerS / 1e6, WriteMBs: p.WriteBytesPerS / 1e6, ExitedChildren: p.ExitedChildren}
		cp.OnDevice, _ = proc.FilesOn(ctx, h, p.PID, devNos)
		if mbs, split := bytesOnTarget(p, pf, onlyTarget); split != "" && totalMBs > 0 {
			share := min(mbs/1e6/totalMBs, 1)
			iops, pct := share*totalIOPS, share*busiest.UtilPct
			cp.IOPS, cp.TimePct, cp.Split = &iops, &pct, split
		}
		if cp.OnDevice {
			on = append(on, cp)
		} else {
			elsewhere = append(elsewhere, cp)
		}
	}
	c.Processes = append(c.Processes, on[:min(len(on), 5)]...)
	if len(on) == 0 {
		c.Processes = append(c.Processes, elsewhere[:min(len(elsewhere), 3)]...)
	}
	c.Text = competingText(c, busiest, totalMBs, totalIOPS)
	return c
}

// onlyTargetBusy says whether every device that did more than the noise
// floor in the window is the target's or stacked on it: then any process's
// I/O in the window went to them.
func onlyTargetBusy(w *window.Window, pf Facts) bool {
	for n, e := range w.End.Disks {
		a, ok := w.Start.Disks[n]
		if ok && window.Rates(n, a, e, w.Seconds).Active() && !contains(pf.Stacked, n) {
			return false
		}
	}
	return true
}

// bytesOnTarget is a process's bytes per second on the target's disks and
// how they are known: its cgroup's per-device counts, or all its I/O when
// the target's devices were the only busy ones; "" when not known.
func bytesOnTarget(p window.ProcRates, pf Facts, onlyTarget bool) (float64, string) {
	if len(p.Devices) > 0 {
		var sum float64
		for _, d := range pf.Disks {
			if on, ok := p.On(d); ok {
				sum += on.ReadBytesPerS + on.WriteBytesPerS
			}
		}
		return sum, "cgroup io.stat"
	}
	if onlyTarget {
		return p.Total(), "only busy devices"
	}
	return 0, ""
}

// competingText is the check's one line: what the devices did. The
// processes are a table of their own (Competing.Processes, WriteText and
// the refusal), printed once.
func competingText(c *Competing, busiest window.DeviceRates, mbs, iops float64) string {
	return fmt.Sprintf("other I/O on the target's devices in %.1f s: %s %.0f %% busy, %.1f MB/s, %.0f IOPS", c.Seconds, or(busiest.Name, "the devices"), busiest.UtilPct, mbs, iops)
}

// ProcessesNote says what the process table holds, or why it is empty.
func (c *Competing) ProcessesNote() string {
	switch {
	case len(c.Processes) == 0:
		return "no process to name (the kernel, another machine on the same storage, or processes whose /proc/PID/io is unreadable)"
	case !c.Processes[0].OnDevice:
		return "no process has a file open on these devices; processes that did I/O (perhaps elsewhere):"
	}
	return "processes with a file open on these devices:"
}

// printable replaces control characters: a process names itself, and its
// name must not drive the terminal the refusal is printed on.
func printable(s string) string {
	return strings.Map(func(r rune) rune {
		if r < 0x20 || r == 0x7f || (r >= 0x80 && r < 0xa0) {
			return '?'
		}
		return r
	}, s)
}
