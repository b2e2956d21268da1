package main

// Issue #12's measurement: diskdoctor bench against fio run by hand as the
// --dry-run output says (prepare the test file with its recipe, then one
// `fio --section=NAME` per job, in its order), in alternating rounds, on a
// directory the caller names. Figures, not pass/fail:
//
//	DISKDOCTOR_BENCH_FIO_DIR=/mnt/x go test -count=1 -timeout 60m \
//	    -run TestBenchAgainstHandRunFio -v ./cmd/diskdoctor   (make bench-fio DIR=/mnt/x)

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"
)

func TestBenchAgainstHandRunFio(t *testing.T) {
	dir := os.Getenv("DISKDOCTOR_BENCH_FIO_DIR")
	if dir == "" {
		t.Skip("set DISKDOCTOR_BENCH_FIO_DIR to a directory on the disk to measure (make bench-fio DIR=...)")
	}
	if _, err := exec.LookPath("fio"); err != nil {
		t.Skip("fio is not installed")
	}
	rounds := 5
	if n, err := strconv.Atoi(os.Getenv("DISKDOCTOR_BENCH_FIO_ROUNDS")); err == nil && n > 0 {
		rounds = n
	}
	profile := os.Getenv("DISKDOCTOR_BENCH_FIO_PROFILE")
	if profile == "" {
		profile = "cdm"
	}
	bin := binary
	args := []string{"--profile", profile, "--size", "512m", "--runtime", "3"}
	doctor := &samples{rows: map[string][]float64{}}
	byHand := &samples{rows: map[string][]float64{}}
	var load []float64
	began := time.Now().UTC()
	// DISKDOCTOR_BENCH_FIO_FOR (make bench-fio FOR=20m) bounds the time:
	// the rounds stop before two more would end after it, so that their
	// number stays odd and the median is a sample.
	budget, _ := time.ParseDuration(os.Getenv("DISKDOCTOR_BENCH_FIO_FOR"))
	done := 0
	for r := range rounds {
		if spent := time.Since(began); budget > 0 && r%2 == 1 && spent+2*spent/time.Duration(r) > budget {
			break
		}
		// Alternate which goes first, so that neither always meets a warm
		// or a tired disk.
		steps := []func(){
			func() { collectDoctor(t, bin, dir, args, doctor) },
			func() { collectByHand(t, bin, dir, args, byHand) },
		}
		if r%2 == 1 {
			slices.Reverse(steps)
		}
		for _, s := range steps {
			load = append(load, loadAverage(t))
			s()
		}
		done++
		fmt.Printf("bench-fio: round %d done at %s UTC, load average %.2f\n", done, time.Now().UTC().Format("15:04:05"), loadAverage(t))
		for _, row := range doctor.order {
			if d, h := doctor.rows[row], byHand.rows[row]; len(d) == done && len(h) == done {
				fmt.Printf("bench-fio: round %d %-22s diskdoctor %.0f by hand %.0f\n", done, row, d[done-1], h[done-1])
			}
		}
	}
	load = append(load, loadAverage(t))
	if !slices.Equal(doctor.order, byHand.order) {
		t.Errorf("the hand run's jobs %q are not the doctor's rows %q, in order", byHand.order, doctor.order)
	}
	fmt.Printf("bench-fio: %s, %d alternating rounds, %s, %s-%s UTC, load average (1 min) %.2f [%.2f-%.2f]; IOPS median [min-max]\n",
		dir, done, strings.Join(args, " "), began.Format("15:04"), time.Now().UTC().Format("15:04"), median(load), slices.Min(load), slices.Max(load))
	fmt.Printf("bench-fio: %-22s %26s %26s %8s\n", "row", "diskdoctor", "fio by hand", "ratio")
	for _, row := range doctor.order {
		d, h := doctor.rows[row], byHand.rows[row]
		if len(d) == 0 || len(h) == 0 {
			continue
		}
		fmt.Printf("bench-fio: %-22s %26s %26s %7.1f%%\n", row, spread(d), spread(h), 100*median(d)/median(h))
	}
	fmt.Printf("bench-fio: test file prepared in %s s (diskdoctor's prepare_s) and %s s (the recipe), median [min-max]\n", spreadF(doctor.prepare), spreadF(byHand.prepare))
	for _, row := range doctor.order {
		fmt.Printf("bench-fio: samples %-22s diskdoctor %v\n", row, sorted(doctor.rows[row]))
		fmt.Printf("bench-fio: samples %-22s by hand    %v\n", row, sorted(byHand.rows[row]))
	}
}

// samples are one tool's IOPS per row and round, the rows in run order,
// and the seconds each round took to prepare the test file.
type samples struct {
	rows    map[string][]float64 // "SEQ1M Q8T1 read" → IOPS per round
	order   []string
	prepare []float64
}

func (s *samples) add(row string, iops float64) {
	if !slices.Contains(s.order, row) {
		s.order = append(s.order, row)
	}
	s.rows[row] = append(s.rows[row], iops)
}

func collectDoctor(t *testing.T, bin, dir string, args []string, into *samples) {
	t.Helper()
	cmd := exec.Command(bin, append([]string{"bench", "--format", "json", "--force", "--preflight-window", "0"}, append(args, dir)...)...)
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("diskdoctor bench: %v\n%s", err, out)
	}
	var res struct {
		Rows []struct {
			Asked string  `json:"asked"`
			Op    string  `json:"op"`
			IOPS  float64 `json:"iops"`
		} `json:"rows"`
		Prepare float64 `json:"prepare_s"`
	}
	if err := json.Unmarshal(out, &res); err != nil {
		t.Fatal(err)
	}
	for _, r := range res.Rows {
		into.add(r.Asked+" "+r.Op, r.IOPS)
	}
	into.prepare = append(into.prepare, res.Prepare)
}

// handRecipe is what the dry run tells a person to do: the test file, the
// command that prepares it, and the jobs (ini sections) in run order.
type handRecipe struct {
	file, prepare string
	sections      []string
}

var (
	// dryRunFile is the test file the job file names (fio escapes ':').
	dryRunFile = regexp.MustCompile(`(?m)^filename=(.+)$`)
	// dryRunPrepare is the recipe's preparation, on the comment line after
	// "To reproduce by hand".
	dryRunPrepare = regexp.MustCompile(`(?m)^# To reproduce by hand: .*\n#   (.+)$`)
	dryRunSection = regexp.MustCompile(`(?m)^\[([^\]]+)\]$`)
)

func parseDryRun(text string) (handRecipe, error) {
	var r handRecipe
	m := dryRunFile.FindStringSubmatch(text)
	p := dryRunPrepare.FindStringSubmatch(text)
	if m == nil || p == nil {
		return r, fmt.Errorf("the dry run names no test file or no way to prepare it:\n%s", text)
	}
	r.file, r.prepare = strings.ReplaceAll(m[1], `\:`, ":"), p[1]
	for _, s := range dryRunSection.FindAllStringSubmatch(text, -1) {
		r.sections = append(r.sections, s[1])
	}
	return r, nil
}

// jobName is "seq1m-q8t1-read" → "SEQ1M Q8T1 read", "sync4k-t1-write" →
// "SYNC4K T1 write".
var jobName = regexp.MustCompile(`^([a-z0-9]+)-((?:q\d+)?t\d+)-(read|write)$`)

// collectByHand follows the dry run's recipe literally: the test file
// prepared by its shell line, then `fio --output-format=json
// --section=NAME JOBFILE` for each job in the printed order, then the file
// removed.
func collectByHand(t *testing.T, bin, dir string, args []string, into *samples) {
	t.Helper()
	job, err := exec.Command(bin, append([]string{"bench", "--dry-run"}, append(args, dir)...)...).Output()
	if err != nil {
		t.Fatalf("diskdoctor bench --dry-run: %v\n%s", err, job)
	}
	rec, err := parseDryRun(string(job))
	if err != nil {
		t.Fatal(err)
	}
	defer os.Remove(rec.file)
	jobFile := filepath.Join(t.TempDir(), "job.fio")
	if err := os.WriteFile(jobFile, job, 0o644); err != nil {
		t.Fatal(err)
	}
	t0 := time.Now()
	if out, err := exec.Command("sh", "-c", rec.prepare).CombinedOutput(); err != nil {
		t.Fatalf("test file: %s: %v\n%s", rec.prepare, err, out)
	}
	into.prepare = append(into.prepare, time.Since(t0).Seconds())
	for _, sec := range rec.sections {
		out, err := exec.Command("fio", "--output-format=json", "--section="+sec, jobFile).Output()
		if err != nil {
			t.Fatalf("fio --section=%s: %v\n%s", sec, err, out)
		}
		var res struct {
			Jobs []struct {
				Name  string                 `json:"jobname"`
				Read  struct{ IOPS float64 } `json:"read"`
				Write struct{ IOPS float64 } `json:"write"`
			} `json:"jobs"`
		}
		if err := json.Unmarshal(out, &res); err != nil {
			t.Fatal(err)
		}
		if len(res.Jobs) != 1 || res.Jobs[0].Name != sec {
			t.Fatalf("fio --section=%s ran %d jobs", sec, len(res.Jobs))
		}
		p := jobName.FindStringSubmatch(sec)
		if p == nil {
			t.Fatalf("job %s: not a diskdoctor job name", sec)
		}
		iops := res.Jobs[0].Read.IOPS
		if p[3] == "write" {
			iops = res.Jobs[0].Write.IOPS
		}
		into.add(strings.ToUpper(p[1]+" "+p[2])+" "+p[3], iops)
	}
}

// loadAverage is the 1-minute load average.
func loadAverage(t *testing.T) float64 {
	t.Helper()
	b, err := os.ReadFile("/proc/loadavg")
	if err != nil {
		t.Fatal(err)
	}
	f := strings.Fields(string(b))
	v, err := strconv.ParseFloat(f[0], 64)
	if err != nil {
		t.Fatal(err)
	}
	return v
}

func spread(v []float64) string {
	return fmt.Sprintf("%.0f [%.0f-%.0f]", median(v), slices.Min(v), slices.Max(v))
}

func spreadF(v []float64) string {
	if len(v) == 0 {
		return "-"
	}
	return fmt.Sprintf("%.2f [%.2f-%.2f]", median(v), slices.Min(v), slices.Max(v))
}

func sorted(v []float64) []int {
	s := make([]int, len(v))
	for i, x := range v {
		s[i] = int(x + 0.5)
	}
	slices.Sort(s)
	return s
}
