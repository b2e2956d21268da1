package zfs

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/diskdoctor/diskdoctor/internal/testutil"
	"github.com/diskdoctor/diskdoctor/machine"
)

func TestParseZpoolStatusSamples(t *testing.T) {
	type want struct {
		pools    []string // name=STATE
		scan     []string // per pool: scan function, "" for none requested
		problems []string // leaf vdevs not ONLINE/AVAIL, as name=STATE
		classes  []string // class headers seen (logs, cache, spares)
		leaves   int
	}
	tests := map[string]want{
		"status-illumos-degraded-with-log.txt": {
			pools: []string{"zones=DEGRADED"}, scan: []string{"scrub"},
			problems: []string{"9669136929555758172=UNAVAIL"}, classes: []string{"logs"}, leaves: 5,
		},
		"status-o3x-scrub-canceled.txt": {
			pools: []string{"zhgstera6=ONLINE", "zint500=ONLINE", "zsam53=ONLINE"}, scan: []string{"scrub", "scrub", "scrub"}, leaves: 3,
		},
		"status-openzfs-features-upgrade-mirrors.txt": {
			pools: []string{"pool1=ONLINE"}, scan: []string{"scrub"}, leaves: 4,
		},
		"status-openzfs2-healthy-raidz1-nvme-mirror.txt": {
			pools: []string{"pool0=ONLINE", "pool1=ONLINE"}, scan: []string{"scrub", "scrub"}, leaves: 5,
		},
		"status-solaris-degraded-and-unavail.txt": {
			pools: []string{"rpool=DEGRADED", "zpool=UNAVAIL"}, scan: []string{"resilver", ""},
			problems: []string{"c4d1s0=UNAVAIL", "c3d1s0=UNAVAIL", "c4d1p2=UNAVAIL", "c3d1p2=UNAVAIL"}, leaves: 6,
		},
		"status-zol-degraded-spare-inuse.txt": {
			pools: []string{"test=DEGRADED"}, scan: []string{"resilver"},
			problems: []string{"16876260487220383698=FAULTED"}, classes: []string{"spares"}, leaves: 9,
		},
	}
	dir := filepath.Join(testutil.SharedSamples(), "zpool")
	files, _ := filepath.Glob(filepath.Join(dir, "status-*.txt"))
	if len(files) == 0 {
		t.Skipf("no zpool status samples in %s", dir)
	}
	for _, f := range files {
		name := filepath.Base(f)
		t.Run(name, func(t *testing.T) {
			w, ok := tests[name]
			if !ok {
				t.Fatalf("new sample %s: add its expectations", name)
			}
			st, err := ParseStatus(testutil.ReadSample(t, "zpool/"+name))
			if err != nil {
				t.Fatal(err)
			}
			var pools, scans, problems, classes []string
			leaves := 0
			for _, p := range st.Pools {
				pools = append(pools, p.Name+"="+p.State)
				scans = append(scans, p.Scan.Function)
				if p.Scan.InProgress {
					t.Errorf("%s: no scan is in progress in this sample", p.Name)
				}
				if p.DataErrors != 0 && p.Errors != "" {
					t.Errorf("%s: data errors %d from %q", p.Name, p.DataErrors, p.Errors)
				}
				for _, v := range p.Vdevs {
					if v.Class != "data" && !containsStr(classes, v.Class) {
						classes = append(classes, v.Class)
					}
					if !v.Leaf {
						continue
					}
					leaves++
					if v.State != "ONLINE" && v.State != "AVAIL" {
						problems = append(problems, v.Name+"="+v.State)
					}
				}
			}
			if strings.Join(pools, " ") != strings.Join(w.pools, " ") {
				t.Errorf("pools = %v, want %v", pools, w.pools)
			}
			if strings.Join(scans, " ") != strings.Join(w.scan, " ") {
				t.Errorf("scans = %q, want %q", scans, w.scan)
			}
			if strings.Join(problems, " ") != strings.Join(w.problems, " ") {
				t.Errorf("problem leaves = %v, want %v", problems, w.problems)
			}
			if strings.Join(classes, " ") != strings.Join(w.classes, " ") {
				t.Errorf("classes = %v, want %v", classes, w.classes)
			}
			if leaves != w.leaves {
				t.Errorf("%d leaves, want %d", leaves, w.leaves)
			}
		})
	}
}

func TestParseZpoolStatusDetails(t *testing.T) {
	// The ZoL sample: a spare in use inside a mirror, a missing member
	// shown by GUID with the path it had.
	st, err := ParseStatus(testutil.ReadSample(t, "zpool/status-zol-degraded-spare-inuse.txt"))
	testutil.Must(t, err)
	p := st.Pool("test")
	var missing *Vdev
	for _, v := range p.Vdevs {
		if v.Name == "16876260487220383698" {
			missing = v
		}
	}
	if missing == nil || missing.Was != "/dev/disk/by-path/pci-0000:00:0d.0-scsi-12:0:0:0-part1" || missing.TopLevel != "mirror-0" || missing.Depth != 3 {
		t.Errorf("missing member = %+v", missing)
	}
	if p.Vdevs[1].Name != "spare-0" || p.Vdevs[1].Read != 1 || p.Vdevs[2].Cksum != 1 {
		t.Errorf("counters: %+v %+v", p.Vdevs[1], p.Vdevs[2])
	}
	if !strings.HasPrefix(p.Status, "One or more devices could not be used because the label is missing or invalid.") {
		t.Errorf("status = %q", p.Status)
	}
}

func TestParseZpoolStatusInProgress(t *testing.T) {
	resilver := "  pool: backup\n state: DEGRADED\nstatus: One or more devices is currently being resilvered.  The pool will\n\tcontinue to function, possibly in a degraded state.\naction: Wait for the resilver to complete.\n" +
		"  scan: resilver in progress since Sun Nov 29 16:12:40 2026\n\t1.91T / 2.86T scanned at 317M/s, 1.22T / 2.86T issued at 203M/s\n\t1.22T resilvered, 42.63% done, 02:21:05 to go\nconfig:\n\n" +
		"\tNAME             STATE     READ WRITE CKSUM\n\tbackup           DEGRADED     0     0     0\n\t  mirror-0       DEGRADED     0     0     0\n\t    sdb1         ONLINE       0     0     0  (trim unsupported)\n" +
		"\t    replacing-1  DEGRADED     0     0     0\n\t      902336721  UNAVAIL      0     0     0  was /dev/sdd1\n\t      sdc1       ONLINE       0     0     0  (resilvering)\n\nerrors: No known data errors\n"
	st, err := ParseStatus([]byte(resilver))
	testutil.Must(t, err)
	s := st.Pools[0].Scan
	if !s.InProgress || s.Function != "resilver" || !s.HasPercent || s.Percent != 42.63 || s.RateText != "203M/s" || s.ToGo != "02:21:05" || s.Since != "Sun Nov 29 16:12:40 2026" {
		t.Errorf("scan = %+v", s)
	}
	if s.IssuedRate != 203*(1<<20) || s.Done != "1.22T resilvered" {
		t.Errorf("rate %v done %q", s.IssuedRate, s.Done)
	}
	leaves := st.Pools[0].Leaves()
	if len(leaves) != 3 || !leaves[2].Resilvering || leaves[0].Trim.State != "unsupported" || leaves[1].Was != "/dev/sdd1" {
		t.Errorf("leaves = %+v %+v %+v", leaves[0], leaves[1], leaves[2])
	}

	// OpenZFS 0.8-2.0 scan lines, a scrub with no estimate, and -t trim states.
	old := "  pool: tank\n state: ONLINE\n  scan: scrub in progress since Sat Nov 28 01:00:01 2026\n\t812G scanned at 1.02G/s, 301G issued at 388M/s, 2.10T total\n\t0B repaired, 14.00% done, no estimated completion time\nconfig:\n\n" +
		"\tNAME        STATE     READ WRITE CKSUM\n\ttank        ONLINE       0     0     0\n\t  mirror-0  ONLINE       0     0     0\n" +
		"\t    sda     ONLINE       0     0     0  (2% trimmed, started at Sun Nov 29 17:58:12 2026)\n\t    sdb     ONLINE       0     0     0  (100% trimmed, completed at Sun Nov 29 18:58:12 2026)\n" +
		"\tlogs\n\t  nvme0n1   ONLINE       0     0     0  (40% trimmed, suspended, started at Sun Nov 29 17:00:00 2026)\n\tcache\n\t  sdc       ONLINE       0     0     0  (untrimmed)\n\nerrors: 3 data errors, use '-v' for a list\n"
	st, err = ParseStatus([]byte(old))
	testutil.Must(t, err)
	p := st.Pools[0]
	if !p.Scan.InProgress || p.Scan.Function != "scrub" || p.Scan.Percent != 14 || p.Scan.ToGo != "no estimated completion time" || p.Scan.RateText != "388M/s" {
		t.Errorf("scan = %+v", p.Scan)
	}
	if p.DataErrors != 3 {
		t.Errorf("data errors = %d", p.DataErrors)
	}
	got := map[string]string{}
	for _, v := range p.Leaves() {
		got[v.Name] = v.Class + "/" + v.Trim.State
	}
	want := map[string]string{"sda": "data/active", "sdb": "data/complete", "nvme0n1": "logs/suspended", "sdc": "cache/untrimmed"}
	for k, v := range want {
		if got[k] != v {
			t.Errorf("%s = %q, want %q", k, got[k], v)
		}
	}
	if p.Leaves()[0].Trim.Percent != 2 || p.Leaves()[0].Trim.Since != "Sun Nov 29 17:58:12 2026" {
		t.Errorf("trim = %+v", p.Leaves()[0].Trim)
	}
}

func TestParseZpoolStatusMalformed(t *testing.T) {
	for name, in := range map[string]string{
		"empty":       "",
		"garbage":     "\x00\xff\x01 not zpool\n",
		"config only": "config:\n\tNAME STATE\n",
	} {
		if _, err := ParseStatus([]byte(in)); !errors.Is(err, machine.ErrParse) {
			t.Errorf("%s: err = %v, want ErrParse", name, err)
		}
	}
	st, err := ParseStatus([]byte("no pools available\n"))
	if err != nil || len(st.Pools) != 0 {
		t.Errorf("no pools: %+v %v", st, err)
	}
	// Truncated in the middle of the table: what was read is kept.
	st, err = ParseStatus([]byte("  pool: p\n state: ONLINE\nconfig:\n\n\tNAME STATE READ WRITE CKSUM\n\tp ONLINE 0 0 0\n\t  sd"))
	if err != nil || len(st.Pools[0].Vdevs) != 1 || st.Pools[0].Vdevs[0].Name != "sd" {
		t.Errorf("truncated: %+v %v", st, err)
	}
}

func TestParseZpoolIostat(t *testing.T) {
	b, err := os.ReadFile("../../fixtures/hpe-microserver-writethrough/commands/zpool-iostat-HpPvly-1-1.txt")
	testutil.Must(t, err)
	rows, err := ParseIostat(b)
	testutil.Must(t, err)
	AssignPools(rows, []string{"storage"})
	if len(rows) != 5 || rows[4].Pool != "storage" {
		t.Fatalf("rows = %d", len(rows))
	}
	r := rows[2]
	if r.Alloc != nil || *r.WriteOps != 121 || *r.WriteBytes != 7937720 || *r.DiskWaitWrite != 68211940 || *r.TotalWaitWrite != 262107468 || r.AsyncqWaitRead != nil || *r.AsyncqWaitWrite != 191482711 {
		t.Errorf("member row = %+v", r)
	}
	// Two pools: scripted output has no indentation; pool rows start blocks.
	two := "a\t1\t2\t0\t0\t0\t0\t-\t-\t-\t-\nmirror-0\t1\t2\t0\t0\t0\t0\t-\t-\t-\t-\nb\t1\t2\t0\t0\t0\t0\t-\t-\t-\t-\nmirror-0\t1\t2\t0\t0\t0\t0\t-\t-\t-\t-\n"
	rows, err = ParseIostat([]byte(two))
	testutil.Must(t, err)
	AssignPools(rows, []string{"a", "b"})
	if rows[1].Pool != "a" || rows[3].Pool != "b" {
		t.Errorf("pools: %s %s", rows[1].Pool, rows[3].Pool)
	}
	for name, in := range map[string]string{
		"too few columns": "tank\t1\t2\n",
		"human units":     "tank\t2.89T\t2.20T\t0\t2\t349K\t448K\n",
		"negative":        "tank\t1\t2\t-5\t0\t0\t0\n",
		"no name":         "\t1\t2\t0\t0\t0\t0\n",
	} {
		if _, err := ParseIostat([]byte(in)); !errors.Is(err, machine.ErrParse) {
			t.Errorf("%s: err = %v, want ErrParse", name, err)
		}
	}
	// The human (non-scripted) format of a real `zpool iostat -v` is refused
	// with a parse error, not misread.
	if _, err := ParseIostat(testutil.ReadSample(t, "zpool/iostat-v-o3x.txt")); !errors.Is(err, machine.ErrParse) {
		t.Errorf("human iostat: err = %v, want ErrParse", err)
	}
	if rows, err := ParseIostat(nil); err != nil || len(rows) != 0 {
		t.Errorf("empty: %v %v", rows, err)
	}
}

func TestParseZfsGet(t *testing.T) {
	in := "tank\tsync\tstandard\ntank/db\tsync\talways\ntank/db\tlogbias\tlatency\ntank/db\trecordsize\t16384\nbad line\n\t\t\nx y\tsync\talways\nboot-pool\tcompression\tlz4\t-\n"
	p := ParseGet([]byte(in))
	if p["tank/db"]["sync"] != "always" || p["tank/db"]["recordsize"] != "16384" || p["boot-pool"]["compression"] != "lz4" || len(p) != 3 {
		t.Errorf("props = %v", p)
	}
	bp := p.ByPool()
	if strings.Join(bp["tank"], ",") != "tank,tank/db" {
		t.Errorf("by pool = %v", bp)
	}
}

func TestParseZFSSize(t *testing.T) {
	for in, want := range map[string]float64{"512": 512, "4.5K": 4608, "203M": 203 << 20, "1.22T": 1.22 * (1 << 40), "247GB": 247 << 30, "0B": 0} {
		if got, ok := ParseSize(in); !ok || got != want {
			t.Errorf("ParseZFSSize(%q) = %v, %v; want %v", in, got, ok, want)
		}
	}
	for _, bad := range []string{"", "K", "-1M", "x", "NaN"} {
		if _, ok := ParseSize(bad); ok {
			t.Errorf("ParseZFSSize(%q) accepted", bad)
		}
	}
}

func containsStr(s []string, x string) bool {
	for _, v := range s {
		if v == x {
			return true
		}
	}
	return false
}

// ZFS on Linux 0.7 prints one rate ("scanned out of 1.03T at 2.42M/s")
// and its estimate as "123h32m to go" (a real capture:
// fixtures/corpus/zpool-zol-2019-mirror-resilver-unavail).
func TestParseZpoolStatusZoL07Scan(t *testing.T) {
	b, err := os.ReadFile("../../fixtures/corpus/zpool-zol-2019-mirror-resilver-unavail/zpool-status.txt")
	testutil.Must(t, err)
	st, err := ParseStatus(b)
	testutil.Must(t, err)
	s := st.Pools[0].Scan
	if !s.InProgress || s.Percent != 0.01 || s.RateText != "2.42M/s" || s.ToGo != "123h32m" {
		t.Errorf("scan = %+v: want 0.01 %% done at 2.42M/s, 123h32m to go", s)
	}
}
