package main

// `make bench` (issue #2): a full check of a recorded machine with 1,000
// disks. Aim: under 1 s wall time and under 150 MB peak memory on 2 cores.
//
//	DISKDOCTOR_BENCH=1 go test -run TestBenchThousandDisks -v ./cmd/diskdoctor
//	go test -run '^$' -bench FullCheck1000Disks -benchmem ./cmd/diskdoctor
//
// The first builds the real binary and times five runs of it as a child
// process (wall time, peak RSS); the second runs the same pipeline in-process
// under the Go benchmark harness (time and allocations per check). Neither
// fails on slowness: they print numbers.

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"sort"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/diskdoctor/diskdoctor/doctor"
	"github.com/diskdoctor/diskdoctor/internal/parse"
	"github.com/diskdoctor/diskdoctor/machine"
	"github.com/diskdoctor/diskdoctor/probes/block"
)

const benchDisks = 1000

// benchReport is the part of the diskdoctor/v1 JSON report the benchmark
// checks.
type benchReport struct {
	Schema   string `json:"schema"`
	Verdict  string `json:"verdict"`
	Findings []struct {
		Rule     string   `json:"rule"`
		Severity string   `json:"severity"`
		Subjects []string `json:"subjects"`
	} `json:"findings"`
	Skipped []struct {
		Check    string   `json:"check"`
		Reason   string   `json:"reason"`
		Subjects []string `json:"subjects"`
	} `json:"skipped"`
	Devices []map[string]any `json:"devices"`
}

// benchExpected is what the report of a synthetic machine must say: the
// problem disks of synthPlan, by rule.
func benchExpected(n int) map[string][]string {
	want := map[string][]string{}
	for _, d := range synthPlan(n) {
		if d.WriteThrough {
			want["write-cache-disabled"] = append(want["write-cache-disabled"], d.Name)
		}
		if d.Degraded {
			want["pcie-link-degraded"] = append(want["pcie-link-degraded"], d.Name)
		}
		if d.ZFS {
			want["trim-not-scheduled"] = append(want["trim-not-scheduled"], d.Name)
		}
	}
	for _, v := range want {
		sortNaturalStrings(v)
	}
	return want
}

func sortNaturalStrings(s []string) {
	sort.Slice(s, func(i, j int) bool { return parse.NaturalLess(s[i], s[j]) })
}

// benchCheckReport parses a JSON report and checks it against the plan of
// an n-disk synthetic machine: every device listed, nothing skipped, and the
// write-cache, PCIe and TRIM problems found on exactly the disks that have
// them.
func benchCheckReport(out []byte, n int) error {
	var rep benchReport
	if err := json.Unmarshal(out, &rep); err != nil {
		return fmt.Errorf("output does not parse as JSON: %w", err)
	}
	if rep.Schema != "diskdoctor/v1" {
		return fmt.Errorf("schema %q, want diskdoctor/v1", rep.Schema)
	}
	// The report lists every block device but the NVMe per-path disks.
	entries, nvmePaths := synthBlockDevices(n)
	if want := entries - nvmePaths; len(rep.Devices) != want {
		return fmt.Errorf("%d devices in the report, want %d (%d disks, %d second paths, loop and dm devices)", len(rep.Devices), want, n, want-n)
	}
	var errs []error
	for _, sk := range rep.Skipped {
		errs = append(errs, fmt.Errorf("skipped %s (%s) on %d subjects: the synthetic machine lacks something the doctor reads", sk.Check, sk.Reason, len(sk.Subjects)))
	}
	got := map[string][]string{}
	for _, f := range rep.Findings {
		got[f.Rule] = append(got[f.Rule], f.Subjects...)
	}
	expected := benchExpected(n)
	for rule, subjects := range got {
		if _, ok := expected[rule]; !ok {
			errs = append(errs, fmt.Errorf("finding %s on %s: not planned", rule, benchAbbrev(subjects)))
		}
	}
	for rule, want := range expected {
		have := append([]string(nil), got[rule]...)
		sortNaturalStrings(have)
		if strings.Join(have, " ") != strings.Join(want, " ") {
			errs = append(errs, fmt.Errorf("finding %s: %d subjects %s, want %d: %s", rule, len(have), benchAbbrev(have), len(want), benchAbbrev(want)))
		}
	}
	if rep.Verdict != "critical" {
		errs = append(errs, fmt.Errorf("verdict %q, want critical (write caches off)", rep.Verdict))
	}
	return errors.Join(errs...)
}

func benchAbbrev(s []string) string {
	if len(s) > 8 {
		return strings.Join(s[:8], " ") + fmt.Sprintf(" ... (%d more)", len(s)-8)
	}
	return strings.Join(s, " ")
}

// TestSyntheticMachine keeps the benchmark's machine honest in every test
// run: a small one must produce exactly the planned findings, with nothing
// skipped.
func TestSyntheticMachine(t *testing.T) {
	t.Parallel()
	const n = 30
	dir := t.TempDir()
	if err := writeSyntheticMachine(dir, n); err != nil {
		t.Fatal(err)
	}
	want := benchExpected(n)
	for _, rule := range []string{"write-cache-disabled", "pcie-link-degraded", "trim-not-scheduled"} {
		if len(want[rule]) == 0 {
			t.Fatalf("the %d-disk plan has no disk for %s", n, rule)
		}
	}
	var out, errb bytes.Buffer
	code, err := runDoctor(context.Background(), options{Options: doctor.Options{Root: dir, Context: "auto"}, format: "json", color: "never"}, &out, &errb)
	if err != nil {
		t.Fatalf("doctor: %v (stderr %s)", err, errb.String())
	}
	if code != 2 {
		t.Errorf("exit status %d, want 2 (critical)", code)
	}
	if err := benchCheckReport(out.Bytes(), n); err != nil {
		t.Error(err)
	}
	// Each multipathed drive: both paths judged, each held by the map and
	// with none of its by-id links, the drive's SMART read through the
	// first path only; the map (not judged) held by its partition.
	var rep benchReport
	if err := json.Unmarshal(out.Bytes(), &rep); err != nil {
		t.Fatal(err)
	}
	holders := map[string]string{}
	judged := map[string]bool{}
	byID := map[string][]any{}
	smartVia := map[string]string{}
	for _, d := range rep.Devices {
		name, _ := d["name"].(string)
		h, _ := d["holders"].([]any)
		holders[name] = fmt.Sprint(h)
		judged[name], _ = d["judged"].(bool)
		byID[name], _ = d["by_id"].([]any)
		if _, read := d["smart_protocol"]; read {
			smartVia[name] = name
		}
		if via, _ := d["drive_read_through"].(string); via != "" && via != name {
			smartVia[name] = "through " + via
		}
	}
	mpaths := 0
	for _, d := range synthPlan(n) {
		if d.MPath == 0 {
			continue
		}
		mpaths++
		mapDM := fmt.Sprintf("dm-%d", d.MapMinor)
		for _, p := range d.Paths {
			if holders[p.Name] != "["+mapDM+"]" || !judged[p.Name] {
				t.Errorf("path %s of %s: holders %s, judged %v; want [%s], judged", p.Name, d.mapName(), holders[p.Name], judged[p.Name], mapDM)
			}
			// The shared scsi-3…/wwn-0x… links udev lists in every
			// path's record name the map (its link priority is higher).
			if len(byID[p.Name]) != 0 {
				t.Errorf("path %s of %s: by-id %v, links that name the map %s", p.Name, d.mapName(), byID[p.Name], mapDM)
			}
			// The drive's SMART is read once, through its first path.
			want := p.Name
			if p.Name != d.Paths[0].Name {
				want = "through " + d.Paths[0].Name
			}
			if smartVia[p.Name] != want {
				t.Errorf("path %s of %s: SMART %q, want %q", p.Name, d.mapName(), smartVia[p.Name], want)
			}
		}
		if want := fmt.Sprintf("[dm-%d]", d.MapMinor+1); holders[mapDM] != want || judged[mapDM] {
			t.Errorf("map %s (%s): holders %s, judged %v; want %s, not judged", mapDM, d.mapName(), holders[mapDM], judged[mapDM], want)
		}
	}
	if mpaths == 0 {
		t.Errorf("the %d-disk plan has no multipathed drive", n)
	}
}

// TestSyntheticNVMeMultipath: the synthetic NVMe drives have native
// multipath, as fixtures/r630-optane-schedutil records it, and the doctor
// treats them as it treats that machine: each namespace head judged, with
// its controller and its PCI function's link, and its hidden per-path disk
// in the inventory, marked an NVMe path, but not among the report's devices.
func TestSyntheticNVMeMultipath(t *testing.T) {
	t.Parallel()
	const n = 40
	dir := t.TempDir()
	if err := writeSyntheticMachine(dir, n); err != nil {
		t.Fatal(err)
	}
	h, err := machine.Recorded(dir)
	if err != nil {
		t.Fatal(err)
	}
	res, err := doctor.Run(context.Background(), h, doctor.Options{Root: dir, ProbeTimeout: time.Minute})
	if err != nil {
		t.Fatal(err)
	}
	inventory := map[string]*block.Device{}
	for _, d := range res.Checks.Devices {
		inventory[d.Name] = d
	}
	reported := map[string]map[string]any{}
	for _, d := range res.Report.Devices {
		name, _ := d["name"].(string)
		reported[name] = d
	}
	// Written from the plan by hand: nvme0 a Samsung, nvme5 the first with
	// an LVM volume, nvme7 the first on a degraded link; the k-th drive's
	// function is on bus k+1, behind its own root port (synthSlot: 00:01.1
	// to 00:01.7, then 00:02.1).
	for _, c := range []struct {
		head, path, ctrl, fn, pathDir, link string
		degraded                            bool
	}{
		{"nvme0n1", "nvme0c0n1", "nvme0", "0000:01:00.0", "/sys/devices/pci0000:00/0000:00:01.1/0000:01:00.0/nvme/nvme0/nvme0c0n1", "16.0 GT/s PCIe x4 of 16.0 GT/s PCIe x4", false},
		{"nvme5n1", "nvme5c5n1", "nvme5", "0000:06:00.0", "/sys/devices/pci0000:00/0000:00:01.6/0000:06:00.0/nvme/nvme5/nvme5c5n1", "16.0 GT/s PCIe x4 of 16.0 GT/s PCIe x4", false},
		{"nvme7n1", "nvme7c7n1", "nvme7", "0000:08:00.0", "/sys/devices/pci0000:00/0000:00:02.1/0000:08:00.0/nvme/nvme7/nvme7c7n1", "8.0 GT/s PCIe x2 of 16.0 GT/s PCIe x4", true},
	} {
		subsys := "/sys/devices/virtual/nvme-subsystem/nvme-subsys" + strings.TrimPrefix(c.ctrl, "nvme")
		hd, pd := inventory[c.head], inventory[c.path]
		switch {
		case hd == nil:
			t.Errorf("%s: not in the inventory", c.head)
		case hd.NVMePath || hd.Transport != "nvme" || hd.SysPath != subsys+"/"+c.head || fmt.Sprint(hd.Controllers) != "["+c.ctrl+"]":
			t.Errorf("%s: NVMe path %v, transport %s, sysfs %s, controllers %v; want a head, nvme, %s/%s, [%s]", c.head, hd.NVMePath, hd.Transport, hd.SysPath, hd.Controllers, subsys, c.head, c.ctrl)
		}
		switch {
		case pd == nil:
			t.Errorf("%s: the path of %s is not in the inventory", c.path, c.head)
		case !pd.NVMePath || pd.Transport != "nvme" || pd.SysPath != c.pathDir || fmt.Sprint(pd.Controllers) != "["+c.ctrl+"]" || pd.Udev != nil:
			t.Errorf("%s: NVMe path %v, transport %s, sysfs %s, controllers %v, udev record %v; want a path, nvme, %s, [%s], no record", c.path, pd.NVMePath, pd.Transport, pd.SysPath, pd.Controllers, pd.Udev != nil, c.pathDir, c.ctrl)
		}
		if _, ok := reported[c.path]; ok {
			t.Errorf("%s: an NVMe path among the report's devices", c.path)
		}
		r := reported[c.head]
		if r == nil {
			t.Errorf("%s: not among the report's devices", c.head)
			continue
		}
		for fact, want := range map[string]any{
			"judged": true, "nvme_path": false, "transport": "nvme", "sysfs_path": subsys + "/" + c.head,
			"nvme_controllers": "[" + c.ctrl + "]", "nvme_pm_controller": c.ctrl,
			"pcie_address": c.fn, "pcie_link": c.link, "pcie_degraded": c.degraded,
			"smart_protocol": "NVMe", "wc_nvme_vwc": true,
		} {
			if got := fmt.Sprint(r[fact]); got != fmt.Sprint(want) {
				t.Errorf("%s: %s = %s, want %v", c.head, fact, got, want)
			}
		}
	}
}

func TestSyntheticNames(t *testing.T) {
	for _, c := range []struct {
		i        int
		name     string
		maj, min int
	}{
		{0, "sda", 8, 0}, {15, "sdp", 8, 240}, {16, "sdq", 65, 0}, {25, "sdz", 65, 144},
		{26, "sdaa", 65, 160}, {127, "sddx", 71, 240}, {128, "sddy", 128, 0},
		{255, "sdiv", 135, 240}, {256, "sdiw", 8, 256}, {257, "sdix", 8, 272}, {701, "sdzz", 131, 720},
		{702, "sdaaa", 131, 736},
	} {
		maj, min := synthSDDevNo(c.i)
		if got := synthSDName(c.i); got != c.name || maj != c.maj || min != c.min {
			t.Errorf("disk %d: %s %d:%d, want %s %d:%d", c.i, got, maj, min, c.name, c.maj, c.min)
		}
	}
	for _, c := range []struct{ link, target, want string }{
		{"/sys/block/sda", "/sys/devices/pci0000:00/0000:00:17.0/ata1/host0/target0:0:0/0:0:0:0/block/sda", "../devices/pci0000:00/0000:00:17.0/ata1/host0/target0:0:0/0:0:0:0/block/sda"},
		{"/sys/devices/pci0000:00/0000:00:17.0/ata1/host0/target0:0:0/0:0:0:0/block/sda/device", "/sys/devices/pci0000:00/0000:00:17.0/ata1/host0/target0:0:0/0:0:0:0", "../../../0:0:0:0"},
		{"/sys/devices/pci0000:00/0000:00:01.1/0000:01:00.0/nvme/nvme0/nvme0n1/device", "/sys/devices/pci0000:00/0000:00:01.1/0000:01:00.0/nvme/nvme0", "../../nvme0"},
		{"/sys/devices/pci0000:00/0000:00:01.1/0000:01:00.0/nvme/nvme0/device", "/sys/devices/pci0000:00/0000:00:01.1/0000:01:00.0", "../../../0000:01:00.0"},
		// A namespace head's links, as on fixtures/r630-optane-schedutil.
		{"/sys/devices/virtual/nvme-subsystem/nvme-subsys0/nvme0n1/device", "/sys/devices/virtual/nvme-subsystem/nvme-subsys0", "../../nvme-subsys0"},
		{"/sys/devices/virtual/nvme-subsystem/nvme-subsys0/nvme0n1/multipath/nvme0c0n1", "/sys/devices/pci0000:00/0000:00:02.0/0000:03:00.0/nvme/nvme0/nvme0c0n1", "../../../../../pci0000:00/0000:00:02.0/0000:03:00.0/nvme/nvme0/nvme0c0n1"},
		{"/sys/block/nvme0n1", "/sys/devices/virtual/nvme-subsystem/nvme-subsys0/nvme0n1", "../devices/virtual/nvme-subsystem/nvme-subsys0/nvme0n1"},
		{"/sys/class/nvme/nvme0", "/sys/devices/pci0000:00/0000:00:01.1/0000:01:00.0/nvme/nvme0", "../../devices/pci0000:00/0000:00:01.1/0000:01:00.0/nvme/nvme0"},
		{"/sys/devices/pci0000:00/0000:00:17.0/driver", "/sys/bus/pci/drivers/ahci", "../../../bus/pci/drivers/ahci"},
		{"/proc/self", "/proc/1", "1"},
		{"/proc/mounts", "/proc/self/mounts", "self/mounts"},
	} {
		if got := synthRel(c.link, c.target); got != c.want {
			t.Errorf("link %s: %s, want %s", c.link, got, c.want)
		}
	}
}

// BenchmarkFullCheck1000Disks runs the whole pipeline of `diskdoctor --root
// DIR --format json` in-process (doctor.Examine: machine.Recorded, the
// checks, the rules engine, the JSON encoder) on a 1,000-disk machine.
func BenchmarkFullCheck1000Disks(b *testing.B) {
	dir := b.TempDir()
	if err := writeSyntheticMachine(dir, benchDisks); err != nil {
		b.Fatal(err)
	}
	o := options{Options: doctor.Options{Root: dir, Context: "auto", ProbeTimeout: 5 * time.Second}, format: "json", color: "never"}
	var out bytes.Buffer
	if code, err := runDoctor(context.Background(), o, &out, io.Discard); err != nil || code == 3 {
		b.Fatalf("doctor: exit %d, %v", code, err)
	}
	if err := benchCheckReport(out.Bytes(), benchDisks); err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	for b.Loop() {
		if code, err := runDoctor(context.Background(), o, io.Discard, io.Discard); err != nil || code == 3 {
			b.Fatalf("doctor: exit %d, %v", code, err)
		}
	}
	b.ReportMetric(benchDisks, "disks/op")
	if b.N > 0 {
		b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/benchDisks, "ns/disk")
	}
}

// TestBenchThousandDisks builds the binary and times five full checks of a
// 1,000-disk machine, each in its own process. It prints wall times and the
// peak RSS and fails only when a run fails or its report is wrong.
func TestBenchThousandDisks(t *testing.T) {
	if os.Getenv("DISKDOCTOR_BENCH") != "1" {
		t.Skip("set DISKDOCTOR_BENCH=1 to run (make bench)")
	}
	bin := binary

	machine := filepath.Join(t.TempDir(), "machine")
	start := time.Now()
	if err := writeSyntheticMachine(machine, benchDisks); err != nil {
		t.Fatal(err)
	}
	t.Logf("generated a %d-disk machine in %s", benchDisks, time.Since(start).Round(time.Millisecond))

	// The aim is stated for 2 cores: the child gets at most 2 Ps.
	cores := min(2, runtime.NumCPU())
	env := append(os.Environ(), fmt.Sprintf("GOMAXPROCS=%d", cores))
	var walls, cpus []time.Duration
	var peakKiB int64
	for i := 0; i < 5; i++ {
		var out, errb bytes.Buffer
		cmd := exec.Command(bin, "--root", machine, "--format", "json")
		cmd.Env = env
		cmd.Stdout, cmd.Stderr = &out, &errb
		start := time.Now()
		err := cmd.Run()
		wall := time.Since(start)
		var exit *exec.ExitError
		if err != nil && !(errors.As(err, &exit) && (exit.ExitCode() == 1 || exit.ExitCode() == 2)) {
			t.Fatalf("run %d: %v\nstderr: %s", i+1, err, errb.String())
		}
		if err := benchCheckReport(out.Bytes(), benchDisks); err != nil {
			t.Fatalf("run %d: %v", i+1, err)
		}
		if ru, ok := cmd.ProcessState.SysUsage().(*syscall.Rusage); ok && ru.Maxrss > peakKiB {
			peakKiB = ru.Maxrss // KiB on Linux
		}
		// CPU time says less about other load on the machine than wall time.
		cpu := cmd.ProcessState.UserTime() + cmd.ProcessState.SystemTime()
		walls, cpus = append(walls, wall), append(cpus, cpu)
		t.Logf("run %d: wall %s, cpu %s (user %s, sys %s), exit %d, %d bytes of JSON", i+1, wall.Round(time.Millisecond),
			cpu.Round(time.Millisecond), cmd.ProcessState.UserTime().Round(time.Millisecond), cmd.ProcessState.SystemTime().Round(time.Millisecond),
			cmd.ProcessState.ExitCode(), out.Len())
	}
	sort.Slice(walls, func(i, j int) bool { return walls[i] < walls[j] })
	sort.Slice(cpus, func(i, j int) bool { return cpus[i] < cpus[j] })
	ms := func(d time.Duration) string { return fmt.Sprintf("%.0f", float64(d.Microseconds())/1000) }
	line := fmt.Sprintf("bench: %d disks: wall min %s ms, median %s ms, max %s ms; peak RSS %.0f MB (%d cores)",
		benchDisks, ms(walls[0]), ms(walls[len(walls)/2]), ms(walls[len(walls)-1]), float64(peakKiB)/1024, cores)
	t.Logf("cpu time (user+sys) median %s ms", ms(cpus[len(cpus)/2]))
	t.Log(line)
	fmt.Println(line)
}
