package machine_test

// Hostile recorded machines (issue #16): every attack is generated here, in
// code, from a small tree written into a temporary directory.

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/diskdoctor/diskdoctor/internal/testutil"
	"github.com/diskdoctor/diskdoctor/machine"
	"github.com/diskdoctor/diskdoctor/machine/manifest"
	"github.com/diskdoctor/diskdoctor/probes/block"
	"github.com/diskdoctor/diskdoctor/probes/bootcfg"
	"github.com/diskdoctor/diskdoctor/probes/pcie"
	"github.com/diskdoctor/diskdoctor/probes/system"
	"github.com/diskdoctor/diskdoctor/probes/udev"
	"github.com/diskdoctor/diskdoctor/probes/window"
	"golang.org/x/sys/unix"
)

const secret = "root:$6$HOSTILE-SECRET:19000:0:99999:7:::"

// hostileRoot writes a minimal recorded machine and, beside it (outside the
// root), a secret file and a secret directory that no read may reach.
func hostileRoot(t *testing.T) (root, outside string) {
	t.Helper()
	base := t.TempDir()
	root, outside = filepath.Join(base, "root"), filepath.Join(base, "outside")
	for _, d := range []string{"sys/devices/pci0000:00/0000:00:17.0/ata1/host0/target0:0:0/0:0:0:0/block/sda/queue", "sys/block", "proc/sys/kernel", "proc/sys/vm",
		"commands", "etc/udev/rules.d", "etc/cron.d", "run/udev/data", "samples/1/proc"} {
		testutil.Must(t, os.MkdirAll(filepath.Join(root, d), 0o755))
	}
	testutil.Must(t, os.MkdirAll(filepath.Join(outside, "dir"), 0o755))
	testutil.Must(t, os.WriteFile(filepath.Join(outside, "shadow"), []byte(secret+"\n"), 0o600))
	testutil.Must(t, os.WriteFile(filepath.Join(outside, "dir", "SECRET-NAME"), []byte(secret), 0o600))
	testutil.Must(t, os.WriteFile(filepath.Join(root, "sys/devices/pci0000:00/0000:00:17.0/ata1/host0/target0:0:0/0:0:0:0/block/sda/queue/write_cache"), []byte("write back\n"), 0o644))
	// The kernel's relative link, as a recorded tree has it.
	testutil.Must(t, os.Symlink("../devices/pci0000:00/0000:00:17.0/ata1/host0/target0:0:0/0:0:0:0/block/sda", filepath.Join(root, "sys/block/sda")))
	return root, outside
}

func plantLink(t *testing.T, target, link string) {
	t.Helper()
	_ = os.Remove(link)
	testutil.Must(t, os.Symlink(target, link))
}

// hostVariants opens the recorded root with openat2 and, when the kernel
// has it, once more with the user-space walk kept for older kernels.
func hostVariants(t *testing.T, root string) map[string]*machine.Host {
	t.Helper()
	h, err := machine.Recorded(root)
	if err != nil {
		t.Fatal(err)
	}
	return machine.WalkVariants(h)
}

func noSecret(t *testing.T, what string, b []byte) {
	t.Helper()
	if bytes.Contains(b, []byte("HOSTILE-SECRET")) || bytes.Contains(b, []byte("root:")) {
		t.Errorf("%s read a file outside the recorded root: %q", what, b)
	}
}

// TestHostileRootLinksStayInside is class 4: `ln -sf /etc/shadow
// ROOT/proc/sys/kernel/hostname` and its variants (a relative ".." chain,
// a link to a secret outside the root, a linked directory) must not read
// outside the root, for files, listings, links, Resolve, Exists and Glob.
func TestHostileRootLinksStayInside(t *testing.T) {
	root, outside := hostileRoot(t)
	ctx := context.Background()
	depth := strings.Repeat("../", strings.Count(root, "/")+2)
	for _, target := range []string{"/etc/shadow", filepath.Join(outside, "shadow"), depth + strings.TrimPrefix(filepath.Join(outside, "shadow"), "/")} {
		plantLink(t, target, filepath.Join(root, "proc/sys/kernel/hostname"))
		plantLink(t, target, filepath.Join(root, "etc/hdparm.conf"))
		plantLink(t, filepath.Dir(target), filepath.Join(root, "etc/udev/rules.d/evil"))
		plantLink(t, filepath.Join(outside, "dir"), filepath.Join(root, "etc/cron.d/evil"))
		// Below a device directory.
		plantLink(t, target, filepath.Join(root, "sys/block/sda/queue/scheduler"))
		plantLink(t, filepath.Dir(target), filepath.Join(root, "sys/block/sda/device"))
		// Below an NVMe controller's PCI function, reached through its
		// class link.
		fn := filepath.Join(root, "sys/devices/pci0000:00/0000:00:01.0/0000:01:00.0")
		testutil.Must(t, os.MkdirAll(fn, 0o755))
		testutil.Must(t, os.MkdirAll(filepath.Join(root, "sys/class/nvme/nvme0"), 0o755))
		plantLink(t, "../../../devices/pci0000:00/0000:00:01.0/0000:01:00.0", filepath.Join(root, "sys/class/nvme/nvme0/device"))
		testutil.Must(t, os.WriteFile(filepath.Join(fn, "current_link_speed"), []byte("8.0 GT/s PCIe\n"), 0o644))
		testutil.Must(t, os.WriteFile(filepath.Join(fn, "max_link_speed"), []byte("8.0 GT/s PCIe\n"), 0o644))
		testutil.Must(t, os.WriteFile(filepath.Join(fn, "max_link_width"), []byte("4\n"), 0o644))
		plantLink(t, target, filepath.Join(fn, "current_link_width"))
		for name, h := range hostVariants(t, root) {
			t.Run(name+" "+target, func(t *testing.T) {
				b, err := h.ReadFile(ctx, "/proc/sys/kernel/hostname")
				noSecret(t, "ReadFile", b)
				if err == nil && len(b) > 0 {
					t.Errorf("ReadFile of a link out of the root returned %q", b)
				}
				for _, p := range []string{"/sys/block/sda/queue/scheduler", "/sys/block/sda/device/shadow"} {
					b, err = h.ReadFile(ctx, p)
					noSecret(t, "ReadFile "+p, b)
					if err == nil && len(b) > 0 {
						t.Errorf("ReadFile of a link out of the root at %s returned %q", p, b)
					}
				}
				l, err := pcie.ReadNVMeLink(ctx, h, "nvme0")
				if err == nil || l == nil || l.CurSpeed != "8.0 GT/s PCIe" || l.CurWidth != "" {
					t.Errorf("NVMe link through the class link: %+v, %v; want the speed read and the width refused", l, err)
				}
				noSecret(t, "ReadNVMeLink", []byte(fmt.Sprint(l)))
				p, err := system.ReadPlatform(ctx, h)
				if err == nil && p.Hostname != "" {
					t.Errorf("platform hostname %q from a link out of the root", p.Hostname)
				}
				ents, _ := h.ReadDir(ctx, "/etc/cron.d/evil")
				for _, e := range ents {
					if e.Name() == "SECRET-NAME" {
						t.Error("ReadDir listed a directory outside the root")
					}
				}
				for _, m := range h.Glob("/etc/cron.d/*/*") {
					if strings.Contains(m, "SECRET-NAME") {
						t.Errorf("Glob matched %s outside the root", m)
					}
				}
				if h.Exists("/etc/cron.d/evil/SECRET-NAME") {
					t.Error("Exists saw a file outside the root")
				}
				if r, err := h.Resolve("/etc/cron.d/evil"); err == nil && strings.Contains(r, outside) {
					t.Errorf("Resolve left the root: %s", r)
				}
				for _, l := range bootcfg.FindCachePersistence(ctx, h) {
					noSecret(t, "FindCachePersistence", []byte(l.Text))
				}
			})
		}
	}
}

// TestHostileRootManifestOutputLink: a manifest whose stdout file links to
// /etc/shadow (or any file outside) must not hand its content to a probe,
// nor to `snapshot --root`, which records what Run returns.
func TestHostileRootManifestOutputLink(t *testing.T) {
	root, outside := hostileRoot(t)
	testutil.Must(t, os.WriteFile(filepath.Join(root, "commands/manifest.yaml"), []byte("- argv: [dmesg]\n  stdout: dmesg.txt\n- argv: [hdparm, -W, /dev/sda]\n  stdout: hd.txt\n"), 0o644))
	plantLink(t, "/etc/shadow", filepath.Join(root, "commands/dmesg.txt"))
	plantLink(t, filepath.Join(outside, "shadow"), filepath.Join(root, "commands/hd.txt"))
	for name, h := range hostVariants(t, root) {
		for _, argv := range [][]string{{"dmesg"}, {"hdparm", "-W", "/dev/sda"}} {
			res, err := h.Run(context.Background(), argv...)
			noSecret(t, name+" "+strings.Join(argv, " "), res.Stdout)
			if err == nil {
				t.Errorf("%s: %v: a recorded output linked out of the root was read", name, argv)
			}
		}
	}
}

// TestHostileRootInsideLinksResolve: the links a real sysfs has keep
// working, relative ones and absolute ones (taken relative to the root, as
// the recorded machine saw them).
func TestHostileRootInsideLinksResolve(t *testing.T) {
	root, _ := hostileRoot(t)
	plantLink(t, "/sys/devices/pci0000:00/0000:00:17.0/ata1/host0/target0:0:0/0:0:0:0/block/sda", filepath.Join(root, "sys/block/sdb"))
	dev := filepath.Join(root, "sys/devices/pci0000:00/0000:00:17.0/ata1/host0/target0:0:0/0:0:0:0")
	testutil.Must(t, os.WriteFile(filepath.Join(dev, "model"), []byte("WDC WDS200T1R0A\n"), 0o644))
	plantLink(t, "../../../0:0:0:0", filepath.Join(dev, "block/sda/device"))
	plantLink(t, "/sys/devices/pci0000:00/0000:00:17.0/ata1/host0/target0:0:0/0:0:0:0", filepath.Join(dev, "block/sda/abs"))
	want := "/sys/devices/pci0000:00/0000:00:17.0/ata1/host0/target0:0:0/0:0:0:0/block/sda"
	for name, h := range hostVariants(t, root) {
		for _, dev := range []string{"sda", "sdb"} {
			if r, err := h.Resolve("/sys/block/" + dev); err != nil || r != want {
				t.Errorf("%s: Resolve(/sys/block/%s) = %q, %v; want %s", name, dev, r, err, want)
			}
			if v, err := h.ReadString(context.Background(), "/sys/block/"+dev+"/queue/write_cache"); err != nil || v != "write back" {
				t.Errorf("%s: write_cache through /sys/block/%s = %q, %v", name, dev, v, err)
			}
			if !h.Exists("/sys/block/" + dev + "/queue") {
				t.Errorf("%s: Exists(/sys/block/%s/queue) = false", name, dev)
			}
		}
		if g := h.Glob("/sys/block/*/queue/write_cache"); len(g) != 2 {
			t.Errorf("%s: Glob = %v, want the two links", name, g)
		}
		if l, err := h.Readlink("/sys/block/sda"); err != nil || !strings.HasPrefix(l, "../devices/") {
			t.Errorf("%s: Readlink = %q, %v", name, l, err)
		}
		// A link below the device directory that climbs above it, as
		// device -> ../../../0:0:0:0 does, and an absolute one.
		if v, err := h.ReadString(context.Background(), "/sys/block/sda/device/model"); err != nil || v != "WDC WDS200T1R0A" {
			t.Errorf("%s: /sys/block/sda/device/model = %q, %v", name, v, err)
		}
		if v, err := h.ReadString(context.Background(), "/sys/block/sda/abs/model"); err != nil || v != "WDC WDS200T1R0A" {
			t.Errorf("%s: /sys/block/sda/abs/model = %q, %v", name, v, err)
		}
		if r, err := h.Resolve("/sys/block/sda/device"); err != nil || r != "/sys/devices/pci0000:00/0000:00:17.0/ata1/host0/target0:0:0/0:0:0:0" {
			t.Errorf("%s: Resolve(/sys/block/sda/device) = %q, %v", name, r, err)
		}
	}
}

// TestHostileRootLibraryFiles: procfs and ghw open files themselves, the
// ordinary way; a recorded file that links out of the root (proc/meminfo
// to a file whose MemTotal is a lie, DMI's product_name to a secret) is not
// handed to them.
func TestHostileRootLibraryFiles(t *testing.T) {
	root, outside := hostileRoot(t)
	testutil.Must(t, os.WriteFile(filepath.Join(outside, "meminfo"), []byte("MemTotal:       12345 kB\n"), 0o644))
	plantLink(t, filepath.Join(outside, "meminfo"), filepath.Join(root, "proc/meminfo"))
	testutil.Must(t, os.MkdirAll(filepath.Join(root, "sys/class/dmi/id"), 0o755))
	plantLink(t, filepath.Join(outside, "shadow"), filepath.Join(root, "sys/class/dmi/id/product_name"))
	for name, h := range hostVariants(t, root) {
		n, err := system.MemTotalBytes(context.Background(), h)
		if n == 12345*1024 || !errors.Is(err, machine.ErrRefused) {
			t.Errorf("%s: MemTotalBytes = %d, %v; want a refusal", name, n, err)
		}
		p, _ := system.ReadPlatform(context.Background(), h)
		noSecret(t, name+" platform", []byte(fmt.Sprint(p)))
	}
}

// mkfifo plants a FIFO (nobody ever writes to it).
func mkfifo(t *testing.T, p string) {
	t.Helper()
	testutil.Must(t, os.MkdirAll(filepath.Dir(p), 0o755))
	_ = os.Remove(p)
	if err := unix.Mkfifo(p, 0o644); err != nil {
		t.Skipf("mkfifo: %v", err)
	}
}

// within fails the test when f has not returned after d (a hang).
func within(t *testing.T, what string, d time.Duration, f func()) {
	t.Helper()
	done := make(chan struct{})
	go func() { defer close(done); f() }()
	select {
	case <-done:
	case <-time.After(d):
		t.Fatalf("%s hung on a FIFO for more than %s", what, d)
	}
}

// TestHostileRootFIFOs is class 5: a FIFO at each path the issue lists
// must not hang the doctor; where a file is expected it is refused.
func TestHostileRootFIFOs(t *testing.T) {
	ctx := context.Background()
	t.Run("commands/manifest.yaml", func(t *testing.T) {
		root, _ := hostileRoot(t)
		mkfifo(t, filepath.Join(root, "commands/manifest.yaml"))
		within(t, "Recorded", 5*time.Second, func() {
			if _, err := machine.Recorded(root); !errors.Is(err, machine.ErrRefused) {
				t.Errorf("Recorded with a FIFO manifest: %v, want a refusal", err)
			}
		})
	})
	root, _ := hostileRoot(t)
	mkfifo(t, filepath.Join(root, "etc/cron.d/trim"))
	mkfifo(t, filepath.Join(root, "etc/udev/rules.d/99-cache.rules"))
	mkfifo(t, filepath.Join(root, "etc/hdparm.conf"))
	mkfifo(t, filepath.Join(root, "sys/block/sda/device/scsi_disk/0:0:0:0/cache_type"))
	mkfifo(t, filepath.Join(root, "proc/sys/vm/dirty_ratio"))
	mkfifo(t, filepath.Join(root, "proc/meminfo"))
	mkfifo(t, filepath.Join(root, "samples/1/proc/diskstats"))
	testutil.Must(t, os.WriteFile(filepath.Join(root, "samples/window.yaml"), []byte("seconds: 5\n"), 0o644))
	testutil.Must(t, os.WriteFile(filepath.Join(root, "proc/diskstats"), []byte("   8       0 sda 1 0 8 0 1 0 8 0 0 0 0 0 0 0 0 0 0\n"), 0o644))
	for name, h := range hostVariants(t, root) {
		within(t, name+" config readers", 5*time.Second, func() {
			bootcfg.FindCachePersistence(ctx, h)
			bootcfg.FindCronTrim(ctx, h)
			bootcfg.FindCronZFSTrim(ctx, h)
		})
		for _, p := range []string{"/sys/block/sda/device/scsi_disk/0:0:0:0/cache_type", "/proc/sys/vm/dirty_ratio", "/etc/hdparm.conf", "/etc/cron.d/trim"} {
			within(t, name+" "+p, 5*time.Second, func() {
				if _, err := h.ReadString(ctx, p); !errors.Is(err, machine.ErrRefused) {
					t.Errorf("%s: ReadString(%s) = %v, want a refusal", name, p, err)
				}
			})
		}
		within(t, name+" MemTotalBytes", 5*time.Second, func() {
			if _, err := system.MemTotalBytes(ctx, h); !errors.Is(err, machine.ErrRefused) {
				t.Errorf("%s: MemTotalBytes = %v, want a refusal", name, err)
			}
		})
		within(t, name+" SampleWindow", 5*time.Second, func() {
			if _, err := window.Sample(ctx, h, time.Second, nil); !errors.Is(err, machine.ErrRefused) {
				t.Errorf("%s: SampleWindow = %v, want a refusal", name, err)
			}
		})
	}
	within(t, "live /dev/zero", 5*time.Second, func() {
		if _, err := machine.Live().ReadFile(ctx, "/dev/zero"); !errors.Is(err, machine.ErrRefused) {
			t.Errorf("live ReadFile(/dev/zero) = %v, want a refusal", err)
		}
	})
}

// allocated is how many bytes f allocates.
func allocated(f func()) uint64 {
	var a, b runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&a)
	f()
	runtime.ReadMemStats(&b)
	return b.TotalAlloc - a.TotalAlloc
}

// TestHostileRootBoundedReads is class 6: a 2 GB sparse write_cache or
// udev record costs little memory; a manifest linked to /dev/zero, a huge
// sparse manifest and an alias bomb are refused quickly.
func TestHostileRootBoundedReads(t *testing.T) {
	ctx := context.Background()
	root, _ := hostileRoot(t)
	wc := filepath.Join(root, "sys/block/sda/queue/write_cache")
	testutil.Must(t, os.Truncate(wc, 2<<30))
	testutil.Must(t, os.WriteFile(filepath.Join(root, "sys/block/sda/dev"), []byte("8:0\n"), 0o644))
	testutil.Must(t, os.WriteFile(filepath.Join(root, "run/udev/data/b8:0"), nil, 0o644))
	testutil.Must(t, os.Truncate(filepath.Join(root, "run/udev/data/b8:0"), 2<<30))
	for name, h := range hostVariants(t, root) {
		var err1, err2 error
		n := allocated(func() {
			_, err1 = h.ReadString(ctx, "/sys/block/sda/queue/write_cache")
			_, err2 = udev.Read(ctx, h, "8:0")
		})
		if !errors.Is(err1, machine.ErrRefused) || !errors.Is(err2, machine.ErrRefused) {
			t.Errorf("%s: 2 GB write_cache: %v; 2 GB udev record: %v; want refusals", name, err1, err2)
		}
		if n > 1<<20 {
			t.Errorf("%s: reading two 2 GB files allocated %d bytes", name, n)
		}
		// The whole inventory, too.
		n = allocated(func() { _, _ = block.Read(ctx, h) })
		if n > 8<<20 {
			t.Errorf("%s: inventory of a disk with 2 GB attributes allocated %d bytes", name, n)
		}
	}

	t.Run("manifest linked to /dev/zero", func(t *testing.T) {
		root, _ := hostileRoot(t)
		plantLink(t, "/dev/zero", filepath.Join(root, "commands/manifest.yaml"))
		// Inside the root /dev/zero does not exist: no manifest, no commands.
		h, err := machine.Recorded(root)
		if err != nil {
			t.Fatalf("Recorded: %v", err)
		}
		if _, err := h.Run(ctx, "dmesg"); !errors.Is(err, machine.ErrToolMissing) {
			t.Errorf("Run with no manifest inside the root: %v", err)
		}
		// A device node inside the root is refused.
		testutil.Must(t, os.MkdirAll(filepath.Join(root, "dev"), 0o755))
		if err := unix.Mknod(filepath.Join(root, "dev/zero"), unix.S_IFCHR|0o666, int(unix.Mkdev(1, 5))); err != nil {
			t.Skipf("mknod: %v", err)
		}
		if _, err := machine.Recorded(root); !errors.Is(err, machine.ErrRefused) {
			t.Errorf("Recorded with the manifest a character device: %v, want a refusal", err)
		}
	})
	t.Run("sparse 20 GB manifest", func(t *testing.T) {
		root, _ := hostileRoot(t)
		p := filepath.Join(root, "commands/manifest.yaml")
		testutil.Must(t, os.WriteFile(p, nil, 0o644))
		testutil.Must(t, os.Truncate(p, 20<<30))
		if _, err := machine.Recorded(root); !errors.Is(err, machine.ErrRefused) {
			t.Errorf("Recorded with a 20 GB manifest: %v, want a refusal", err)
		}
	})
	t.Run("alias bomb", func(t *testing.T) {
		var b strings.Builder
		b.WriteString("- argv: [dmesg]\n  stdout: &big \"")
		b.WriteString(strings.Repeat("x", 1<<20))
		b.WriteString("\"\n")
		for i := 0; i < 1500; i++ {
			fmt.Fprintf(&b, "- argv: [echo, \"%d\"]\n  stdout: *big\n", i)
		}
		start := time.Now()
		var err error
		n := allocated(func() { _, err = manifest.Parse(strings.NewReader(b.String())) })
		if !errors.Is(err, machine.ErrParse) {
			t.Errorf("alias bomb: %v, want a refusal", err)
		}
		if el := time.Since(start); el > 5*time.Second || n > 256<<20 {
			t.Errorf("alias bomb took %s and %d bytes to refuse", el, n)
		}
	})
	t.Run("unknown manifest field", func(t *testing.T) {
		if _, err := manifest.Parse(strings.NewReader("- argv: [dmesg]\n  stdot: dmesg.txt\n")); !errors.Is(err, machine.ErrParse) {
			t.Errorf("a typo in a manifest field: %v, want an error", err)
		}
	})
}

// TestHostileRootNonFinite is class 10: a recorded window of .nan,
// 1e-300, .inf or a negative length is refused at the parser, and the
// numbers of recorded tools never become NaN or infinity.
func TestHostileRootNonFinite(t *testing.T) {
	// The parsers' own refusals are tested beside them (window,
	// internal/parse); here, the recorded machine's.
	root, _ := hostileRoot(t)
	testutil.Must(t, os.WriteFile(filepath.Join(root, "samples/window.yaml"), []byte("seconds: .nan\n"), 0o644))
	h, err := machine.Recorded(root)
	testutil.Must(t, err)
	if _, err := window.Sample(context.Background(), h, time.Second, nil); !errors.Is(err, machine.ErrParse) {
		t.Errorf("a .nan window: %v, want a refusal", err)
	}
}

// A manifest the grammar refuses refuses the recorded machine; a good one
// answers its command.
func TestRecordedRefusesABadManifest(t *testing.T) {
	root := t.TempDir()
	testutil.Must(t, os.MkdirAll(filepath.Join(root, "sys/block"), 0o755))
	testutil.Must(t, os.MkdirAll(filepath.Join(root, "commands"), 0o755))
	testutil.Must(t, os.WriteFile(filepath.Join(root, "commands/manifest.yaml"), []byte("- argv: [dmesg]\n  stdot: dmesg.txt\n"), 0o644))
	if _, err := machine.Recorded(root); !errors.Is(err, machine.ErrParse) {
		t.Fatalf("Recorded: %v, want a refusal", err)
	}
	testutil.Must(t, os.WriteFile(filepath.Join(root, "commands/manifest.yaml"), []byte("- argv: [dmesg]\n  stdout: dmesg.txt\n"), 0o644))
	testutil.Must(t, os.WriteFile(filepath.Join(root, "commands/dmesg.txt"), []byte("[    1.000000] hello\n"), 0o644))
	h, err := machine.Recorded(root)
	if err != nil {
		t.Fatal(err)
	}
	if res, err := h.Run(context.Background(), "dmesg"); err != nil || !strings.Contains(string(res.Stdout), "hello") {
		t.Errorf("dmesg: %q, %v; want the recorded output", res.Stdout, err)
	}
}
