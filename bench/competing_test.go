package bench

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/diskdoctor/diskdoctor/machine"
	"github.com/diskdoctor/diskdoctor/probes/window"
	"github.com/prometheus/procfs/blockdevice"
)

// A competitor's share of the target's busy time is estimated from its
// bytes on the target's disks: from its cgroup's io.stat, or all its bytes
// when the target's devices were the only busy ones. When another device
// was busy too and its cgroup did not count per device, the share is not
// known ("?", JSON null), rather than its I/O on every device set against
// the target.
func TestCompetitorShareFromItsBytesOnTheTarget(t *testing.T) {
	busy := func(a blockdevice.IOStats) blockdevice.IOStats {
		a.WriteIOs += 500
		a.WriteSectors += 200000
		a.IOsTotalTicks += 900
		return a
	}
	idle := blockdevice.IOStats{}
	pf := Facts{Disks: []string{"sdb"}, Stacked: []string{"sdb"}}
	procs := func() map[int]window.ProcCounters {
		return map[int]window.ProcCounters{7: {PID: 7, Comm: "borg"}}
	}
	end := map[int]window.ProcCounters{7: {PID: 7, Comm: "borg", ReadBytes: 500e6, WriteBytes: 100e6}}
	for _, c := range []struct {
		name      string
		nvmeBusy  bool
		cgroup    bool
		wantSplit string
		wantPct   float64
	}{
		{"the target the only busy device", false, false, "only busy devices", 90},
		{"another device busy, not split", true, false, "", 0},
		{"another device busy, its cgroup's io.stat", true, true, "cgroup io.stat", 90 * 50e6 / 102.4e6},
	} {
		nvmeEnd := idle
		if c.nvmeBusy {
			nvmeEnd = busy(idle)
		}
		w := &window.Window{Seconds: 1,
			Start: &window.Counters{Disks: map[string]blockdevice.IOStats{"sdb": idle, "nvme0n1": idle}, Procs: procs()},
			End:   &window.Counters{Disks: map[string]blockdevice.IOStats{"sdb": busy(idle), "nvme0n1": nvmeEnd}, Procs: end},
		}
		if c.cgroup {
			const cg = "/system.slice/borg.service"
			p := end[7]
			p.Cgroup = cg
			w.End.Procs = map[int]window.ProcCounters{7: p}
			w.Start.CgroupIO = map[string]map[string]window.DeviceBytes{cg: {}}
			w.End.CgroupIO = map[string]map[string]window.DeviceBytes{cg: {"8:16": {Write: 50e6}, "259:0": {Read: 500e6, Write: 50e6}}}
			w.End.DevNos = map[string]string{"sdb": "8:16", "nvme0n1": "259:0"}
			w.End.CgroupProcs = map[string][]int{cg: {7}}
		}
		root := t.TempDir()
		if err := os.Mkdir(filepath.Join(root, "sys"), 0o755); err != nil {
			t.Fatal(err)
		}
		h, err := machine.Recorded(root)
		if err != nil {
			t.Fatal(err)
		}
		comp := measureCompeting(context.Background(), h, w, pf, "before")
		if len(comp.Processes) != 1 {
			t.Fatalf("%s: processes %+v", c.name, comp.Processes)
		}
		p := comp.Processes[0]
		if p.Split != c.wantSplit {
			t.Errorf("%s: split %q, want %q", c.name, p.Split, c.wantSplit)
		}
		switch {
		case c.wantSplit == "" && (p.TimePct != nil || p.IOPS != nil):
			t.Errorf("%s: a share of sdb from I/O on every device: %v %%", c.name, *p.TimePct)
		case c.wantSplit != "" && (p.TimePct == nil || abs(*p.TimePct-c.wantPct) > 0.01):
			t.Errorf("%s: share %v, want %.2f %%", c.name, p.TimePct, c.wantPct)
		}
		table := strings.Join(comp.ProcessLines(80, 2), "\n")
		if c.wantSplit == "" && !strings.Contains(table, "?") {
			t.Errorf("%s: the table shows a share:\n%s", c.name, table)
		}
	}
}

func abs(x float64) float64 {
	if x < 0 {
		return -x
	}
	return x
}
