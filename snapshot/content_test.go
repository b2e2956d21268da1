package snapshot

import (
	"bytes"
	"context"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/diskdoctor/diskdoctor/checks"
	"github.com/diskdoctor/diskdoctor/internal/fixturetest"
	"github.com/diskdoctor/diskdoctor/internal/testutil"
	"github.com/diskdoctor/diskdoctor/machine"
	"github.com/diskdoctor/diskdoctor/probes/window"
)

func entryOf(rec *Recording, p string) *Entry {
	for _, e := range rec.Entries {
		if e.Path == p {
			return e
		}
	}
	return nil
}

// Collect writes what the probes read, not what the machine holds when it
// runs: a file changed and a name added after the probes' reads are not in
// the recording, while a path the probes only tested for existence (no
// content reported) is read by Collect itself.
func TestCollectKeepsWhatTheProbesRead(t *testing.T) {
	h := testMachine(t)
	rec := NewRecorder()
	th := h.WithTracer(rec)
	ctx := context.Background()
	if b, err := th.ReadFile(ctx, "/sys/block/sda/queue/write_cache"); err != nil || string(b) != "write back\n" {
		t.Fatalf("write_cache: %q %v", b, err)
	}
	ents, err := th.ReadDir(ctx, "/sys/block")
	if err != nil || len(ents) != 1 {
		t.Fatalf("/sys/block: %v %v", ents, err)
	}
	if !th.Exists("/etc/deep-link") {
		t.Fatal("/etc/deep-link")
	}
	if _, err := th.Readlink("/dev/disk/by-id/wwn-0x" + testWWN); err != nil {
		t.Fatal(err)
	}

	root := h.Root()
	dev := "sys/devices/pci0000:00/0000:00:17.0/ata1/host0/target0:0:0/0:0:0:0/block/sda"
	must := func(err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	must(os.WriteFile(filepath.Join(root, dev, "queue/write_cache"), []byte("write through\n"), 0o644))
	must(os.WriteFile(filepath.Join(root, "sys/block/sdz"), []byte("added later\n"), 0o644))
	must(os.WriteFile(filepath.Join(root, "lib/systemd/system/fstrim.timer"), []byte("[Timer]\nOnCalendar=daily\n"), 0o644))
	link := filepath.Join(root, "dev/disk/by-id/wwn-0x"+testWWN)
	must(os.Remove(link))
	must(os.Symlink("../../elsewhere", link))

	got, err := rec.Collect(ctx, h, CollectOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if e := entryOf(got, dev+"/queue/write_cache"); e == nil || string(e.Data) != "write back\n" {
		t.Errorf("write_cache recorded as %+v, want the content the probe read", e)
	}
	if e := entryOf(got, "sys/block/sdz"); e != nil {
		t.Errorf("sys/block/sdz, added after the probe listed /sys/block, is recorded")
	}
	if e := entryOf(got, "sys/block/sda"); e == nil || e.Type != EntryLink {
		t.Errorf("sys/block/sda: %+v", e)
	}
	if e := entryOf(got, "dev/disk/by-id/wwn-0x"+testWWN); e == nil || e.Target != "../../sda" {
		t.Errorf("by-id link recorded as %+v, want the target the probe read", e)
	}
	// Exists reports no content: Collect reads it, through the link.
	if e := entryOf(got, "lib/systemd/system/fstrim.timer"); e == nil || !strings.Contains(string(e.Data), "OnCalendar") {
		t.Errorf("fstrim.timer recorded as %+v, want Collect's own read", e)
	}
}

// Content the probes read is kept only within what a snapshot member of
// its physical path may hold: 100 KiB read through a link from /etc (1 MiB
// allowed) into /sys (64 KiB) is read again and refused, as before.
func TestCollectBoundsProbeContent(t *testing.T) {
	root := writeTree(t, map[string]string{
		"sys/block/sda/dev": "8:0\n",
		"sys/big":           strings.Repeat("x", 100<<10),
		"etc/big":           "->../sys/big",
	})
	h, err := machine.Recorded(root)
	if err != nil {
		t.Fatal(err)
	}
	rec := NewRecorder()
	if b, err := h.WithTracer(rec).ReadFile(t.Context(), "/etc/big"); err != nil || len(b) != 100<<10 {
		t.Fatalf("/etc/big: %d bytes, %v", len(b), err)
	}
	got, err := rec.Collect(t.Context(), h, CollectOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if e := entryOf(got, "sys/big"); e != nil {
		t.Errorf("sys/big recorded with %d bytes", len(e.Data))
	}
	if !strings.Contains(strings.Join(got.Unreadable, "\n"), "/sys/big:") {
		t.Errorf("sys/big not listed as unreadable: %q", got.Unreadable)
	}
}

// A recorded window's second reading is a machine of its own (samples/1):
// what the probes read there is not content of the first. The cgroup of a
// process that did I/O is read from the second reading only; the recording
// holds the first root's file at that path, as Collect reads it.
func TestCollectKeepsTheWindowsReadingsApart(t *testing.T) {
	dir := t.TempDir()
	testutil.CopyTree(t, dir, filepath.Join(fixturesDir, "nvme-busy-healthy"))
	const firstRoot = "0::/first-root.scope\n"
	if err := os.WriteFile(filepath.Join(dir, "proc/4410/cgroup"), []byte(firstRoot), 0o644); err != nil {
		t.Fatal(err)
	}
	src, err := machine.Recorded(dir)
	if err != nil {
		t.Fatal(err)
	}
	rec := NewRecorder()
	w, err := window.Sample(t.Context(), src.WithTracer(rec), time.Second, nil)
	if err != nil {
		t.Fatal(err)
	}
	if w.End.Procs[4410].Cgroup != "/user.slice/user-1000.slice/session-2.scope" {
		t.Fatalf("the window read pid 4410's cgroup as %q", w.End.Procs[4410].Cgroup)
	}
	got, err := rec.Collect(t.Context(), src, CollectOptions{})
	if err != nil {
		t.Fatal(err)
	}
	first, _ := os.ReadFile(filepath.Join(dir, "proc/diskstats"))
	if e := entryOf(got, "proc/diskstats"); e == nil || !bytes.Equal(e.Data, first) {
		t.Errorf("proc/diskstats is not the first reading: %+v", e)
	}
	if e := entryOf(got, "proc/4410/cgroup"); e == nil || string(e.Data) != firstRoot {
		t.Errorf("proc/4410/cgroup recorded as %+v, want the first root's file", e)
	}
}

// countingTracer counts what Collect reads through its Host.
type countingTracer struct {
	mu    sync.Mutex
	files []string
	dirs  int
}

func (c *countingTracer) Path(string) {}

func (c *countingTracer) Command(machine.CmdResult, error) {}

func (c *countingTracer) Link(string, string) {}

func (c *countingTracer) Resolved(string, string) {}

func (c *countingTracer) Dir(string, []fs.DirEntry) { c.mu.Lock(); c.dirs++; c.mu.Unlock() }

func (c *countingTracer) File(p string, _ []byte) {
	c.mu.Lock()
	c.files = append(c.files, p)
	c.mu.Unlock()
}

// After every check has run on a fixture, Collect reads no file the checks
// read: it reads (through a Host that counts) only the paths they did not.
func TestCollectReadsNoFileTwice(t *testing.T) {
	src, err := machine.Recorded(filepath.Join(fixturesDir, "zfs-resilvering"))
	if err != nil {
		t.Fatal(err)
	}
	rec := NewRecorder()
	if _, err := checks.Run(t.Context(), rec.Attach(src), checks.Options{ProbeTimeout: 5 * time.Second, Context: "auto"}); err != nil {
		t.Fatal(err)
	}
	var count countingTracer
	got, err := rec.Collect(t.Context(), src.WithTracer(&count), CollectOptions{})
	if err != nil {
		t.Fatal(err)
	}
	var files int
	for _, e := range got.Entries {
		if e.Type == EntryFile && e.read {
			files++
		}
	}
	probed := map[string]bool{}
	for p := range rec.files {
		if r, err := src.Resolve(p); err == nil {
			probed[r] = true
		}
	}
	for _, p := range count.files {
		if probed[p] {
			t.Errorf("Collect read %s again", p)
		}
	}
	t.Logf("%d files recorded with content, %d read by the checks, %d by Collect; %d directories listed by Collect", files, len(rec.files), len(count.files), count.dirs)
	// Libraries' reads under Root (cpufreq, DMI) have no content to keep.
	if len(rec.files) == 0 || len(count.files) == 0 || len(count.files) >= files {
		t.Errorf("Collect read %d of the %d files recorded", len(count.files), files)
	}
}

// Collect's collectors capture consecutive chunks of the paths at once and
// are merged: the recording is the one a single collector makes, entries,
// contents, and the order of what could not be read alike (a 4-byte cap
// makes most files unreadable, and a 1-entry cap most listings short, so
// that every chunk has some).
func TestCollectInChunksIsCollectInOrder(t *testing.T) {
	for _, name := range fixtures(t) {
		t.Run(name, func(t *testing.T) {
			src, err := machine.Recorded(filepath.Join(fixturesDir, name))
			if err != nil {
				t.Fatal(err)
			}
			rec := NewRecorder()
			if _, err := checks.Run(t.Context(), rec.Attach(src), checks.Options{ProbeTimeout: time.Second, Context: "auto"}); err != nil {
				t.Fatal(err)
			}
			rec.Wait(t.Context(), 5*time.Second) // a timed-out command is recorded before both
			// A machine recorded from a kernel log alone (an empty
			// /sys/block) has fewer files over 4 bytes to refuse than 2.
			wantUnreadable := 2
			for _, opts := range []CollectOptions{{Redact: true}, {MaxFile: 4, MaxListing: 1}} {
				one, many := opts, opts
				one.collectors, many.collectors = 1, 7
				a, err := rec.Collect(t.Context(), src, one)
				if err != nil {
					t.Fatal(err)
				}
				b, err := rec.Collect(t.Context(), src, many)
				if err != nil {
					t.Fatal(err)
				}
				if got, want := describe(b), describe(a); got != want {
					t.Errorf("MaxFile %d: 7 collectors and one differ\n%s", opts.MaxFile, fixturetest.FirstDiff([]byte(want), []byte(got)))
				}
				if opts.MaxFile == 0 {
					big := 0
					for _, e := range a.Entries {
						if len(e.Data) > 4 && !strings.HasPrefix(e.Path, "commands/") && e.Path != MetaFile {
							big++
						}
					}
					wantUnreadable = min(wantUnreadable, big)
				}
				if opts.MaxFile == 4 && len(a.Unreadable) < wantUnreadable {
					t.Errorf("only %d unreadable paths", len(a.Unreadable))
				}
			}
		})
	}
}

// describe writes out everything a recording holds.
func describe(rec *Recording) string {
	var b strings.Builder
	for _, e := range rec.Entries {
		fmt.Fprintf(&b, "%s %d %q %q %v\n", e.Path, e.Type, e.Target, e.Data, e.read)
	}
	for _, u := range rec.Unreadable {
		fmt.Fprintf(&b, "unreadable %s\n", u)
	}
	for _, c := range rec.Commands {
		fmt.Fprintf(&b, "command %q %q %q %d %v %v\n", c.Argv, c.Stdout, c.Stderr, c.Exit, c.Timeout, c.Missing)
	}
	fmt.Fprintf(&b, "%v %v %q\n", rec.Redacted, rec.RedactedValues, rec.Kernel)
	return b.String()
}
