package btrfs

import (
	"errors"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/diskdoctor/diskdoctor/machine"
)

func read(t *testing.T, name string) []byte {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// Every unallocated figure of the real captures, and the metadata share:
// the no-room cases (1 MiB on one device, 1.02 MiB on each of a raid1
// pair) and a filesystem with terabytes left and metadata 98.82 % full.
func TestParseUsageCaptures(t *testing.T) {
	for _, c := range []struct {
		file     string
		max      uint64
		metaPct  float64
		profiles []string
	}{
		{"usage-bees-292.txt", 1 << 20, 91.65, []string{"Data single", "Metadata DUP", "System DUP"}},
		{"usage-progs-718.txt", 1069548, 53.53, []string{"Data single", "Metadata single", "System single"}},
		{"usage-bedup-90.txt", 1069548, 86.25, []string{"Data RAID1", "Metadata RAID1", "System RAID1"}},
		{"usage-winbtrfs-524.txt", 11885720696259, 98.82, []string{"Data single", "Metadata RAID1", "System RAID1"}},
	} {
		u, err := ParseUsage(read(t, c.file))
		if err != nil {
			t.Fatalf("%s: %v", c.file, err)
		}
		n, line, ok := u.MaxUnallocated()
		if !ok || n != c.max || line == "" {
			t.Errorf("%s: max unallocated %d %q %v, want %d", c.file, n, line, ok, c.max)
		}
		pct, lines, ok := u.MetadataUsed()
		if !ok || len(lines) == 0 || pct < c.metaPct-0.01 || pct > c.metaPct+0.01 {
			t.Errorf("%s: metadata %.3f %%, want %.2f", c.file, pct, c.metaPct)
		}
		var got []string
		for _, g := range u.Groups {
			got = append(got, g.Type+" "+g.Profile)
		}
		if !slices.Equal(got, c.profiles) {
			t.Errorf("%s: groups %v", c.file, got)
		}
	}
}

// The -b form the fixtures hold parses to the same bytes.
func TestParseUsageRawBytes(t *testing.T) {
	u, err := ParseUsage(read(t, "../../../fixtures/btrfs-metadata-enospc/commands/btrfs-filesystem-usage.txt"))
	if err != nil {
		t.Fatal(err)
	}
	if n, _, _ := u.MaxUnallocated(); n != 1048576 || u.DeviceSize != 549755813888 || !u.HasUnallocated {
		t.Errorf("unallocated %d, size %d", n, u.DeviceSize)
	}
}

func TestParseShowCaptures(t *testing.T) {
	fss, err := ParseShow(read(t, "show-libblockdev-244.txt"))
	if err != nil || len(fss) != 1 {
		t.Fatalf("%v %d", err, len(fss))
	}
	f := fss[0]
	if f.UUID != "25426f60-0a0e-43b7-86f1-0c16cf1e362d" || f.TotalDevices != 2 || !f.SomeMissing || !f.Missing() || !slices.Equal(f.MissingIDs(), []uint64{2}) {
		t.Errorf("libblockdev: %+v missing %v", f, f.MissingIDs())
	}
	// The warning printed while scanning belongs to the filesystem after
	// it, not to the one before.
	fss, err = ParseShow(read(t, "show-rockstor-1416.txt"))
	if err != nil || len(fss) != 2 {
		t.Fatalf("%v %d", err, len(fss))
	}
	if fss[0].Missing() || fss[0].Label != "rockstor_rockstor" {
		t.Errorf("rockstor_rockstor: %+v", fss[0])
	}
	if !fss[1].Missing() || !slices.Equal(fss[1].MissingIDs(), []uint64{3}) || len(fss[1].Devices) != 3 || fss[1].Devices[2].Path != "/dev/sdd" {
		t.Errorf("storage: %+v %v", fss[1], fss[1].MissingIDs())
	}
	fss, err = ParseShow(read(t, "show-douz-657.txt"))
	if err != nil || len(fss) != 1 || fss[0].Missing() || len(fss[0].Devices) != 2 || fss[0].Devices[1].Path != "/dev/mapper/douz_20230802_1" {
		t.Fatalf("douz: %v %+v", err, fss)
	}
	// btrfs-progs 5.x and later mark a missing device on its line.
	fss, _ = ParseShow([]byte("Label: none  uuid: 3e55fdcf-d219-46a7-b8ce-400b38c35293\n\tTotal devices 2 FS bytes used 1.07GiB\n\tdevid    1 size 3.59GiB used 2.19GiB path /dev/sdb2\n\tdevid    2 size 0 used 0 path <missing disk #2> MISSING\n"))
	if len(fss) != 1 || !slices.Equal(fss[0].MissingIDs(), []uint64{2}) {
		t.Errorf("MISSING line: %+v", fss)
	}
}

func TestParseStatsCaptures(t *testing.T) {
	st, err := ParseStats(read(t, "stats-progs-585.txt"))
	if err != nil || len(st) != 2 {
		t.Fatalf("%v %d", err, len(st))
	}
	if s := st[1]; s.Path != "/dev/sdb1" || s.Write != 7489899 || s.Read != 3751023 || s.Flush != 117 || s.Corrupt != 68 || s.Generation != 25 || len(s.Lines) != 5 {
		t.Errorf("%+v", s)
	}
	if st[0].Sum() != 0 {
		t.Errorf("sdc1 %+v", st[0])
	}
	st, err = ParseStats(read(t, "stats-progs-965.txt"))
	if err != nil || len(st) != 4 || st[3].Path != "/dev/mapper/sda_crypt" || st[3].Write != 17876972 {
		t.Fatalf("%v %+v", err, st)
	}
	if _, err := ParseStats([]byte("ERROR: not a btrfs filesystem\n")); !errors.Is(err, machine.ErrParse) {
		t.Errorf("no counters: %v", err)
	}
}

func TestParseScrubCaptures(t *testing.T) {
	for _, c := range []struct {
		file    string
		running bool
		state   string
	}{
		{"scrub-running-227.txt", true, "running"},
		{"scrub-finished-636.txt", false, "finished"},
		{"scrub-aborted-666.txt", false, "aborted"},
		{"scrub-old-177.txt", true, "running"},
	} {
		s, err := ParseScrub(read(t, c.file))
		if err != nil || s.Running != c.running || s.State != c.state || s.Line == "" {
			t.Errorf("%s: %v %+v", c.file, err, s)
		}
	}
	// Several devices (-d): one still running makes the scrub run.
	s, err := ParseScrub([]byte("Scrub device /dev/sds1 (id 25) history\nScrub started:    Sat Nov  8 12:21:39 2025\nStatus:           finished\nBytes scrubbed:   372.23GiB  (100.00%)\n\nScrub device /dev/sdaa1 (id 26)\nStatus:           running\nBytes scrubbed:   100.00GiB  (29.06%)\n"))
	if err != nil || !s.Running || s.Percent != 100 {
		t.Errorf("%v %+v", err, s)
	}
	if s, err := ParseScrub([]byte("UUID:             f47201d4-2b74-45c3-a332-b7ff8187ce63\n\tno stats available\n")); err != nil || s.Running {
		t.Errorf("never scrubbed: %v %+v", err, s)
	}
}

func TestParseBalance(t *testing.T) {
	b, err := ParseBalance(read(t, "balance-progress-654.txt"))
	if err != nil || !b.Running || b.Progress == "" {
		t.Errorf("progress only: %v %+v", err, b)
	}
	// btrfs-progs cmds/balance.c's words.
	b, err = ParseBalance([]byte("Balance on '/mnt' is running\n3 out of about 10 chunks balanced (4 considered),  70% left\n"))
	if err != nil || !b.Running || b.Paused || b.Progress != "3 out of about 10 chunks balanced (4 considered),  70% left" {
		t.Errorf("running: %v %+v", err, b)
	}
	b, err = ParseBalance([]byte("Balance on '/mnt' is paused\n3 out of about 10 chunks balanced (4 considered),  70% left\n"))
	if err != nil || b.Running || !b.Paused {
		t.Errorf("paused: %v %+v", err, b)
	}
	b, err = ParseBalance([]byte("No balance found on '/mnt'\n"))
	if err != nil || b.Running || b.Paused {
		t.Errorf("none: %v %+v", err, b)
	}
	if _, err := ParseBalance([]byte("ERROR: cannot access '/mnt': No such file or directory\n")); !errors.Is(err, machine.ErrParse) {
		t.Errorf("error text: %v", err)
	}
}

// devinfo/<id>/error_stats as fs/btrfs/sysfs.c prints it; "invalid" when
// the counters could not be read.
func TestParseErrorStats(t *testing.T) {
	s := ParseErrorStats([]byte("write_errs 0\nread_errs 14571\nflush_errs 0\ncorruption_errs 0\ngeneration_errs 0\n"))
	if s == nil || s.Read != 14571 || len(s.Lines) != 5 {
		t.Errorf("%+v", s)
	}
	if ParseErrorStats([]byte("invalid\n")) != nil {
		t.Error("invalid read as counters")
	}
}

func TestSize(t *testing.T) {
	for in, want := range map[string]uint64{"1048576": 1 << 20, "1.00MiB": 1 << 20, "0.00B": 0, "512.00GiB": 512 << 30, "2.50KiB": 2560} {
		if got, ok := Size(in); !ok || got != want {
			t.Errorf("%q: %d %v", in, got, ok)
		}
	}
	for _, in := range []string{"", "GiB", "1.0XiB", "-1GiB", "1e400GiB", "99999999999EiB"} {
		if _, ok := Size(in); ok {
			t.Errorf("%q accepted", in)
		}
	}
}
