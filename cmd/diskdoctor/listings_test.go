package main

// Issue #26: no directory is listed once per device. A whole run of the
// doctor on synthetic machines of 100, 1,000 and 4,000 disks, through a
// Host that counts what it is asked to read: the listings, opens and link
// reads per device must not grow with the machine, and no directory may
// be listed more than a few times in a run. Counts, not time: a shared
// machine's noise cannot fail it, and a quadratic step cannot hide in it.

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

	"github.com/diskdoctor/diskdoctor/doctor"
	"github.com/diskdoctor/diskdoctor/machine"
)

// accessCounter is a machine.ContentTracer that counts: every path a probe
// asks for (a file, a listing, a link, a path resolved or tested, each
// match of a glob), and the listings per directory.
type accessCounter struct {
	mu                      sync.Mutex
	paths, opens, lists, rl int
	listed                  map[string]int
}

func (c *accessCounter) Path(string) {
	c.mu.Lock()
	c.paths++
	c.mu.Unlock()
}

func (c *accessCounter) Command(machine.CmdResult, error) {}

func (c *accessCounter) File(string, []byte) {
	c.mu.Lock()
	c.opens++
	c.mu.Unlock()
}

func (c *accessCounter) Dir(p string, _ []fs.DirEntry) {
	c.mu.Lock()
	c.lists++
	c.listed[p]++
	c.mu.Unlock()
}

func (c *accessCounter) Link(string, string) {
	c.mu.Lock()
	c.rl++
	c.mu.Unlock()
}

// stripUdevByID removes the /dev/disk/by-id links from every udev record
// of a recorded machine, keeping the links themselves: a recording whose
// udev database does not name them (one made from `ls -l /dev/disk/by-id`
// without /run/udev/data), so that every disk looks its links up in
// /dev/disk/by-id, the layout of issue #26.
func stripUdevByID(dir string) error {
	recs := filepath.Join(dir, "run/udev/data")
	ents, err := os.ReadDir(recs)
	if err != nil {
		return err
	}
	for _, e := range ents {
		p := filepath.Join(recs, e.Name())
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		var out []string
		for _, l := range strings.SplitAfter(string(b), "\n") {
			if !strings.HasPrefix(l, "S:disk/by-id/") {
				out = append(out, l)
			}
		}
		if err := os.WriteFile(p, []byte(strings.Join(out, "")), 0o644); err != nil {
			return err
		}
	}
	return nil
}

type accessCounts struct {
	devices                       int
	paths, opens, lists, readlink int
	mostListed                    string
	mostListedN                   int
}

func (a accessCounts) perDevice(v int) float64 { return float64(v) / float64(a.devices) }

func countAccesses(t *testing.T, n int, strip bool) accessCounts {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "m")
	if err := writeSyntheticMachine(dir, n); err != nil {
		t.Fatal(err)
	}
	if strip {
		if err := stripUdevByID(dir); err != nil {
			t.Fatal(err)
		}
	}
	defer os.RemoveAll(dir)
	devs, err := os.ReadDir(filepath.Join(dir, "sys/block"))
	if err != nil {
		t.Fatal(err)
	}
	h, err := machine.Recorded(dir)
	if err != nil {
		t.Fatal(err)
	}
	c := &accessCounter{listed: map[string]int{}}
	res, err := doctor.Run(context.Background(), h.WithTracer(c), doctor.Options{Root: dir, ProbeTimeout: 10 * time.Minute})
	if err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	if len(res.Report.Skipped) > 0 {
		fmt.Fprintf(&out, "%d skipped entries, first %s", len(res.Report.Skipped), res.Report.Skipped[0].Check)
		t.Fatalf("%d disks: %s: the synthetic machine lacks something the doctor reads", n, out.String())
	}
	a := accessCounts{devices: len(devs), paths: c.paths, opens: c.opens, lists: c.lists, readlink: c.rl}
	for p, k := range c.listed {
		if k > a.mostListedN || k == a.mostListedN && p < a.mostListed {
			a.mostListed, a.mostListedN = p, k
		}
	}
	return a
}

// TestListingsGrowWithTheDevices: at 25 and 100 disks in the suite (a
// directory listed once per device is then listed four times as often per
// device, and more than 8 times in one run) on the layout with udev's
// links only under /dev/disk/by-id, and at 100, 1,000 and 4,000 on both
// layouts under make bench (DISKDOCTOR_BENCH=1), where writing the
// 4,000-disk machine takes minutes of the 2-core machine's system time.
func TestListingsGrowWithTheDevices(t *testing.T) {
	t.Parallel()
	type machineLayout struct {
		name  string
		strip bool // udev's records without their S:disk/by-id/ lines
	}
	sizes, layouts := []int{25, 100}, []machineLayout{{"links only in /dev/disk/by-id", true}}
	if os.Getenv("DISKDOCTOR_BENCH") == "1" {
		sizes = []int{100, 1000, 4000}
		layouts = append(layouts, machineLayout{"udev's links in its records", false})
	}
	for _, layout := range layouts {
		t.Run(layout.name, func(t *testing.T) {
			var base accessCounts
			for i, n := range sizes {
				a := countAccesses(t, n, layout.strip)
				t.Logf("%d disks (%d block devices): per device %.1f paths, %.1f opens, %.2f listings, %.2f link reads; most listed %s (%d times)",
					n, a.devices, a.perDevice(a.paths), a.perDevice(a.opens), a.perDevice(a.lists), a.perDevice(a.readlink), a.mostListed, a.mostListedN)
				// A directory listed once per device is listed about as
				// many times as there are devices; a few listings of one
				// directory (the inventory read by two checks) are not.
				if a.mostListedN > 8 {
					t.Errorf("%d disks: %s listed %d times in one run", n, a.mostListed, a.mostListedN)
				}
				if i == 0 {
					base = a
					continue
				}
				// Per device, the counts may grow a little (the
				// machine-wide files are spread over more devices the
				// other way), never with the number of devices.
				for _, c := range []struct {
					what       string
					got, first int
				}{{"paths", a.paths, base.paths}, {"opens", a.opens, base.opens}, {"listings", a.lists, base.lists}, {"link reads", a.readlink, base.readlink}} {
					if r := a.perDevice(c.got) / base.perDevice(c.first); r > 1.25 {
						t.Errorf("%d disks: %s per device %.2f, %.2fx the %d-disk machine's %.2f: they grow faster than the devices",
							n, c.what, a.perDevice(c.got), r, sizes[0], base.perDevice(c.first))
					}
				}
			}
		})
	}
}
