package window

import (
	"context"
	"errors"
	"math"
	"os"
	"path/filepath"
	"reflect"
	"testing"

	"github.com/diskdoctor/diskdoctor/machine"
	"github.com/prometheus/procfs"
	"github.com/prometheus/procfs/blockdevice"
)

// The HPE restore of domain.md §1A over a 5-second window, computed by hand
// with sysstat's formulas:
//
//	w/s     = 290 IOs / 5 s                         = 58
//	wMB/s   = 73,242 sectors × 512 B / 5 s / 10^6   = 7.4999808
//	w_await = 18,850 ms / 290 IOs                   = 65 ms
//	wareq   = 73,242 / 2 / 290                      = 126.279… KiB
//	aqu-sz  = 37,700 ms / 5 s / 1000                = 7.54
//	%util   = 5,000 ms / 5 s / 10                   = 100
//	r/s     = 4 / 5 = 0.8; rMB/s = 24 × 512 / 5 / 10^6 = 0.0024576; r_await = 8 / 4 = 2 ms
func TestRatesHandComputed(t *testing.T) {
	a := blockdevice.IOStats{ReadIOs: 1000, ReadSectors: 50000, ReadTicks: 3000, WriteIOs: 20000, WriteSectors: 9000000, WriteTicks: 100000, IOsTotalTicks: 777000, WeightedIOTicks: 5000000}
	b := a
	b.ReadIOs += 4
	b.ReadSectors += 24
	b.ReadTicks += 8
	b.WriteIOs += 290
	b.WriteSectors += 73242
	b.WriteTicks += 18850
	b.IOsTotalTicks += 5000
	b.WeightedIOTicks += 37700
	r := Rates("sda", a, b, 5)
	want := DeviceRates{Name: "sda", RS: 0.8, WS: 58, RMBs: 0.0024576, WMBs: 7.4999808, RAwaitMs: 2, WAwaitMs: 65,
		RareqKiB: 3, WareqKiB: 73242.0 / 2 / 290, AquSz: 7.54, UtilPct: 100}
	if !ratesEqual(r, want) {
		t.Errorf("got  %+v\nwant %+v", r, want)
	}
}

func TestRatesEdgeCases(t *testing.T) {
	a := blockdevice.IOStats{ReadIOs: 100, WriteIOs: 100, IOsTotalTicks: 1000}
	// Counters that went backwards (device re-added) count as zero.
	if r := Rates("x", a, blockdevice.IOStats{}, 1); r.RS != 0 || r.WS != 0 || r.UtilPct != 0 {
		t.Errorf("backwards counters: %+v", r)
	}
	// No window, no rates; no I/O, no await (not NaN).
	if r := Rates("x", a, a, 0); r != (DeviceRates{Name: "x"}) {
		t.Errorf("zero window: %+v", r)
	}
	if r := Rates("x", a, a, 1); math.IsNaN(r.WAwaitMs) || r.WAwaitMs != 0 {
		t.Errorf("idle device: %+v", r)
	}
	// io_ticks can exceed the window by rounding; %util caps at 100.
	b := a
	b.IOsTotalTicks += 1100
	if r := Rates("x", a, b, 1); r.UtilPct != 100 {
		t.Errorf("util = %v, want 100", r.UtilPct)
	}
}

func TestStallPct(t *testing.T) {
	a := &procfs.PSILine{Total: 1_000_000}
	b := &procfs.PSILine{Total: 1_000_000 + 4_500_000}
	if pct, ok := StallPct(a, b, 5); !ok || math.Abs(pct-90) > 1e-9 {
		t.Errorf("StallPct = %v %v, want 90", pct, ok)
	}
	if _, ok := StallPct(b, a, 5); ok {
		t.Error("a total that went backwards is not a measurement")
	}
	if _, ok := StallPct(nil, b, 5); ok {
		t.Error("nil line")
	}
}

func TestTopProcesses(t *testing.T) {
	w := &Window{Seconds: 2,
		Start: &Counters{Procs: map[int]ProcCounters{10: {PID: 10, Comm: "fio", WriteBytes: 1000}, 20: {PID: 20, Comm: "cron", ReadBytes: 5}, 30: {PID: 30, Comm: "old", WriteBytes: 1 << 30}}},
		End:   &Counters{Procs: map[int]ProcCounters{10: {PID: 10, Comm: "fio", WriteBytes: 201000}, 20: {PID: 20, Comm: "cron", ReadBytes: 5}, 30: {PID: 30, Comm: "new", WriteBytes: 4000}, 40: {PID: 40, Comm: "rsync", ReadBytes: 8000}}},
	}
	got := TopProcesses(w, 10)
	// The most I/O first, reads and writes together (iotop sorts by one
	// column; here the row's total is what loads the device).
	if len(got) != 3 || got[0].Comm != "fio" || got[0].WriteBytesPerS != 100000 || got[1].Comm != "rsync" || got[1].ReadBytesPerS != 4000 || got[2].Comm != "new" || got[2].WriteBytesPerS != 2000 {
		t.Errorf("got %+v", got)
	}
}

// A shell that runs dd and reaps it: the kernel adds dd's I/O to the
// shell's /proc/PID/io (wait_task_zombie), but the shell's threads did
// none of it. The shell's own row is empty, and the reaped I/O is a row
// of its own, marked as the exited children's.
func TestTopProcessesReapedChildren(t *testing.T) {
	w := &Window{Seconds: 5,
		Start: &Counters{Procs: map[int]ProcCounters{
			100: {PID: 100, Comm: "bash", ReadBytes: 4096, OwnRead: 4096, OwnKnown: true},
			200: {PID: 200, Comm: "borg", ReadBytes: 1e6, OwnRead: 1e6, OwnKnown: true},
		}},
		End: &Counters{Procs: map[int]ProcCounters{
			// dd wrote 500 MB and was reaped; bash itself read 8 KiB more.
			100: {PID: 100, Comm: "bash", ReadBytes: 4096 + 8192, WriteBytes: 500e6, OwnRead: 4096 + 8192, OwnKnown: true},
			200: {PID: 200, Comm: "borg", ReadBytes: 1e6 + 50e6, OwnRead: 1e6 + 50e6, OwnKnown: true},
			// Started in the window: its own I/O from zero.
			300: {PID: 300, Comm: "dd", WriteBytes: 10e6, OwnWrite: 10e6, OwnKnown: true},
		}},
	}
	got := TopProcesses(w, 10)
	if len(got) != 4 {
		t.Fatalf("got %d rows, want 4: %+v", len(got), got)
	}
	if g := got[0]; g.PID != 100 || !g.ExitedChildren || g.WriteBytesPerS != 100e6 || g.ReadBytesPerS != 0 {
		t.Errorf("first row = %+v, want the reaped children's 100 MB/s of writes under pid 100", g)
	}
	if g := got[1]; g.PID != 200 || g.ExitedChildren || g.ReadBytesPerS != 10e6 {
		t.Errorf("second row = %+v, want borg's own 10 MB/s", g)
	}
	if g := got[2]; g.PID != 300 || g.WriteBytesPerS != 2e6 {
		t.Errorf("third row = %+v, want dd's 2 MB/s", g)
	}
	if g := got[3]; g.PID != 100 || g.ExitedChildren || g.ReadBytesPerS != 8192.0/5 || g.WriteBytesPerS != 0 {
		t.Errorf("last row = %+v, want bash's own 8 KiB read", g)
	}
	// Threads not read (a recording of /proc/PID/io alone): the file's
	// growth is all the process has, as before.
	for pid, p := range w.End.Procs {
		p.OwnKnown = false
		w.End.Procs[pid] = p
	}
	if got := TopProcesses(w, 10); len(got) != 3 || got[0].PID != 100 || got[0].ExitedChildren {
		t.Errorf("without threads: %+v", got)
	}
}

// A cgroup's io.stat splits its one process's I/O per device; a cgroup
// with two processes doing I/O, or one whose processes cannot all be read,
// does not.
func TestTopProcessesCgroupSplit(t *testing.T) {
	const borg, pg = "/system.slice/borgbackup.service", "/system.slice/postgresql.service"
	w := &Window{Seconds: 5,
		Start: &Counters{
			Procs: map[int]ProcCounters{1: {PID: 1, Comm: "borg"}, 2: {PID: 2, Comm: "postgres"}, 3: {PID: 3, Comm: "postgres"}},
			CgroupIO: map[string]map[string]DeviceBytes{
				borg: {"8:16": {Read: 0, Write: 0}, "259:0": {Read: 1e9}},
				pg:   {"8:0": {Write: 1e6}},
			},
		},
		End: &Counters{
			Procs: map[int]ProcCounters{
				1: {PID: 1, Comm: "borg", Cgroup: borg, ReadBytes: 655e6, WriteBytes: 60e6},
				2: {PID: 2, Comm: "postgres", Cgroup: pg, WriteBytes: 5e6},
				3: {PID: 3, Comm: "postgres", Cgroup: pg, WriteBytes: 1e6},
			},
			DevNos: map[string]string{"sdb": "8:16", "nvme0n1": "259:0", "sda": "8:0"},
			CgroupIO: map[string]map[string]DeviceBytes{
				borg: {"8:16": {Read: 5e6, Write: 60e6}, "259:0": {Read: 1e9 + 650e6}},
				pg:   {"8:0": {Write: 7e6}},
			},
			CgroupProcs: map[string][]int{borg: {1}, pg: {2, 3}},
		},
	}
	got := TopProcesses(w, 10)
	if len(got) != 3 || got[0].Comm != "borg" {
		t.Fatalf("got %+v", got)
	}
	sdb, ok := got[0].On("sdb")
	if !ok || sdb.ReadBytesPerS != 1e6 || sdb.WriteBytesPerS != 12e6 {
		t.Errorf("borg on sdb = %+v %v, want 1 MB/s read, 12 MB/s written", sdb, ok)
	}
	if nv, ok := got[0].On("nvme0n1"); !ok || nv.ReadBytesPerS != 130e6 {
		t.Errorf("borg on nvme0n1 = %+v %v, want 130 MB/s read", nv, ok)
	}
	if _, ok := got[0].On("sda"); ok {
		t.Error("borg did no I/O on sda")
	}
	for _, p := range got[1:] {
		if len(p.Devices) != 0 {
			t.Errorf("postgres shares its cgroup with another postgres that did I/O: %+v", p)
		}
	}
	// A process of borg's cgroup that could not be read may have done
	// part of the cgroup's I/O.
	w.End.CgroupProcs[borg] = []int{1, 99}
	if got := TopProcesses(w, 10); len(got[0].Devices) != 0 {
		t.Errorf("an unreadable process in the cgroup: %+v", got[0])
	}
}

// The io.stat walk reads the cgroups below parents that enable the io
// controller, and only those; cgroup.procs is read for the cgroups of the
// processes that did I/O.
func TestReadCgroupIO(t *testing.T) {
	root := t.TempDir()
	write := func(p, s string) {
		t.Helper()
		full := filepath.Join(root, p)
		if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(full, []byte(s), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("sys/fs/cgroup/cgroup.subtree_control", "cpu io memory pids\n")
	write("sys/fs/cgroup/system.slice/cgroup.subtree_control", "memory pids\n")
	write("sys/fs/cgroup/system.slice/io.stat", "8:16 rbytes=4096 wbytes=8192 rios=1 wios=2 dbytes=0 dios=0\n259:0 rbytes=1 wbytes=2 rios=1 wios=1 dbytes=0 dios=0\n")
	// Its parent does not enable io: the file is not the kernel's.
	write("sys/fs/cgroup/system.slice/borg.service/io.stat", "8:16 rbytes=1 wbytes=1\n")
	write("sys/fs/cgroup/user.slice/cgroup.subtree_control", "")
	h, err := machine.Recorded(root)
	if err != nil {
		t.Fatal(err)
	}
	got := readCgroupIO(context.Background(), h)
	want := map[string]map[string]DeviceBytes{"/system.slice": {"8:16": {4096, 8192}, "259:0": {1, 2}}}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("readCgroupIO = %v, want %v", got, want)
	}
}

func ratesEqual(a, b DeviceRates) bool {
	eq := func(x, y float64) bool { return math.Abs(x-y) < 1e-9 }
	return a.Name == b.Name && eq(a.RS, b.RS) && eq(a.WS, b.WS) && eq(a.RMBs, b.RMBs) && eq(a.WMBs, b.WMBs) &&
		eq(a.RAwaitMs, b.RAwaitMs) && eq(a.WAwaitMs, b.WAwaitMs) && eq(a.RareqKiB, b.RareqKiB) && eq(a.WareqKiB, b.WareqKiB) &&
		eq(a.AquSz, b.AquSz) && eq(a.UtilPct, b.UtilPct)
}

// A recorded window of .nan, 1e-300, .inf or a negative length is refused
// at the parser (class 10 of the hostile roots, machine/hostile_test.go).
func TestParseWindowFileNonFinite(t *testing.T) {
	for _, v := range []string{".nan", "1e-300", ".inf", "-.inf", "-5", "0", "1e999", "nan"} {
		if wf, err := parseWindowFile([]byte("seconds: " + v + "\n")); !errors.Is(err, machine.ErrParse) {
			t.Errorf("window seconds %s: %+v, %v; want a refusal", v, wf, err)
		}
	}
	if wf, err := parseWindowFile([]byte("seconds: 5\n")); err != nil || wf.Seconds != 5 {
		t.Errorf("window seconds 5: %+v, %v", wf, err)
	}
}

// Steal over a window: top's 54.3 % st on an EC2 m3.medium
// (coreos/bugs#73) as whole ticks; guest time is in user already and
// does not count twice; no time passed or a missing reading is unknown.
func TestStealPct(t *testing.T) {
	a := &procfs.CPUStat{User: 43200, Nice: 12, System: 6120, Idle: 398000, Iowait: 210, IRQ: 980, SoftIRQ: 150, Steal: 273000, Guest: 100}
	b := *a
	b.Idle += 1.07
	b.IRQ += 0.31
	b.Steal += 1.62
	b.Guest += 5 // counted in user: not a state of its own
	if pct, ok := StealPct(a, &b); !ok || math.Abs(pct-54) > 0.01 {
		t.Errorf("StealPct = %v, %v; want 54", pct, ok)
	}
	if _, ok := StealPct(a, a); ok {
		t.Error("no time passed: want unknown")
	}
	if _, ok := StealPct(nil, &b); ok {
		t.Error("missing reading: want unknown")
	}
}
