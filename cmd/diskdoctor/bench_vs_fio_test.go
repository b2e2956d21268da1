package main

// Issue #12's measurement: diskdoctor bench against fio run by hand with the
// job file that --dry-run prints, in alternating rounds, on a directory the
// caller names. Figures, not pass/fail:
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
	bin := buildDoctor(t)
	args := []string{"--profile", profile, "--size", "512m", "--runtime", "3"}
	doctor := map[string][]float64{} // row "SEQ1M Q8T1 read" → IOPS per round
	byHand := map[string][]float64{}
	var order []string
	for r := range rounds {
		// Alternate which goes first, so that neither always meets a warm
		// or a tired disk.
		steps := []func(){
			func() { collectDoctor(t, bin, dir, args, doctor, &order) },
			func() { collectByHand(t, bin, dir, args, byHand) },
		}
		if r%2 == 1 {
			slices.Reverse(steps)
		}
		for _, s := range steps {
			s()
		}
	}
	fmt.Printf("bench-fio: %s, %d alternating rounds, %s; IOPS median [min-max]\n", dir, rounds, strings.Join(args, " "))
	fmt.Printf("bench-fio: %-22s %26s %26s %8s\n", "row", "diskdoctor", "fio by hand", "ratio")
	for _, row := range order {
		d, h := doctor[row], byHand[row]
		if len(d) == 0 || len(h) == 0 {
			continue
		}
		fmt.Printf("bench-fio: %-22s %26s %26s %7.1f%%\n", row, spread(d), spread(h), 100*median(d)/median(h))
	}
}

func collectDoctor(t *testing.T, bin, dir string, args []string, into map[string][]float64, order *[]string) {
	t.Helper()
	cmd := exec.Command(bin, append([]string{"bench", "--format", "json", "--force", "--preflight-window", "0"}, append(args, dir)...)...)
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("diskdoctor bench: %v\n%s", err, out)
	}
	var res struct {
		Rows []struct {
			Test string  `json:"test"`
			Op   string  `json:"op"`
			IOPS float64 `json:"iops"`
		} `json:"rows"`
	}
	if err := json.Unmarshal(out, &res); err != nil {
		t.Fatal(err)
	}
	for _, r := range res.Rows {
		key := r.Test + " " + r.Op
		if !slices.Contains(*order, key) {
			*order = append(*order, key)
		}
		into[key] = append(into[key], r.IOPS)
	}
}

// dryRunFile is the test file the job file names.
var dryRunFile = regexp.MustCompile(`(?m)^filename=(.+)$`)

// jobName is "seq1m-q8t1-read" → "SEQ1M Q8T1 read", "sync4k-t1-write" →
// "SYNC4K T1 write".
var jobName = regexp.MustCompile(`^([a-z0-9]+)-((?:q\d+)?t\d+)-(read|write)$`)

func collectByHand(t *testing.T, bin, dir string, args []string, into map[string][]float64) {
	t.Helper()
	job, err := exec.Command(bin, append([]string{"bench", "--dry-run"}, append(args, dir)...)...).Output()
	if err != nil {
		t.Fatalf("diskdoctor bench --dry-run: %v\n%s", err, job)
	}
	m := dryRunFile.FindSubmatch(job)
	if m == nil {
		t.Fatal("the dry run names no test file")
	}
	file := string(m[1])
	defer os.Remove(file)
	jobFile := filepath.Join(t.TempDir(), "job.fio")
	if err := os.WriteFile(jobFile, job, 0o644); err != nil {
		t.Fatal(err)
	}
	size := args[slices.Index(args, "--size")+1]
	// As the dry run's recipe says: head -c N /dev/urandom > FILE && sync.
	n := map[string]string{"512m": "536870912"}[size]
	if n == "" {
		t.Fatalf("size %s: add its byte count", size)
	}
	if out, err := exec.Command("sh", "-c", `head -c "$1" /dev/urandom > "$2" && sync`, "sh", n, file).CombinedOutput(); err != nil {
		t.Fatalf("test file: %v\n%s", err, out)
	}
	out, err := exec.Command("fio", "--output-format=json", jobFile).Output()
	if err != nil {
		t.Fatalf("fio: %v\n%s", err, out)
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
	for _, j := range res.Jobs {
		p := jobName.FindStringSubmatch(j.Name)
		if p == nil {
			continue
		}
		key := strings.ToUpper(p[1]+" "+p[2]) + " " + p[3]
		iops := j.Read.IOPS
		if p[3] == "write" {
			iops = j.Write.IOPS
		}
		into[key] = append(into[key], iops)
	}
}

func spread(v []float64) string {
	return fmt.Sprintf("%.0f [%.0f-%.0f]", median(v), slices.Min(v), slices.Max(v))
}
