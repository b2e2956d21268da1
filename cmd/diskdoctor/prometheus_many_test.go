package main

import (
	"bytes"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/diskdoctor/diskdoctor/doctor"
	"github.com/diskdoctor/diskdoctor/report"
)

// TestPrometheusManyDisks bounds the cardinality on the synthetic machine
// of `make bench`: a fixed number of series per judged device and per
// finding subject, and the textfile parses. 20 disks by default, 1,000
// with DISKDOCTOR_BENCH=1 (tens of seconds, mostly writing the machine).
func TestPrometheusManyDisks(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("-short: skipping the synthetic machine")
	}
	n := 20
	if os.Getenv("DISKDOCTOR_BENCH") != "" {
		n = 1000
	}
	dir := t.TempDir()
	t0 := time.Now()
	if err := writeSyntheticMachine(dir, n); err != nil {
		t.Fatal(err)
	}
	t1 := time.Now()
	rep, err := examine(t.Context(), options{Options: doctor.Options{Root: dir, ProbeTimeout: 5 * time.Second, Context: "auto"}, format: "prometheus"})
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("machine written in %s, examined in %s", t1.Sub(t0).Round(time.Millisecond), time.Since(t1).Round(time.Millisecond))
	start := time.Now()
	render, _ := report.Lookup("prometheus")
	var buf bytes.Buffer
	if err := render(&buf, rep, report.RunInfo{Start: time.Unix(1795962300, 0)}); err != nil {
		t.Fatal(err)
	}
	out := buf.Bytes()
	elapsed := time.Since(start)
	// Each line that is not HELP or TYPE is a series (the format tests in
	// report/ parse it in full); device families are the gauges per device.
	series, deviceFamilies, judged, subjects := 0, 0, 0, 0
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		switch {
		case strings.HasPrefix(line, "# HELP diskdoctor_device_"):
			deviceFamilies++
		case !strings.HasPrefix(line, "#"):
			series++
		}
	}
	for _, d := range rep.Devices {
		if d["judged"] == true {
			judged++
		}
	}
	for _, f := range rep.Findings {
		subjects += len(f.Subjects)
	}
	if limit := 16 + deviceFamilies*judged + subjects + len(rep.Skipped); series > limit {
		t.Errorf("%d series for %d judged devices and %d finding subjects; the bound is %d", series, judged, subjects, limit)
	}
	t.Logf("%d disks: %d judged devices, %d finding subjects, %d series, %d bytes, rendered in %s", n, judged, subjects, series, len(out), elapsed.Round(time.Microsecond))
}
