package fio

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"sort"
	"strconv"
	"strings"

	"github.com/diskdoctor/diskdoctor/machine"
)

// This file is the fio side of `diskdoctor bench`: job definitions rendered
// both as an ini job file (what --dry-run prints, so a person can reproduce
// a row by hand) and as fio's command-line argv (what the bench executes),
// and the parser of fio's --output-format=json. fio's text output is never
// scraped.

// Option is one "key=value" line of a job; Value "" renders a bare key.
type Option struct {
	Key, Value string
}

// Job is one fio job: a section of an ini file, or --name=… and its
// options on the command line. Options keep their order.
type Job struct {
	Name    string
	Options []Option
}

// Set appends or replaces an option.
func (j *Job) Set(key, value string) {
	for i, o := range j.Options {
		if o.Key == key {
			j.Options[i].Value = value
			return
		}
	}
	j.Options = append(j.Options, Option{key, value})
}

// Get returns an option's value.
func (j *Job) Get(key string) (string, bool) {
	for _, o := range j.Options {
		if o.Key == key {
			return o.Value, true
		}
	}
	return "", false
}

// Ini renders the job as an ini job file, runnable with `fio FILE`.
func (j *Job) Ini() string {
	var b strings.Builder
	fmt.Fprintf(&b, "[%s]\n", j.Name)
	for _, o := range j.Options {
		if o.Value == "" {
			fmt.Fprintf(&b, "%s\n", o.Key)
		} else {
			fmt.Fprintf(&b, "%s=%s\n", o.Key, o.Value)
		}
	}
	return b.String()
}

// Argv is the job as fio's command line (without the program name), with
// JSON output: fio --output-format=json --name=NAME --key=value …
func (j *Job) Argv() []string {
	argv := []string{"--output-format=json", "--name=" + j.Name}
	for _, o := range j.Options {
		if o.Value == "" {
			argv = append(argv, "--"+o.Key)
		} else {
			argv = append(argv, "--"+o.Key+"="+o.Value)
		}
	}
	return argv
}

// Output is fio's JSON report (the fields the bench reads).
type Output struct {
	Version string   `json:"fio version"`
	Jobs    []JobOut `json:"jobs"`
	Disks   []Disk   `json:"disk_util"`
}

// JobOut is one job (or one group with group_reporting) of the report.
type JobOut struct {
	Name     string            `json:"jobname"`
	Error    int               `json:"error"`
	Options  map[string]string `json:"job options"`
	Read     IO                `json:"read"`
	Write    IO                `json:"write"`
	Sync     Sync              `json:"sync"`
	RuntimeM float64           `json:"job_runtime"` // ms
	UsrCPU   float64           `json:"usr_cpu"`
	SysCPU   float64           `json:"sys_cpu"`
	// IODepthLevel: percent of I/Os issued while this many were in
	// flight; keys "1","2","4","8","16","32",">=64" (a key k covers the
	// depths above the previous key up to k).
	IODepthLevel map[string]float64 `json:"iodepth_level"`
	SteadyState  *SteadyState       `json:"steadystate,omitempty"`
}

// IO is one direction of a job.
type IO struct {
	IOBytes  int64   `json:"io_bytes"`
	BWBytes  float64 `json:"bw_bytes"` // bytes/s
	IOPS     float64 `json:"iops"`
	RuntimeM float64 `json:"runtime"` // ms
	TotalIOs int64   `json:"total_ios"`
	Clat     Latency `json:"clat_ns"`
	Lat      Latency `json:"lat_ns"`
}

// Sync is the fsync/fdatasync section.
type Sync struct {
	TotalIOs int64   `json:"total_ios"`
	Lat      Latency `json:"lat_ns"`
}

// Latency is a latency distribution in nanoseconds; Percentile keys are
// fio's "99.900000" strings.
type Latency struct {
	Min        float64            `json:"min"`
	Max        float64            `json:"max"`
	Mean       float64            `json:"mean"`
	N          int64              `json:"N"`
	Percentile map[string]float64 `json:"percentile"`
}

// SteadyState is the steady-state detector's verdict (--steadystate).
type SteadyState struct {
	Criterion string  `json:"ss"`
	Duration  float64 `json:"duration"`
	Attained  int     `json:"attained"`
	Measured  string  `json:"criterion"`
	Data      struct {
		BWMean   float64 `json:"bw_mean"`
		IOPSMean float64 `json:"iops_mean"`
	} `json:"data"`
}

// Disk is one device of the disk_util section.
type Disk struct {
	Name string  `json:"name"`
	Util float64 `json:"util"`
}

// Parse reads fio's --output-format=json. fio may print notes before the
// JSON object ("note: both iodepth >= 1 and synchronous I/O engine are
// selected, queue depth will be capped at 1"); they are returned as notes.
// A report without jobs, or whose numbers are negative or not finite, is a
// parse error.
func Parse(b []byte) (*Output, []string, error) {
	i := bytes.IndexByte(b, '{')
	if i < 0 {
		return nil, nil, fmt.Errorf("%w: fio printed no JSON object", machine.ErrParse)
	}
	var notes []string
	for _, l := range strings.Split(string(b[:i]), "\n") {
		if l = strings.TrimSpace(l); l != "" {
			notes = append(notes, l)
		}
	}
	dec := json.NewDecoder(bytes.NewReader(fioSanitize(b[i:])))
	var out Output
	if err := dec.Decode(&out); err != nil {
		return nil, notes, fmt.Errorf("%w: fio JSON: %w", machine.ErrParse, err)
	}
	if len(out.Jobs) == 0 {
		return nil, notes, fmt.Errorf("%w: fio JSON has no jobs", machine.ErrParse)
	}
	for _, j := range out.Jobs {
		for _, io := range []IO{j.Read, j.Write} {
			for _, v := range []float64{io.BWBytes, io.IOPS, io.RuntimeM, io.Clat.Mean, io.Clat.Min, io.Clat.Max} {
				if math.IsNaN(v) || math.IsInf(v, 0) || v < 0 {
					return nil, notes, fmt.Errorf("%w: job %q has a negative or non-finite figure", machine.ErrParse, j.Name)
				}
			}
			if io.IOBytes < 0 || io.TotalIOs < 0 {
				return nil, notes, fmt.Errorf("%w: job %q has a negative count", machine.ErrParse, j.Name)
			}
			for k, v := range io.Clat.Percentile {
				if _, err := strconv.ParseFloat(k, 64); err != nil || math.IsNaN(v) || v < 0 {
					return nil, notes, fmt.Errorf("%w: job %q has a bad percentile %q", machine.ErrParse, j.Name, k)
				}
			}
		}
	}
	return &out, notes, nil
}

// Pct returns the latency (ns) at percentile p (e.g. 99.9), reading
// fio's table; ok is false when fio did not report that percentile.
func (l Latency) Pct(p float64) (float64, bool) {
	for k, v := range l.Percentile {
		f, err := strconv.ParseFloat(k, 64)
		if err == nil && math.Abs(f-p) < 1e-6 {
			return v, true
		}
	}
	return 0, false
}

// AchievedDepth reads the iodepth_level distribution and returns the
// bucket (1, 2, 4, 8, 16, 32 or 64) that most I/Os were issued at; 0 when
// fio reported none. A bucket k covers depths above the previous bucket up
// to k (bucket 8 is 5–8); 64 means 64 or more.
func (j *JobOut) AchievedDepth() int {
	type kv struct {
		depth int
		pct   float64
	}
	var levels []kv
	for k, v := range j.IODepthLevel {
		d, err := strconv.Atoi(strings.TrimPrefix(k, ">="))
		if err != nil || d <= 0 || math.IsNaN(v) {
			continue
		}
		levels = append(levels, kv{d, v})
	}
	sort.Slice(levels, func(a, b int) bool { return levels[a].depth < levels[b].depth })
	best, bestPct := 0, 0.0
	for _, l := range levels {
		if l.pct > bestPct {
			best, bestPct = l.depth, l.pct
		}
	}
	return best
}

// fioSanitize replaces the bare nan, -nan, inf and -inf that fio prints for
// undefined figures (a steady-state slope over one sample: "slope" : -nan)
// with null, outside strings, so that the JSON decoder accepts the report.
func fioSanitize(b []byte) []byte {
	if !bytes.Contains(b, []byte("nan")) && !bytes.Contains(b, []byte("inf")) {
		return b
	}
	out := make([]byte, 0, len(b))
	inString, escaped := false, false
	for i := 0; i < len(b); i++ {
		c := b[i]
		if inString {
			out = append(out, c)
			switch {
			case escaped:
				escaped = false
			case c == '\\':
				escaped = true
			case c == '"':
				inString = false
			}
			continue
		}
		if c == '"' {
			inString = true
			out = append(out, c)
			continue
		}
		matched := false
		for _, tok := range []string{"-nan", "nan", "-inf", "inf"} {
			if bytes.HasPrefix(b[i:], []byte(tok)) {
				end := i + len(tok)
				if end < len(b) && (b[end] >= 'a' && b[end] <= 'z' || b[end] >= 'A' && b[end] <= 'Z') {
					continue
				}
				out = append(out, "null"...)
				i = end - 1
				matched = true
				break
			}
		}
		if !matched {
			out = append(out, c)
		}
	}
	return out
}
