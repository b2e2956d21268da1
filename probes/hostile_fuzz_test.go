package probes

import (
	"context"
	"fmt"
	"github.com/prometheus/procfs/blockdevice"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// FuzzParseWindowFile: a recorded window is refused or has a finite,
// bounded length.
func FuzzParseWindowFile(f *testing.F) {
	for _, s := range []string{"seconds: 5\n", "seconds: .nan\n", "seconds: 1e-300\n", "seconds: [1]\n", "secs: 5\n", ""} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		wf, err := parseWindowFile(b)
		if err == nil && (math.IsNaN(wf.Seconds) || math.IsInf(wf.Seconds, 0) || wf.Seconds < minWindowSeconds || wf.Seconds > maxWindowSeconds) {
			t.Fatalf("accepted a window of %v s", wf.Seconds)
		}
	})
}

// FuzzParseFinite: what parseFinite accepts is a finite number.
func FuzzParseFinite(f *testing.F) {
	for _, s := range []string{"1", "nan", "-Inf", "1e999", "0x1p-2", " 5 "} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if v, err := parseFinite(s); err == nil && (math.IsNaN(v) || math.IsInf(v, 0)) {
			t.Fatalf("parseFinite(%q) = %v", s, v)
		}
	})
}

// FuzzParseDirents: getdents records from a hostile or broken file system
// never panic the lister nor yield "." or "..".
func FuzzParseDirents(f *testing.F) {
	f.Add([]byte{1, 0, 0, 0, 0, 0, 0, 0, 2, 0, 0, 0, 0, 0, 0, 0, 24, 0, 4, 's', 'd', 'a', 0, 0})
	f.Add([]byte{})
	f.Fuzz(func(t *testing.T, b []byte) {
		for _, e := range appendDirents(nil, b, nil, -1) {
			if n := e.Name(); n == "." || n == ".." || n == "" || strings.IndexByte(n, 0) >= 0 {
				t.Fatalf("listed %q", n)
			}
		}
	})
}

// resolveTree is a recorded root with the links a hostile tree has: an
// absolute link, a ".." chain past the root, a loop, a chain of links and
// a kernel-style relative device link.
func resolveTree(tb testing.TB) string {
	tb.Helper()
	root := filepath.Join(tb.TempDir(), "root")
	for _, d := range []string{"sys/devices/pci/block/sda/queue", "sys/block", "etc", "a/b/c"} {
		if err := os.MkdirAll(filepath.Join(root, d), 0o755); err != nil {
			tb.Fatal(err)
		}
	}
	if err := os.WriteFile(filepath.Join(root, "sys/devices/pci/block/sda/queue/write_cache"), []byte("write back\n"), 0o644); err != nil {
		tb.Fatal(err)
	}
	for link, target := range map[string]string{
		"sys/block/sda": "../devices/pci/block/sda",
		"sys/block/abs": "/sys/devices/pci",
		"etc/shadow":    "../../../../../../../../etc/shadow",
		"etc/loop1":     "loop2",
		"etc/loop2":     "loop1",
		"a/b/c/up":      "../../../sys/block/sda",
		"a/chain":       "b/c/up",
		"a/root":        "/",
		"a/dotdot":      "..",
	} {
		if err := os.Symlink(target, filepath.Join(root, link)); err != nil {
			tb.Fatal(err)
		}
	}
	return root
}

// FuzzResolveInRoot: the user-space walk kept for kernels without openat2
// resolves as RESOLVE_IN_ROOT does, and never to a path outside the root.
func FuzzResolveInRoot(f *testing.F) {
	for _, s := range []string{"/sys/block/sda/queue/write_cache", "/sys/block/abs/block", "/etc/shadow", "/etc/loop1", "/a/chain/queue", "/a/root/a/dotdot/../../..", "/../../sys"} {
		f.Add(s)
	}
	root := resolveTree(f)
	fs, err := newRootFS(root)
	if err != nil {
		f.Fatal(err)
	}
	walk := *fs
	walk.walk = true
	f.Fuzz(func(t *testing.T, p string) {
		if strings.IndexByte(p, 0) >= 0 || strings.HasSuffix(p, "/") || len(p) > 1024 {
			return
		}
		w, werr := walk.resolve(p)
		if werr == nil && (!strings.HasPrefix(w, "/") || strings.Contains(w, "..") || strings.HasPrefix(w, root)) {
			t.Fatalf("walk resolved %q to %q", p, w)
		}
		if fs.walk {
			return // no openat2 to compare with
		}
		k, kerr := fs.resolve(p)
		if werr == nil && kerr == nil && w != k {
			t.Fatalf("%q: walk %q, openat2 %q", p, w, k)
		}
	})
}

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
	h, err := Recorded(root)
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
		_, _ = MemTotalBytes(ctx, h)
		_, _ = ReadMounts(ctx, h)
		_, _ = ReadPressure(ctx, h)
		_, _ = ReadCPUPower(ctx, h)
		_, _ = ReadCounters(ctx, h)
	})
}

// FuzzRates: over any window the parser accepts, any two readings of the
// counters (wrapped, reset, huge) give finite rates.
func FuzzRates(f *testing.F) {
	f.Add(uint64(1), uint64(8), uint64(4), uint64(2), uint64(16), uint64(9), uint64(100), 5.0)
	f.Fuzz(func(t *testing.T, ios, sectors, ticks, ios2, sectors2, ticks2, io uint64, secs float64) {
		if _, err := parseWindowFile([]byte(fmt.Sprintf("seconds: %v\n", secs))); err != nil {
			return
		}
		a := blockdevice.IOStats{ReadIOs: ios, ReadSectors: sectors, ReadTicks: ticks, WriteIOs: ios, WriteSectors: sectors, WriteTicks: ticks, IOsTotalTicks: io, WeightedIOTicks: io}
		b := blockdevice.IOStats{ReadIOs: ios2, ReadSectors: sectors2, ReadTicks: ticks2, WriteIOs: ios2, WriteSectors: sectors2, WriteTicks: ticks2, IOsTotalTicks: io * 3, WeightedIOTicks: io * 5}
		r := Rates("sda", a, b, secs)
		for _, v := range []float64{r.RS, r.WS, r.RMBs, r.WMBs, r.RAwaitMs, r.WAwaitMs, r.RareqKiB, r.WareqKiB, r.AquSz, r.UtilPct} {
			if math.IsNaN(v) || math.IsInf(v, 0) {
				t.Fatalf("rates %+v over %v s", r, secs)
			}
		}
	})
}
