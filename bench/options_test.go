package bench

import (
	"strings"
	"testing"
	"time"
)

func TestParseDD(t *testing.T) {
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
			n, secs, err := ParseDD([]byte(tt.in))
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

func TestParseSize(t *testing.T) {
	for in, want := range map[string]uint64{"1GiB": 1 << 30, "1g": 1 << 30, "4G": 4 << 30, "4g": 4 << 30, "512MiB": 512 << 20, "64m": 64 << 20, "64M": 64 << 20,
		"1.5GiB": 3 << 29, "10GB": 9536 << 20, "4194304": 4 << 20, "2 TiB": 2 << 40, "1t": 1 << 40, "256mib": 256 << 20} {
		got, err := ParseSize(in)
		if err != nil || got != want {
			t.Errorf("%q: %d (%v), want %d", in, got, err, want)
		}
	}
	for _, in := range []string{"", "abc", "1 parsec", "-1G", "1MiB", "0"} {
		if got, err := ParseSize(in); err == nil {
			t.Errorf("%q: accepted as %d", in, got)
		}
	}
}

func TestAchievedQD(t *testing.T) {
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
		got, why := AchievedQD(tt.engine, tt.direct, tt.asked, tt.fioDepth)
		if got != tt.want || !strings.Contains(why, tt.why) {
			t.Errorf("%s direct=%v Q%d (fio %d): Q%d %q", tt.engine, tt.direct, tt.asked, tt.fioDepth, got, why)
		}
	}
}

func TestSweepKnee(t *testing.T) {
	point := func(qd, jobs int, iops, p99 float64) Row {
		r := Row{Test: Label("rnd", 4096, qd, jobs), QD: qd, Threads: jobs, IOPS: iops}
		r.Lat.P99 = p99
		return r
	}
	// Latency breaks away at load 16: the knee is load 8.
	s := &Sweep{}
	for _, r := range []Row{point(1, 1, 10000, 100), point(2, 1, 19000, 110), point(4, 1, 36000, 130), point(8, 1, 60000, 200)} {
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
	s = &Sweep{}
	for _, r := range []Row{point(1, 1, 10000, 100), point(2, 1, 19000, 110), point(4, 1, 20000, 150), point(8, 1, 20500, 250)} {
		if s.add(r) {
			t.Fatalf("stopped at %s", r.Test)
		}
	}
	s.finish()
	if s.KneeLoad != 2 || !strings.Contains(s.Reason, "at RND4K Q4T1") {
		t.Errorf("knee %d: %s", s.KneeLoad, s.Reason)
	}

	// No break-away: no knee, and the reading says to go further.
	s = &Sweep{}
	s.add(point(1, 1, 10000, 100))
	s.add(point(2, 1, 20000, 100))
	s.finish()
	if s.KneeLoad != 0 || !strings.Contains(s.Reason, "--max-depth") {
		t.Errorf("knee %d: %s", s.KneeLoad, s.Reason)
	}
}

func TestSpecs(t *testing.T) {
	o := Options{Profile: "sweep", MaxDepth: 256}
	specs := Specs(o)
	if len(specs) != 9 || specs[8].QD != 32 || specs[8].Jobs != 8 || specs[5].QD != 32 || specs[5].Jobs != 1 {
		t.Errorf("sweep specs %+v", specs)
	}
	o = Options{Profile: "cdm", Steady: true}
	specs = Specs(o)
	if len(specs) != 9 || specs[8].Kind != "steady" || specs[3].Jobs != 16 || specs[3].QD != 32 || specs[4].Op != "write" {
		t.Errorf("cdm specs %+v", specs)
	}
}

func TestProgress(t *testing.T) {
	var buf strings.Builder
	b := &run{progress: &buf, progTotal: 10 * time.Second, progStart: time.Now()}
	stop := b.tick("[3/8] RND4K Q32T1 read", 5*time.Second)
	time.Sleep(300 * time.Millisecond)
	stop()
	b.endProgress()
	out := buf.String()
	if !strings.Contains(out, "\r\033[K[3/8] RND4K Q32T1 read: ") || !strings.Contains(out, " / 5s   (all tests: ") || !strings.HasSuffix(out, "\r\033[K") {
		t.Errorf("progress %q", out)
	}
	// No terminal, no progress.
	quiet := &run{}
	quiet.tick("x", time.Second)()
	quiet.endProgress()
}

func TestParseRuntime(t *testing.T) {
	for in, want := range map[string]time.Duration{"10": 10 * time.Second, "3": 3 * time.Second, "1.5": 1500 * time.Millisecond, "5s": 5 * time.Second, "1m30s": 90 * time.Second} {
		got, err := ParseRuntime(in)
		if err != nil || got != want {
			t.Errorf("%q: %v (%v), want %v", in, got, err, want)
		}
	}
	for _, in := range []string{"", "ten", "-1", "0", "5 parsecs"} {
		if got, err := ParseRuntime(in); err == nil {
			t.Errorf("%q: accepted as %v", in, got)
		}
	}
}

func TestSizeRoundTrip(t *testing.T) {
	for _, n := range []uint64{4 << 20, 1 << 30, 64 << 30, 3 << 29} {
		back, err := ParseSize(SizeArg(n))
		if err != nil || back != n {
			t.Errorf("%d -> %q -> %d (%v)", n, SizeArg(n), back, err)
		}
	}
}

func TestStalePID(t *testing.T) {
	for name, want := range map[string]int{".diskdoctor-bench-123.tmp": 123, ".diskdoctor-bench-123.tmp.src": 123, ".diskdoctor-bench-x.tmp": 0, "diskdoctor-bench-5.tmp": 0, ".diskdoctor-bench-0.tmp": 0} {
		got, ok := stalePID(name)
		if (want == 0) == ok || got != want && ok {
			t.Errorf("%s: %d %v", name, got, ok)
		}
	}
}

func TestPrintable(t *testing.T) {
	if got := printable("x\x1b[2J\x1b[HREADY\u009b\x7f"); got != "x?[2J?[HREADY??" {
		t.Errorf("%q", got)
	}
}
