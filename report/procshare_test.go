package report

import (
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/diskdoctor/diskdoctor/checks"
	"github.com/diskdoctor/diskdoctor/doctor"
	"github.com/diskdoctor/diskdoctor/probes/window"
)

// A process's share of a device is computed from the I/O it did on that
// device: from its cgroup's io.stat, or from /proc/PID/io when the device
// was the only busy one (and then said); otherwise its total is given and
// said not to be split. Never its I/O on every device set against one.
func TestBusiestProcessShare(t *testing.T) {
	sdb := window.DeviceRates{Name: "sdb", RS: 8, WS: 91, RMBs: 0.3, WMBs: 11.9, UtilPct: 99.2}
	nvme := window.DeviceRates{Name: "nvme0n1", RS: 4200, WS: 600, RMBs: 138, WMBs: 9.8, UtilPct: 22}
	borg := window.ProcRates{PID: 3121, Comm: "borg", Cgroup: "/system.slice/borgbackup.service", ReadBytesPerS: 131e6, WriteBytesPerS: 11.9e6}
	split := borg
	split.Devices = []window.ProcDeviceRates{{Name: "nvme0n1", ReadBytesPerS: 131e6}, {Name: "sdb", ReadBytesPerS: 0.3e6, WriteBytesPerS: 11.9e6}}
	pg := window.ProcRates{PID: 2210, Comm: "postgres", WriteBytesPerS: 1.3e6}
	busier := sdb
	busier.WMBs = 100
	for _, c := range []struct {
		name  string
		dev   *window.DeviceRates
		devs  []window.DeviceRates
		procs []window.ProcRates
		want  string
	}{
		{"two busy devices, no per-device count", nil, []window.DeviceRates{sdb, nvme}, []window.ProcRates{borg, pg},
			"; top process pid 3121 borg (borgbackup.service): 131 MB/s read, 11.9 MB/s written on all devices together, which /proc/PID/io cannot split per device"},
		{"its cgroup's io.stat", nil, []window.DeviceRates{sdb, nvme}, []window.ProcRates{split, pg},
			"; top process on sdb pid 3121 borg (borgbackup.service): 0.3 MB/s read, 11.9 MB/s written there (its cgroup's io.stat), ~100 % of what sdb moved"},
		{"the only busy device", nil, []window.DeviceRates{sdb, {Name: "sda", RS: 2, UtilPct: 0.4}}, []window.ProcRates{{PID: 3121, Comm: "borg", WriteBytesPerS: 6e6}},
			"; top process pid 3121 borg: 6.0 MB/s written, ~49 % of what sdb moved (sdb the only busy device)"},
		// A process not split per device did more in all than borg did on
		// sdb, and sdb moved enough for it to have done so there: it may be
		// sdb's top process, so none is named as such.
		{"a bigger unsplit process", &busier, []window.DeviceRates{busier, nvme}, []window.ProcRates{{PID: 9, Comm: "tar", ReadBytesPerS: 50e6}, split},
			"; top process pid 3121 borg (borgbackup.service): 131 MB/s read, 11.9 MB/s written on all devices together, which /proc/PID/io cannot split per device"},
		// The same process where sdb moved only what borg did there: tar
		// cannot have done more on it.
		{"an unsplit process with no room left", nil, []window.DeviceRates{sdb, nvme}, []window.ProcRates{{PID: 9, Comm: "tar", ReadBytesPerS: 50e6}, split},
			"; top process on sdb pid 3121 borg (borgbackup.service): 0.3 MB/s read, 11.9 MB/s written there (its cgroup's io.stat), ~100 % of what sdb moved"},
		{"a shell's reaped dd", nil, []window.DeviceRates{sdb}, []window.ProcRates{{PID: 700, Comm: "bash", Cmdline: "bash /dev/fd/3", ExitedChildren: true, WriteBytesPerS: 12e6}},
			"; top process exited threads and children of pid 700 bash /dev/fd/3: 12.0 MB/s written, ~98 % of what sdb moved (sdb the only busy device)"},
		// Its count exceeds what the device moved (dirtied pages not yet
		// written back): no share of the device is known.
		{"more than the device moved", nil, []window.DeviceRates{sdb}, []window.ProcRates{{PID: 9, Comm: "fio", WriteBytesPerS: 400e6}},
			"; top process pid 9 fio: 400 MB/s written, more than all sdb moved (sdb the only busy device)"},
	} {
		s := &checks.Sample{Seconds: 5, Devices: c.devs, Processes: c.procs}
		d := sdb
		if c.dev != nil {
			d = *c.dev
		}
		if got := busiestProcess(s, d); got != c.want {
			t.Errorf("%s:\n got %q\nwant %q", c.name, got, c.want)
		}
	}
}

// The iotop table lists the processes that moved something, the most
// first, and counts the idle ones it leaves out; the iostat table leaves
// out the devices below the noise floor and counts them.
func TestTriageTablesSortedWithoutIdleRows(t *testing.T) {
	rep := busyReport("auto", window.DeviceRates{WS: 400, WMBs: 800, UtilPct: 90})
	rep.Sample.Devices = append(rep.Sample.Devices, window.DeviceRates{Name: "sdz"})
	rep.Sample.Processes = []window.ProcRates{
		{PID: 1, Comm: "writer", WriteBytesPerS: 2e6},
		{PID: 2, Comm: "reader", ReadBytesPerS: 300e6},
		{PID: 3, Comm: "idle", ReadBytesPerS: 4096},
		{PID: 4, Comm: "both", ReadBytesPerS: 1e6, WriteBytesPerS: 1.5e6},
	}
	out := string(textOf(t, rep, textOptions{width: 300}))
	if want := "top process pid 2 reader: 300 MB/s"; !strings.Contains(out, want) {
		t.Errorf("the verdict does not name the process that moved the most (%q):\n%s", want, out)
	}
	tables := out[strings.Index(out, "Devices in the"):]
	var order []string
	for _, l := range strings.Split(tables, "\n") {
		if f := strings.Fields(l); len(f) > 1 && f[0] != "(" && strings.Trim(f[0], "0123456789") == "" && (f[1] == "writer" || f[1] == "reader" || f[1] == "idle" || f[1] == "both") {
			order = append(order, f[1])
		}
	}
	if strings.Join(order, " ") != "reader both writer" {
		t.Errorf("process rows %v, want reader both writer (idle left out):\n%s", order, tables)
	}
	for _, want := range []string{"(1 process under 0.05 MB/s not shown)", "(2 idle devices not shown", "\nloop0 "} {
		if !strings.Contains(tables, want) {
			t.Errorf("tables lack %q:\n%s", want, tables)
		}
	}
	for _, idle := range []string{"\nvda ", "\nsdz "} {
		if strings.Contains(tables, idle) {
			t.Errorf("an idle device is listed (%q):\n%s", idle, tables)
		}
	}
}

// On a recorded machine: borg's cgroup's io.stat says what it did on sdb,
// and a shell's /proc/PID/io grew by a child it reaped while its one
// thread did nothing. The verdict sets borg's I/O on sdb against sdb, and
// the iotop table gives the child's I/O its own row.
func TestRecordedProcessesPerDevice(t *testing.T) {
	root := filepath.Join(t.TempDir(), "root")
	if out, err := exec.Command("cp", "-a", filepath.Join(fixturesDir, "sata-saturated-nvme-idle"), root).CombinedOutput(); err != nil {
		t.Fatalf("cp: %v %s", err, out)
	}
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
	const svc = "/sys/fs/cgroup/system.slice/borgbackup.service"
	for _, at := range []string{"", "samples/1"} {
		write(at+"/sys/fs/cgroup/cgroup.subtree_control", "cpu io memory pids\n")
		write(at+"/sys/fs/cgroup/system.slice/cgroup.subtree_control", "io memory pids\n")
		write(at+svc+"/cgroup.procs", "3121\n")
		write(at+"/proc/4000/comm", "bash\n")
		write(at+"/proc/4000/cgroup", "0::/user.slice/user-0.slice/session-4.scope\n")
	}
	// Borg read 1.3 MB and wrote 59.5 MB on sdb (8:16), read 655 MB on
	// nvme0n1 (259:0) in the 5 s.
	write(svc+"/io.stat", "8:16 rbytes=1000000000 wbytes=2000000000 rios=1 wios=1 dbytes=0 dios=0\n259:0 rbytes=80000000000 wbytes=0 rios=1 wios=0 dbytes=0 dios=0\n")
	write("samples/1"+svc+"/io.stat", "8:16 rbytes=1001310720 wbytes=2059500000 rios=41 wios=456 dbytes=0 dios=0\n259:0 rbytes=80655000000 wbytes=0 rios=21000 wios=0 dbytes=0 dios=0\n")
	// The shell reaped a dd that wrote 5 MB: its file grew, its thread's
	// did not.
	io := func(r, w int) string {
		return "rchar: 0\nwchar: 0\nsyscr: 0\nsyscw: 0\nread_bytes: " + itoa(r) + "\nwrite_bytes: " + itoa(w) + "\ncancelled_write_bytes: 0\n"
	}
	write("proc/4000/io", io(4096, 0))
	write("proc/4000/task/4000/io", io(4096, 0))
	write("samples/1/proc/4000/io", io(4096, 5000000))
	write("samples/1/proc/4000/task/4000/io", io(4096, 0))
	rep, err := doctor.Examine(t.Context(), doctor.Options{Root: root, ProbeTimeout: time.Second, Sample: 5 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	out := string(textOf(t, rep, textOptions{width: 200}))
	// The verdict line now also names the device's load, so it wraps
	// even at 200 columns: compare its words.
	words := strings.Join(strings.Fields(out), " ")
	if want := "top process on sdb pid 3121 borg (borgbackup.service): 0.3 MB/s read, 11.9 MB/s written there (its cgroup's io.stat), ~100 % of what sdb moved"; !strings.Contains(words, want) {
		t.Errorf("the verdict does not set borg's I/O on sdb against sdb (%q):\n%s", want, out)
	}
	if !strings.Contains(out, "exited threads and children of bash") {
		t.Errorf("the shell's reaped child has no row of its own:\n%s", out)
	}
	for _, l := range strings.Split(out, "\n") {
		if f := strings.Fields(l); len(f) > 1 && f[0] == "4000" && f[1] == "bash" {
			t.Errorf("the shell is credited with its child's I/O: %q", l)
		}
	}
}

func itoa(n int) string { return strconv.Itoa(n) }
