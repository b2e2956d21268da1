package main

import (
	"os"
	"strings"
	"testing"
	"time"
)

func TestBenchCmdParseDD(t *testing.T) {
	for _, tt := range []struct {
		name  string
		in    string
		bytes int64
		secs  float64
		err   bool
	}{
		{"coreutils 9", "10+0 records in\n10+0 records out\n10485760 bytes (10 MB, 10 MiB) copied, 0.00118826 s, 8.8 GB/s\n", 10485760, 0.00118826, false},
		{"interrupted", "439195+0 records in\n439195+0 records out\n1798942720 bytes (1.8 GB, 1.7 GiB) copied, 0.499783 s, 3.6 GB/s\n", 1798942720, 0.499783, false},
		{"older dd", "1+0 records in\n1+0 records out\n4096 bytes (4.1 kB) copied, 0.000123 s, 33.3 MB/s\n", 4096, 0.000123, false},
		{"one byte", "0+1 records in\n0+1 records out\n1 byte copied, 5e-05 s, 20.0 kB/s\n", 1, 5e-05, false},
		{"progress then summary", "52428800 bytes (52 MB, 50 MiB) copied, 1 s, 52.4 MB/s\r104857600 bytes (105 MB, 100 MiB) copied, 2.0 s, 52.4 MB/s\n", 104857600, 2.0, false},
		{"error only", "dd: failed to open 'x': Permission denied\n", 0, 0, true},
		{"empty", "", 0, 0, true},
		{"garbage numbers", "99999999999999999999999 bytes copied, 1 s, x\n", 0, 0, true},
	} {
		t.Run(tt.name, func(t *testing.T) {
			n, secs, err := benchParseDD([]byte(tt.in))
			if tt.err {
				if err == nil {
					t.Fatalf("want an error, got %d bytes in %v s", n, secs)
				}
				return
			}
			if err != nil || n != tt.bytes || secs != tt.secs {
				t.Errorf("got %d bytes %v s (%v), want %d %v", n, secs, err, tt.bytes, tt.secs)
			}
		})
	}
}

func TestBenchCmdParseSize(t *testing.T) {
	for in, want := range map[string]uint64{"1GiB": 1 << 30, "1g": 1 << 30, "512MiB": 512 << 20, "64m": 64 << 20, "1.5GiB": 3 << 29, "10GB": 9536 << 20, "4194304": 4 << 20, "2 TiB": 2 << 40} {
		got, err := benchParseSize(in)
		if err != nil || got != want {
			t.Errorf("%q: %d (%v), want %d", in, got, err, want)
		}
	}
	for _, in := range []string{"", "abc", "1 parsec", "-1G", "1MiB", "0"} {
		if got, err := benchParseSize(in); err == nil {
			t.Errorf("%q: accepted as %d", in, got)
		}
	}
}

func TestBenchCmdAchievedQD(t *testing.T) {
	for _, tt := range []struct {
		engine   string
		direct   bool
		asked    int
		fioDepth int
		want     int
		why      string
	}{
		{"io_uring", true, 32, 32, 32, ""},
		{"io_uring", true, 8, 8, 8, ""},
		{"psync", true, 32, 1, 1, "synchronous"},
		{"libaio", false, 32, 32, 1, "without O_DIRECT"},
		{"posixaio", true, 32, 4, 4, "iodepth distribution"},
		{"io_uring", true, 1, 1, 1, ""},
		{"io_uring", true, 16, 0, 16, ""},
	} {
		got, why := benchAchievedQD(tt.engine, tt.direct, tt.asked, tt.fioDepth)
		if got != tt.want || !strings.Contains(why, tt.why) {
			t.Errorf("%s direct=%v Q%d (fio %d): Q%d %q", tt.engine, tt.direct, tt.asked, tt.fioDepth, got, why)
		}
	}
}

func TestBenchCmdSweepKnee(t *testing.T) {
	point := func(qd, jobs int, iops, p99 float64) benchRow {
		r := benchRow{Test: benchLabel("rnd", 4096, qd, jobs), QD: qd, Threads: jobs, IOPS: iops}
		r.Lat.P99 = p99
		return r
	}
	// Latency breaks away at load 16: the knee is load 8.
	s := &benchSweep{}
	for _, r := range []benchRow{point(1, 1, 10000, 100), point(2, 1, 19000, 110), point(4, 1, 36000, 130), point(8, 1, 60000, 200)} {
		if s.add(r) {
			t.Fatalf("stopped early at %s", r.Test)
		}
	}
	if !s.add(point(16, 1, 64000, 350)) {
		t.Fatal("p99 3.5× the lowest did not stop the sweep")
	}
	s.finish()
	if !s.Points[3].Knee {
		t.Errorf("knee not marked: %+v", s.Points)
	}
	if s.KneeLoad != 8 || s.Knee != "RND4K Q8T1" || !strings.Contains(s.Reason, "p99 350 µs is 3.5× the lowest (100 µs)") || !strings.Contains(s.Reason, "IOPS +7 %") {
		t.Errorf("knee %d %q: %s", s.KneeLoad, s.Knee, s.Reason)
	}

	// IOPS stop growing before latency breaks: the knee is where the gain
	// fell under 10 %, the sweep goes on until latency breaks or the end.
	s = &benchSweep{}
	for _, r := range []benchRow{point(1, 1, 10000, 100), point(2, 1, 19000, 110), point(4, 1, 20000, 150), point(8, 1, 20500, 250)} {
		if s.add(r) {
			t.Fatalf("stopped at %s", r.Test)
		}
	}
	s.finish()
	if s.KneeLoad != 2 || !strings.Contains(s.Reason, "at RND4K Q4T1") {
		t.Errorf("knee %d: %s", s.KneeLoad, s.Reason)
	}

	// No break-away: no knee, and the reading says to go further.
	s = &benchSweep{}
	s.add(point(1, 1, 10000, 100))
	s.add(point(2, 1, 20000, 100))
	s.finish()
	if s.KneeLoad != 0 || !strings.Contains(s.Reason, "--max-depth") {
		t.Errorf("knee %d: %s", s.KneeLoad, s.Reason)
	}
}

func TestBenchCmdSpecs(t *testing.T) {
	o := benchOptions{profile: "sweep", maxDepth: 256}
	specs := benchSpecs(o)
	if len(specs) != 9 || specs[8].QD != 32 || specs[8].Jobs != 8 || specs[5].QD != 32 || specs[5].Jobs != 1 {
		t.Errorf("sweep specs %+v", specs)
	}
	o = benchOptions{profile: "cdm", steady: true}
	specs = benchSpecs(o)
	if len(specs) != 9 || specs[8].Kind != "steady" || specs[3].Jobs != 16 || specs[3].QD != 32 || specs[4].Op != "write" {
		t.Errorf("cdm specs %+v", specs)
	}
}

func TestBenchCmdProgress(t *testing.T) {
	var buf strings.Builder
	b := &benchRun{progress: &buf, progTotal: 10 * time.Second, progStart: time.Now()}
	stop := b.tick("[3/8] RND4K Q32T1 read", 5*time.Second)
	time.Sleep(300 * time.Millisecond)
	stop(5 * time.Second)
	b.endProgress()
	out := buf.String()
	if !strings.Contains(out, "\r\033[K[3/8] RND4K Q32T1 read: ") || !strings.Contains(out, " / 5s   (all tests: ") || !strings.HasSuffix(out, "\r\033[K") {
		t.Errorf("progress %q", out)
	}
	// No terminal, no progress.
	quiet := &benchRun{}
	quiet.tick("x", time.Second)(time.Second)
	quiet.endProgress()
}

func TestBenchCmdMountHelpers(t *testing.T) {
	if got := benchUnescapeMount(`/mnt/my\040disk\011x`); got != "/mnt/my disk\tx" {
		t.Errorf("unescaped %q", got)
	}
	if got := benchUnescapeMount(`/a\9`); got != `/a\9` {
		t.Errorf("short escape %q", got)
	}
	p := t.TempDir() + "/arcstats"
	if err := os.WriteFile(p, []byte("13 1 0x01 123 33456 1 2\nname                            type data\nhits                            4    1234\nc_max                           4    8589934592\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if got := benchARCMax(p); got != 8<<30 {
		t.Errorf("c_max %d", got)
	}
	if got := benchARCMax(p + ".missing"); got != 0 {
		t.Errorf("no ZFS, c_max %d", got)
	}
	// Device numbers as the kernel encodes them: 254:1, 259:1, 8:256.
	for _, tt := range []struct{ dev, maj, min uint64 }{{0xfe01, 254, 1}, {0x10301, 259, 1}, {0x100800, 8, 256}} {
		if benchMajor(tt.dev) != tt.maj || benchMinor(tt.dev) != tt.min {
			t.Errorf("%#x = %d:%d, want %d:%d", tt.dev, benchMajor(tt.dev), benchMinor(tt.dev), tt.maj, tt.min)
		}
	}
	if !unix0(0x2f) || unix0(0xfe00) {
		t.Error("anonymous device numbers")
	}
}

// The live target: the package directory is on a block device here.
func TestBenchCmdTargetLive(t *testing.T) {
	dir := benchTestDir(t)
	tgt, err := benchResolveTarget(dir, false)
	if err != nil {
		t.Fatal(err)
	}
	pf := benchMeasurePath(t.Context(), tgt, 32<<20, false)
	benchAssertEmpty(t, dir) // the O_DIRECT probe cleaned up
	if pf.FSType == "" || pf.Free == 0 || pf.FSSize < pf.Free || pf.MemTotal == 0 {
		t.Errorf("facts %+v", pf)
	}
	if pf.FSType == "tmpfs" || pf.FSType == "overlay" {
		t.Skipf("the checkout is on %s: no block device to resolve", pf.FSType)
	}
	if pf.Device == "" || len(pf.Disks) == 0 {
		t.Fatalf("no device under %s: %+v", dir, pf)
	}
	for _, d := range pf.Disks {
		if _, err := os.Stat("/sys/block/" + d); err != nil {
			t.Errorf("%s is not a whole disk: %v", d, err)
		}
	}
	if !pf.DirectOK {
		t.Logf("O_DIRECT not honoured here: %s", pf.DirectErr)
	}
}
