package main

import (
	"bytes"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/diskdoctor/diskdoctor/rules"
)

// benchFixtureReport is the doctor's report of a recorded machine, as the
// bench asks for it (context benchmark).
func benchFixtureReport(t *testing.T, name string) *rules.Report {
	t.Helper()
	rep, err := examine(t.Context(), options{root: filepath.Join(fixturesDir, name), format: "json", probeTimeout: time.Second, context: "benchmark"})
	if err != nil {
		t.Fatal(err)
	}
	return rep
}

// benchZFSFacts are the facts of a 1 GiB test file on the HPE MicroServer's
// pool "storage" (sda, sdb, sdc), with 32 GiB of RAM.
func benchZFSFacts() benchPathFacts {
	return benchPathFacts{Path: "/storage/bench", FSType: "zfs", Pool: "storage", Dataset: "storage/bench", Disks: []string{"sda", "sdb", "sdc"},
		FileSize: 1 << 30, NeedSpace: 1 << 30, MemTotal: 32 << 30, Free: 1 << 40, FSSize: 4 << 40, DirectOK: true, Compression: "off"}
}

func benchIDs(cs []benchCheck) []string {
	var ids []string
	for _, c := range cs {
		ids = append(ids, c.ID)
	}
	return ids
}

func TestBenchCmdPreflightWriteCacheRefused(t *testing.T) {
	rep := benchFixtureReport(t, "hpe-microserver-writethrough")
	pre := benchPreflight(rep, benchZFSFacts())
	if !pre.refused(false) {
		t.Fatalf("not refused without --force: %v", benchIDs(pre.Checks))
	}
	if crit := pre.critical(); !benchContains(crit, "write-cache-disabled") {
		t.Errorf("critical checks %v lack write-cache-disabled", crit)
	}
	var msg bytes.Buffer
	benchPrintRefusal(&msg, pre)
	if !strings.Contains(msg.String(), "CRITICAL write-cache-disabled (sda, sdb, sdc)") && !strings.Contains(msg.String(), "write-cache-disabled") {
		t.Errorf("refusal does not name the finding:\n%s", msg.String())
	}
	if !strings.Contains(msg.String(), "--force") {
		t.Errorf("refusal does not say how to run anyway:\n%s", msg.String())
	}
	for _, c := range pre.Checks {
		if c.ID == "write-cache-disabled" && benchContains(c.Subjects, "sdd") {
			t.Errorf("sdd is not under the path, yet named: %v", c.Subjects)
		}
	}
	// The pool's scrub/trim state is background work for this path.
	if !pre.has("zfs-background-work") {
		t.Errorf("pool background work not reported: %v", benchIDs(pre.Checks))
	}
	forced := benchPreflight(rep, benchZFSFacts())
	if forced.refused(true) || !forced.Forced {
		t.Errorf("--force did not let it run: %+v", forced)
	}
}

func TestBenchCmdPreflightOtherDevice(t *testing.T) {
	// The USB stick sde has its cache on: the write-cache finding of the
	// internal SSDs does not apply to it; the host's I/O pressure does.
	rep := benchFixtureReport(t, "hpe-microserver-writethrough")
	pf := benchPathFacts{Path: "/media/usb", FSType: "ext4", Device: "sde1", Disks: []string{"sde"}, FileSize: 64 << 30, NeedSpace: 64 << 30,
		MemTotal: 32 << 30, Free: 100 << 30, FSSize: 128 << 30, DirectOK: true}
	pre := benchPreflight(rep, pf)
	if pre.has("write-cache-disabled") {
		t.Errorf("another device's finding applied: %v", benchIDs(pre.Checks))
	}
	if !pre.has("io-pressure-high") {
		t.Errorf("host finding missing: %v", benchIDs(pre.Checks))
	}
	if pre.has("bench-file-smaller-than-ram") {
		t.Error("a 64 GiB file on a 32 GiB machine warned as smaller than RAM")
	}
}

func TestBenchCmdPreflightHealthy(t *testing.T) {
	rep := benchFixtureReport(t, "healthy-workstation")
	var disks []string
	for _, d := range rep.Devices {
		if j, _ := d["judged"].(bool); j {
			disks = append(disks, d["name"].(string))
		}
	}
	if len(disks) == 0 {
		t.Fatal("no judged device in the fixture")
	}
	pf := benchPathFacts{Path: "/home", FSType: "ext4", Disks: disks[:1], FileSize: 64 << 30, NeedSpace: 64 << 30, MemTotal: 16 << 30,
		Free: 500 << 30, FSSize: 1 << 40, DirectOK: true}
	pre := benchPreflight(rep, pf)
	if pre.refused(false) {
		t.Errorf("healthy machine refused: %+v", pre.Checks)
	}
	for _, c := range pre.Checks {
		if c.Severity != rules.Info {
			t.Errorf("unexpected %s %s: %s", c.Severity, c.ID, c.Text)
		}
	}
}

func TestBenchCmdPreflightBenchChecks(t *testing.T) {
	pf := benchZFSFacts()
	pf.FileSize, pf.NeedSpace = 1<<30, 1<<30
	pf.ARCMax = 16 << 30
	pf.Compression = "lz4"
	pf.DirectOK, pf.DirectErr = false, "open with O_DIRECT: invalid argument"
	pre := benchPreflight(nil, pf)
	for _, id := range []string{"bench-file-smaller-than-ram", "bench-file-smaller-than-arc", "bench-compression-on", "bench-direct-io-unsupported"} {
		if !pre.has(id) {
			t.Errorf("missing %s: %v", id, benchIDs(pre.Checks))
		}
	}
	if !pre.Buffered || pre.refused(false) {
		t.Errorf("buffered %v, refused %v", pre.Buffered, pre.Refused)
	}
	for _, c := range pre.Checks {
		if c.ID == "bench-file-smaller-than-ram" && (!strings.Contains(c.Text, "1GiB") || !strings.Contains(c.Text, "32GiB") || !strings.Contains(c.Text, "--size 64GiB")) {
			t.Errorf("RAM warning lacks the sizes: %s", c.Text)
		}
	}

	// Too little room: refused even with --force.
	full := benchZFSFacts()
	full.Free = 512 << 20
	pre = benchPreflight(nil, full)
	if !pre.refused(true) || !pre.has("bench-no-space") {
		t.Errorf("no-space run not refused: %v", benchIDs(pre.Checks))
	}
	// Room, but the file leaves under 10 % free.
	tight := benchZFSFacts()
	tight.Free, tight.FSSize = 2<<30, 100<<30
	pre = benchPreflight(nil, tight)
	if !pre.has("bench-low-free-space") || pre.refused(false) {
		t.Errorf("low free space: %v", benchIDs(pre.Checks))
	}
	// tmpfs: no device to judge.
	tmp := benchPathFacts{Path: "/dev/shm", FSType: "tmpfs", FileSize: 1 << 30, NeedSpace: 1 << 30, MemTotal: 32 << 30, Free: 8 << 30, FSSize: 16 << 30,
		DirectOK: true, DeviceNote: "/dev/shm (tmpfs) has no block device under it"}
	pre = benchPreflight(nil, tmp)
	if !pre.has("bench-no-device") {
		t.Errorf("tmpfs without a note: %v", benchIDs(pre.Checks))
	}
}

// The doctor's reading names the cause on the machine of incident A: writes
// at 1-2 % of a SATA SSD's datasheet with the write cache off.
func TestBenchCmdReadingWriteCache(t *testing.T) {
	rep := benchFixtureReport(t, "hpe-microserver-writethrough")
	ds, err := rules.LoadDatasheets("")
	if err != nil {
		t.Fatal(err)
	}
	pf := benchZFSFacts()
	pre := benchPreflight(rep, pf)
	pre.refused(true)
	out := &benchOutput{Tool: "fio", Direct: true, Preflight: pre, Target: pf, Datasheet: benchDatasheetFor(rep, ds, pf)}
	if out.Datasheet == nil || out.Datasheet.SeqWriteMBs < 500 || out.Datasheet.Class != "sata-ssd" {
		t.Fatalf("datasheet %+v", out.Datasheet)
	}
	out.Rows = []benchRow{
		{Test: "SEQ1M Q8T1", Kind: "seq", Op: "read", MBs: 520},
		{Test: "SEQ1M Q8T1", Kind: "seq", Op: "write", MBs: 8},
		{Test: "RND4K Q32T1", Kind: "rnd", Op: "write", IOPS: 1200},
	}
	for i := range out.Rows {
		out.Rows[i].compare(out.Datasheet)
	}
	if p := out.Rows[1].Pct; p == nil || *p > 2 || *p < 1 {
		t.Errorf("8 MB/s of %v MB/s = %v %%", out.Datasheet.SeqWriteMBs, p)
	}
	reading := strings.Join(benchReading(out), "\n")
	for _, want := range []string{"of datasheet on a SATA SSD: check the write cache and TRIM before anything else", "write-cache-disabled", "trim-not-scheduled", "--force"} {
		if !strings.Contains(reading, want) {
			t.Errorf("reading lacks %q:\n%s", want, reading)
		}
	}
	if !strings.Contains(reading, "writes at 1.4–1.5 %") { // 1200 IOPS of the 4K datasheet figure, 8 of 530 MB/s
		t.Errorf("reading does not give the measured fraction:\n%s", reading)
	}
	if out.Datasheet.Note == "" {
		t.Error("three pool members, no note that the datasheet is one device's")
	}
}
