package checks

import (
	"strings"
	"testing"

	"github.com/diskdoctor/diskdoctor/probes/window"
)

// The window's top process is quoted in the notes of device findings: its
// /proc/PID/io figures are its I/O on every device together, and say so;
// a storage tool that ran but did no I/O in the window is not background
// work.
func TestSampleHostTopProcessAndBackground(t *testing.T) {
	w := &window.Window{Seconds: 5,
		Start: &window.Counters{Procs: map[int]window.ProcCounters{
			3121: {PID: 3121, Comm: "borg", ReadBytes: 1000, WriteBytes: 1000},
			812:  {PID: 812, Comm: "mdadm", ReadBytes: 4096},
		}},
		End: &window.Counters{Procs: map[int]window.ProcCounters{
			3121: {PID: 3121, Comm: "borg", ReadBytes: 1000 + 655e6, WriteBytes: 1000 + 59.5e6},
			812:  {PID: 812, Comm: "mdadm", ReadBytes: 4096},
		}},
	}
	s := &Sample{Pressure: map[string]float64{}}
	host := sampleHost(w, s)
	top, _ := host.Get("top_process").(string)
	if want := "borg (pid 3121): read 131.0 MB/s, write 11.9 MB/s on all devices together"; top != want {
		t.Errorf("top_process %q, want %q", top, want)
	}
	bg, _ := host.Get("background_processes").([]string)
	if strings.Join(bg, ",") != "borg (pid 3121)" {
		t.Errorf("background_processes %q, want borg only (mdadm did no I/O in the window)", bg)
	}
	split := window.ProcRates{PID: 3121, Comm: "borg", ReadBytesPerS: 131e6, WriteBytesPerS: 11.9e6,
		Devices: []window.ProcDeviceRates{{Name: "sdb", ReadBytesPerS: 0.3e6, WriteBytesPerS: 11.9e6}}}
	if got, want := topProcessText("borg (pid 3121)", split), "borg (pid 3121): read 131.0 MB/s, write 11.9 MB/s on all devices together; per device (its cgroup's io.stat): sdb read 0.3 MB/s, write 11.9 MB/s"; got != want {
		t.Errorf("with its cgroup's count:\n got %q\nwant %q", got, want)
	}
}
