package machine_test

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/diskdoctor/diskdoctor/machine"
	"github.com/diskdoctor/diskdoctor/probes/mount"
	"github.com/diskdoctor/diskdoctor/probes/system"
	"github.com/diskdoctor/diskdoctor/probes/window"
)

// FuzzRecordedProcFiles feeds the procfs tables the doctor parses (some
// through the library it hands a recorded root to) with arbitrary content:
// meminfo, mountinfo, PSI, cpuinfo, cmdline, diskstats and a process's io,
// comm and cgroup.
func FuzzRecordedProcFiles(f *testing.F) {
	f.Add([]byte("MemTotal:       16318428 kB\n"), []byte("27 1 8:1 / / rw,relatime shared:1 - ext4 /dev/sda1 rw\n"),
		[]byte("some avg10=0.00 avg60=0.00 avg300=0.00 total=0\nfull avg10=0.00 avg60=0.00 avg300=0.00 total=0\n"),
		[]byte("processor\t: 0\nmodel name\t: AMD EPYC\ncpu MHz\t\t: 2994.374\n"), []byte("   8       0 sda 1 0 8 0 1 0 8 0 0 0 0 0 0 0 0 0 0\n"))
	root := filepath.Join(f.TempDir(), "root")
	for _, d := range []string{"sys", "proc/1", "proc/pressure"} {
		if err := os.MkdirAll(filepath.Join(root, d), 0o755); err != nil {
			f.Fatal(err)
		}
	}
	if err := os.Symlink("1", filepath.Join(root, "proc/self")); err != nil {
		f.Fatal(err)
	}
	h, err := machine.Recorded(root)
	if err != nil {
		f.Fatal(err)
	}
	ctx := context.Background()
	f.Fuzz(func(t *testing.T, meminfo, mountinfo, psi, cpuinfo, diskstats []byte) {
		for p, b := range map[string][]byte{"proc/meminfo": meminfo, "proc/1/mountinfo": mountinfo, "proc/pressure/io": psi,
			"proc/cpuinfo": cpuinfo, "proc/cmdline": cpuinfo, "proc/diskstats": diskstats, "proc/1/io": diskstats, "proc/1/comm": psi, "proc/1/cgroup": mountinfo} {
			if err := os.WriteFile(filepath.Join(root, p), b, 0o644); err != nil {
				t.Fatal(err)
			}
		}
		_, _ = system.MemTotalBytes(ctx, h)
		_, _ = mount.Read(ctx, h)
		_, _ = system.ReadPressure(ctx, h)
		_, _ = system.ReadCPUPower(ctx, h)
		_, _ = window.ReadCounters(ctx, h)
	})
}
