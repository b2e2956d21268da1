package bench

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/diskdoctor/diskdoctor/checks"
	"github.com/diskdoctor/diskdoctor/machine"
	"github.com/diskdoctor/diskdoctor/probes/mount"
	"github.com/diskdoctor/diskdoctor/rules"
)

// fixtureReport is the doctor's report of a recorded machine, as the
// bench asks for it (context benchmark), through the same pipeline as the
// CLI: host, checks, rules.
func fixtureReport(t *testing.T, name string) *rules.Report {
	t.Helper()
	rep, err := fixtureExaminer(t, filepath.Join(fixturesDir, name))(t.Context(), nil)
	if err != nil {
		t.Fatal(err)
	}
	return rep
}

const fixturesDir = "../fixtures"

func fixtureExaminer(t *testing.T, root string) Examiner {
	return func(ctx context.Context, devices []string) (*rules.Report, error) {
		h, err := machine.Recorded(root)
		if err != nil {
			return nil, err
		}
		ds, err := rules.LoadDatasheets("")
		if err != nil {
			return nil, err
		}
		eng, err := rules.NewEngine(ds)
		if err != nil {
			return nil, err
		}
		res, err := checks.Run(ctx, h, checks.Options{ProbeTimeout: time.Second, Context: "benchmark", Devices: devices})
		if err != nil {
			return nil, err
		}
		return eng.Build(res, root)
	}
}

// zfsFacts are the facts of a 1 GiB test file on the HPE MicroServer's
// pool "storage" (sda, sdb, sdc), with 32 GiB of RAM.
func zfsFacts() Facts {
	return Facts{Path: "/storage/bench", FSType: "zfs", Pool: "storage", Dataset: "storage/bench", Disks: []string{"sda", "sdb", "sdc"},
		FileSize: 1 << 30, NeedSpace: 1 << 30, MemTotal: 32 << 30, Free: 1 << 40, FSSize: 4 << 40, DirectOK: true, Compression: "off"}
}

func ids(cs []Check) []string {
	var ids []string
	for _, c := range cs {
		ids = append(ids, c.ID)
	}
	return ids
}

func TestPreflightWriteCacheRefused(t *testing.T) {
	rep := fixtureReport(t, "hpe-microserver-writethrough")
	pre := judge(rep, zfsFacts())
	if !pre.Refuse(false) {
		t.Fatalf("not refused without --force: %v", ids(pre.Checks))
	}
	if crit := pre.Critical(); !contains(crit, "write-cache-disabled") {
		t.Errorf("critical checks %v lack write-cache-disabled", crit)
	}
	var msg strings.Builder
	msg.WriteString(refusal(pre, 1000).Error())
	if !strings.Contains(msg.String(), "CRITICAL write-cache-disabled (sda, sdb, sdc)") && !strings.Contains(msg.String(), "write-cache-disabled") {
		t.Errorf("refusal does not name the finding:\n%s", msg.String())
	}
	if !strings.Contains(msg.String(), "--force") {
		t.Errorf("refusal does not say how to run anyway:\n%s", msg.String())
	}
	for _, c := range pre.Checks {
		if c.ID == "write-cache-disabled" && contains(c.Subjects, "sdd") {
			t.Errorf("sdd is not under the path, yet named: %v", c.Subjects)
		}
	}
	// The pool's scrub/trim state is background work for this path.
	if !pre.Has("zfs-background-work") {
		t.Errorf("pool background work not reported: %v", ids(pre.Checks))
	}
	forced := judge(rep, zfsFacts())
	if forced.Refuse(true) || !forced.Forced {
		t.Errorf("--force did not let it run: %+v", forced)
	}
}

func TestPreflightOtherDevice(t *testing.T) {
	// The USB stick sde has its cache on: the write-cache finding of the
	// internal SSDs does not apply to it; the host's I/O pressure does.
	rep := fixtureReport(t, "hpe-microserver-writethrough")
	pf := Facts{Path: "/media/usb", FSType: "ext4", Device: "sde1", Disks: []string{"sde"}, FileSize: 64 << 30, NeedSpace: 64 << 30,
		MemTotal: 32 << 30, Free: 100 << 30, FSSize: 128 << 30, DirectOK: true}
	pre := judge(rep, pf)
	if pre.Has("write-cache-disabled") {
		t.Errorf("another device's finding applied: %v", ids(pre.Checks))
	}
	if !pre.Has("io-pressure-high") {
		t.Errorf("host finding missing: %v", ids(pre.Checks))
	}
	if pre.Has("bench-file-smaller-than-ram") {
		t.Error("a 64 GiB file on a 32 GiB machine warned as smaller than RAM")
	}
}

func TestPreflightHealthy(t *testing.T) {
	rep := fixtureReport(t, "healthy-workstation")
	var disks []string
	for _, d := range rep.Devices {
		if j, _ := d["judged"].(bool); j {
			disks = append(disks, d["name"].(string))
		}
	}
	if len(disks) == 0 {
		t.Fatal("no judged device in the fixture")
	}
	pf := Facts{Path: "/home", FSType: "ext4", Disks: disks[:1], FileSize: 64 << 30, NeedSpace: 64 << 30, MemTotal: 16 << 30,
		Free: 500 << 30, FSSize: 1 << 40, DirectOK: true}
	pre := judge(rep, pf)
	if pre.Refuse(false) {
		t.Errorf("healthy machine refused: %+v", pre.Checks)
	}
	for _, c := range pre.Checks {
		if c.Severity != rules.Info {
			t.Errorf("unexpected %s %s: %s", c.Severity, c.ID, c.Text)
		}
	}
}

func TestPreflightBenchChecks(t *testing.T) {
	pf := zfsFacts()
	pf.FileSize, pf.NeedSpace = 1<<30, 1<<30
	pf.ARCMax = 16 << 30
	pf.Compression = "lz4"
	pf.DirectOK, pf.DirectErr = false, "open with O_DIRECT: invalid argument"
	pre := judge(nil, pf)
	for _, id := range []string{"bench-file-smaller-than-ram", "bench-file-smaller-than-arc", "bench-compression-on", "bench-direct-io-unsupported"} {
		if !pre.Has(id) {
			t.Errorf("missing %s: %v", id, ids(pre.Checks))
		}
	}
	if !pre.Buffered || pre.Refuse(false) {
		t.Errorf("buffered %v, refused %v", pre.Buffered, pre.Refused)
	}
	for _, c := range pre.Checks {
		if c.ID == "bench-file-smaller-than-ram" && (!strings.Contains(c.Text, "1.0 GiB") || !strings.Contains(c.Text, "32 GiB") || !strings.Contains(c.Text, "--size 64GiB")) {
			t.Errorf("RAM warning lacks the sizes: %s", c.Text)
		}
	}

	// Too little room: refused even with --force.
	full := zfsFacts()
	full.Free = 512 << 20
	pre = judge(nil, full)
	if !pre.Refuse(true) || !pre.Has("bench-no-space") {
		t.Errorf("no-space run not refused: %v", ids(pre.Checks))
	}
	// Room, but the file leaves under 10 % free.
	tight := zfsFacts()
	tight.Free, tight.FSSize = 2<<30, 100<<30
	pre = judge(nil, tight)
	if !pre.Has("bench-low-free-space") || pre.Refuse(false) {
		t.Errorf("low free space: %v", ids(pre.Checks))
	}
	// tmpfs: no device to judge.
	tmp := Facts{Path: "/dev/shm", FSType: "tmpfs", FileSize: 1 << 30, NeedSpace: 1 << 30, MemTotal: 32 << 30, Free: 8 << 30, FSSize: 16 << 30,
		DirectOK: true, DeviceNote: "/dev/shm (tmpfs) has no block device under it"}
	pre = judge(nil, tmp)
	if !pre.Has("bench-no-device") {
		t.Errorf("tmpfs without a note: %v", ids(pre.Checks))
	}
}

// The doctor's reading names the cause on the machine of incident A: writes
// at 1-2 % of a SATA SSD's datasheet with the write cache off.
func TestReadingWriteCache(t *testing.T) {
	rep := fixtureReport(t, "hpe-microserver-writethrough")
	ds, err := rules.LoadDatasheets("")
	if err != nil {
		t.Fatal(err)
	}
	pf := zfsFacts()
	pre := judge(rep, pf)
	pre.Refuse(true)
	out := &Result{Tool: "fio", Direct: true, Preflight: pre, Target: pf, Datasheet: datasheetFor(rep, ds, pf)}
	if out.Datasheet == nil || out.Datasheet.SeqWriteMBs < 500 || out.Datasheet.Class != "sata-ssd" {
		t.Fatalf("datasheet %+v", out.Datasheet)
	}
	out.Rows = []Row{
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
	reading := strings.Join(reading(out), "\n")
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

// Issue #16: advice must fit the target. A 256 MiB file on a 1.2 GB
// filesystem of a 24 GiB machine is not told to use --size 48GiB.
func TestAdviceFitsTarget(t *testing.T) {
	pf := Facts{Path: "/mnt/small", FSType: "ext4", Device: "loop0", Disks: []string{"loop0"}, FileSize: 256 * mib, NeedSpace: 256 * mib,
		MemTotal: 24 << 30, Free: 1200 * 1000 * 1000, FSSize: 1300 * 1000 * 1000, DirectOK: true}
	pre := judge(nil, pf)
	var text string
	for _, c := range pre.Checks {
		if c.ID == "bench-file-smaller-than-ram" {
			text = c.Text
		}
	}
	if text == "" || strings.Contains(text, "48GiB") || !strings.Contains(text, "largest --size that fits is 1.1GiB") {
		t.Errorf("advice does not fit a 1.2 GB filesystem: %q", text)
	}
	if got, err := ParseSize("1.1GiB"); err != nil || got+spaceMargin > pf.Free {
		t.Errorf("the advised size %d (%v) does not fit %d free", got, err, pf.Free)
	}
	// Free space unknown (a recorded machine): bounded by the device.
	pf.Free, pf.FSSize, pf.DeviceSize = 0, 0, 1536*mib
	pre = judge(nil, pf)
	for _, c := range pre.Checks {
		if c.ID == "bench-file-smaller-than-ram" && (strings.Contains(c.Text, "48GiB") || !strings.Contains(c.Text, "no file larger than RAM fits on loop0 (1.5 GiB)")) {
			t.Errorf("advice ignores the device size: %q", c.Text)
		}
	}
}

// A filesystem with room for a file larger than RAM but not for twice the
// RAM (39 GiB free, 24 GiB of RAM) is not said to hold no file larger than
// RAM: the advice is the largest --size that fits, which is larger.
func TestAdviceLargerThanRAMFits(t *testing.T) {
	pf := Facts{Path: "/srv", FSType: "ext4", Device: "sdb1", Disks: []string{"sdb"}, FileSize: 256 * mib, NeedSpace: 256 * mib,
		MemTotal: 24 << 30, Free: 40 << 30, FSSize: 100 << 30, DirectOK: true}
	var text string
	for _, c := range judge(nil, pf).Checks {
		if c.ID == "bench-file-smaller-than-ram" {
			text = c.Text
		}
	}
	fit := largestFit(pf)
	if text == "" || strings.Contains(text, "does not fit here") || strings.Contains(text, "no file larger than RAM") || !strings.Contains(text, "use --size "+SizeArg(fit)+" (the largest that fits here, larger than RAM") {
		t.Errorf("advice for 39 GiB free and 24 GiB of RAM: %q (largest fit %s)", text, SizeArg(fit))
	}
	// A device larger than RAM but smaller than twice it, free space
	// unknown: a file larger than RAM may fit.
	pf.Free, pf.FSSize, pf.DeviceSize = 0, 0, 39<<30
	for _, c := range judge(nil, pf).Checks {
		if c.ID == "bench-file-smaller-than-ram" && (strings.Contains(c.Text, "no file larger than RAM") || !strings.Contains(c.Text, "one larger than RAM may")) {
			t.Errorf("advice for a 39 GiB device and 24 GiB of RAM: %q", c.Text)
		}
	}
}

// The free-space refusal says --force does not help, what is free, and the
// largest --size that fits.
func TestNoSpaceRefusal(t *testing.T) {
	pf := Facts{Path: "/mnt/small", FSType: "ext4", Disks: []string{"loop0"}, FileSize: 4 << 30, NeedSpace: 4 << 30, Free: 1 << 30, FSSize: 2 << 30, DirectOK: true}
	pre := judge(nil, pf)
	if !pre.Refuse(true) || !pre.NoSpace {
		t.Fatalf("not refused with --force: %v", ids(pre.Checks))
	}
	err := refusal(pre, 1000)
	var ee *ExitError
	if !errors.As(err, &ee) || ee.Code != 3 {
		t.Errorf("exit %v", err)
	}
	for _, want := range []string{"--force does not override this", "1.0 GiB free", "largest --size that fits is 1008MiB"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("refusal lacks %q: %s", want, err)
		}
	}
	if strings.Contains(err.Error(), "pass --force") {
		t.Errorf("refusal suggests --force: %s", err)
	}
}

// tmpfs: "this is memory, not a disk", not "add the model to a datasheet".
func TestMemoryTarget(t *testing.T) {
	pf := Facts{Path: "/dev/shm", FSType: "tmpfs", Memory: true, FileSize: 1 << 30, NeedSpace: 1 << 30, MemTotal: 32 << 30, Free: 8 << 30, FSSize: 16 << 30, DirectOK: true}
	pre := judge(nil, pf)
	if !pre.Has("bench-memory-target") || pre.Has("bench-file-smaller-than-ram") {
		t.Errorf("checks %v", ids(pre.Checks))
	}
	out := &Result{Tool: "fio", Direct: true, Preflight: pre, Target: pf, Rows: []Row{{Test: "SEQ1M Q8T1", Kind: "seq", Op: "read", MBs: 9000}}}
	r := strings.Join(reading(out), "\n")
	if !strings.Contains(r, "this is memory, not a disk") || strings.Contains(r, "--datasheets") {
		t.Errorf("reading: %s", r)
	}
}

// The live target: a directory of the checkout, on a block device here.
func TestGatherLive(t *testing.T) {
	dir, err := os.MkdirTemp(".", ".bench-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	h := machine.Live()
	tgt, err := ResolveTarget(t.Context(), h, dir, false, 0)
	if err != nil {
		t.Fatal(err)
	}
	// The kernel lists no mount the process's root does not reach
	// (show_mountinfo in fs/proc_namespace.c): in a chroot, or a container
	// whose root is a directory, / is not in the mount table, nor the
	// filesystem holding the checkout.
	ms, err := mount.Read(t.Context(), h)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.ContainsFunc(ms, func(m mount.Mount) bool { return m.MountPoint == "/" }) {
		t.Skipf("/ is not in /proc/self/mountinfo: a root that is not a mount point (chroot, container) hides the mount of %s", tgt.Path)
	}
	pf := gather(t.Context(), h, &Exec{}, tgt, 32*mib, false)
	if ents, _ := os.ReadDir(dir); len(ents) != 0 {
		t.Errorf("the O_DIRECT probe left %v", ents)
	}
	if pf.FSType == "" || pf.Free == 0 || pf.FSSize < pf.Free || pf.MemTotal == 0 {
		t.Errorf("facts %+v", pf)
	}
	if pf.FSType == "tmpfs" || pf.FSType == "overlay" {
		t.Skipf("the checkout is on %s: no block device to resolve", pf.FSType)
	}
	if pf.Device == "" || len(pf.Disks) == 0 || len(pf.DevNos) == 0 || !contains(pf.Stacked, pf.Disks[0]) {
		t.Fatalf("no device under %s: %+v", dir, pf)
	}
	for _, d := range pf.Disks {
		if _, err := os.Stat("/sys/block/" + d); err != nil {
			t.Errorf("%s is not a whole disk: %v", d, err)
		}
	}
}

// On a loop device O_DIRECT does not keep reads from the page cache: the
// loop driver reads its backing file through it unless it does direct
// I/O itself, so the advice never says to rely on O_DIRECT there.
func TestAdviceOnALoopDevice(t *testing.T) {
	pf := Facts{Path: "/mnt/ddbench", FSType: "ext4", Device: "loop0", Disks: []string{"loop0"}, Loop: "loop0", FileSize: 256 * mib, NeedSpace: 256 * mib,
		MemTotal: 24 << 30, DeviceSize: 1536 * mib, DirectOK: true}
	dio := true
	for _, c := range []struct {
		name string
		dio  *bool
		want string
	}{
		{"dio unknown", nil, "loop0 is a loop device: it reads its backing file through the page cache unless it does direct I/O itself (/sys/block/loop0/loop/dio)"},
		{"dio on", &dio, "no file larger than RAM fits on loop0 (1.5 GiB), so rely on O_DIRECT"},
	} {
		pf.LoopDirectIO = c.dio
		var text string
		for _, ch := range judge(nil, pf).Checks {
			if ch.ID == "bench-file-smaller-than-ram" {
				text = ch.Text
			}
		}
		if !strings.Contains(text, c.want) || (c.dio == nil && strings.Contains(text, "rely on O_DIRECT")) {
			t.Errorf("%s: %q lacks %q", c.name, text, c.want)
		}
	}
}
