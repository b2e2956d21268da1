package fio

import (
	"errors"
	"math"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/diskdoctor/diskdoctor/internal/testutil"
	"github.com/diskdoctor/diskdoctor/machine"
)

// The testdata/fio-*.json files are fio 3.33's own output on a development
// VM (virtio disk, ext4), trimmed to the fields the bench reads.

func TestParseFioRecorded(t *testing.T) {
	tests := []struct {
		file      string
		job       string
		readIOPS  float64
		readBW    float64
		writeIOPS float64
		writeBW   float64
		p99       float64 // ns, of the direction that did I/O
		depth     int
		notes     int
		steady    bool
	}{
		{"fio-randread-q32-io_uring.json", "rnd4k-q32t1-read", 36352.647353, 148900443, 0, 0, 8159232, 32, 0, false},
		{"fio-syncwrite-t4.json", "sync", 0, 0, 5556.331007, 22758731, 6717440, 1, 0, false},
		{"fio-steady-write.json", "steady", 0, 0, 485.774499, 509371481, 33161216, 8, 0, true},
		{"fio-seqread-psync-note.json", "seq1m-q8t1-read", 321.182266, 336784015, 0, 0, 26083328, 1, 1, false},
	}
	for _, tt := range tests {
		t.Run(tt.file, func(t *testing.T) {
			b, err := os.ReadFile(filepath.Join("testdata", tt.file))
			testutil.Must(t, err)
			out, notes, err := Parse(b)
			testutil.Must(t, err)
			if out.Version != "fio-3.33" || len(out.Jobs) != 1 {
				t.Fatalf("version %q, %d jobs", out.Version, len(out.Jobs))
			}
			if len(notes) != tt.notes {
				t.Errorf("notes = %q, want %d", notes, tt.notes)
			}
			j := out.Jobs[0]
			if j.Name != tt.job || j.Error != 0 {
				t.Errorf("job %q error %d", j.Name, j.Error)
			}
			if j.Read.IOPS != tt.readIOPS || j.Read.BWBytes != tt.readBW || j.Write.IOPS != tt.writeIOPS || j.Write.BWBytes != tt.writeBW {
				t.Errorf("read %v IOPS %v B/s, write %v IOPS %v B/s", j.Read.IOPS, j.Read.BWBytes, j.Write.IOPS, j.Write.BWBytes)
			}
			io := j.Read
			if tt.writeIOPS > 0 {
				io = j.Write
			}
			if p, ok := io.Clat.Pct(99); !ok || p != tt.p99 {
				t.Errorf("p99 = %v (%v), want %v", p, ok, tt.p99)
			}
			if _, ok := io.Clat.Pct(99.9); !ok {
				t.Error("no p99.9")
			}
			if _, ok := io.Clat.Pct(12.34); ok {
				t.Error("a percentile fio did not report")
			}
			if d := j.AchievedDepth(); d != tt.depth {
				t.Errorf("achieved depth %d, want %d", d, tt.depth)
			}
			if (j.SteadyState != nil) != tt.steady {
				t.Fatalf("steadystate %+v", j.SteadyState)
			}
			if tt.steady && (j.SteadyState.Attained != 1 || j.SteadyState.Data.BWMean <= 0 || !strings.HasPrefix(j.SteadyState.Criterion, "iops_slope")) {
				t.Errorf("steadystate %+v", j.SteadyState)
			}
			if j.Options["rw"] == "" {
				t.Error("job options not read")
			}
		})
	}
}

// fio prints bare -nan for a steady-state slope over a single sample (and
// then calls the state attained: the bench never asks for a one-second window).
func TestParseFioNaN(t *testing.T) {
	b, err := os.ReadFile(filepath.Join("testdata", "fio-steady-nan.json"))
	testutil.Must(t, err)
	if !strings.Contains(string(b), `"slope" : -nan`) {
		t.Fatal("testdata lost its -nan")
	}
	out, _, err := Parse(b)
	testutil.Must(t, err)
	ss := out.Jobs[0].SteadyState
	if ss == nil || ss.Attained != 1 || ss.Measured != "-nan%" || out.Jobs[0].Write.BWBytes <= 0 {
		t.Errorf("steady state %+v, write %v", ss, out.Jobs[0].Write.BWBytes)
	}
	for in, want := range map[string]string{
		`{"a": -nan, "b": "nan", "c": inf}`: `{"a": null, "b": "nan", "c": null}`,
		`{"s": "x\"nan", "n": nan}`:         `{"s": "x\"nan", "n": null}`,
		`{"word": infinite}`:                `{"word": infinite}`,
		`{"plain": 1}`:                      `{"plain": 1}`,
		`{"a": [nan,-inf]}`:                 `{"a": [null,null]}`,
	} {
		if got := string(fioSanitize([]byte(in))); got != want {
			t.Errorf("fioSanitize(%s) = %s, want %s", in, got, want)
		}
	}
}

func TestParseFioMalformed(t *testing.T) {
	for name, in := range map[string]string{
		"empty":            "",
		"text only":        "fio: pid=1, err=22/file:filesetup.c:805, func=open(t.dat), error=Invalid argument\n",
		"truncated":        `{"fio version": "fio-3.33", "jobs": [{"jobname": "x", "read": {"iops": 12`,
		"no jobs":          `{"fio version": "fio-3.33", "jobs": []}`,
		"jobs not a list":  `{"jobs": {"a": 1}}`,
		"string iops":      `{"jobs": [{"jobname": "x", "read": {"iops": "fast"}}]}`,
		"negative":         `{"jobs": [{"jobname": "x", "write": {"iops": -5}}]}`,
		"bad percentile":   `{"jobs": [{"jobname": "x", "read": {"clat_ns": {"percentile": {"p99": 5}}}}]}`,
		"array":            `[1, 2, 3]`,
		"binary junk":      "\x00\xff{\x01",
		"huge number":      `{"jobs": [{"jobname": "x", "read": {"iops": 1e999}}]}`,
		"number for names": `{"jobs": [{"jobname": 7}]}`,
	} {
		t.Run(name, func(t *testing.T) {
			out, _, err := Parse([]byte(in))
			if err == nil || !errors.Is(err, machine.ErrParse) {
				t.Fatalf("want ErrParse, got %v (%+v)", err, out)
			}
		})
	}
}

func TestFioJobRendering(t *testing.T) {
	j := &Job{Name: "rnd4k-q32t1-read"}
	j.Set("filename", "/mnt/my disk/.diskdoctor-bench")
	j.Set("rw", "randread")
	j.Set("iodepth", "1")
	j.Set("iodepth", "32") // replaces
	j.Set("group_reporting", "")
	if v, ok := j.Get("iodepth"); !ok || v != "32" {
		t.Errorf("iodepth = %q", v)
	}
	wantIni := "[rnd4k-q32t1-read]\nfilename=/mnt/my disk/.diskdoctor-bench\nrw=randread\niodepth=32\ngroup_reporting\n"
	if got := j.Ini(); got != wantIni {
		t.Errorf("ini:\n%s\nwant:\n%s", got, wantIni)
	}
	wantArgv := []string{"--output-format=json", "--name=rnd4k-q32t1-read", "--filename=/mnt/my disk/.diskdoctor-bench", "--rw=randread", "--iodepth=32", "--group_reporting"}
	if got := j.Argv(); !reflect.DeepEqual(got, wantArgv) {
		t.Errorf("argv %q", got)
	}
}

func TestAchievedDepthEdges(t *testing.T) {
	for _, tt := range []struct {
		levels map[string]float64
		want   int
	}{
		{nil, 0},
		{map[string]float64{"1": 0, "2": 0}, 0},
		{map[string]float64{">=64": 90, "32": 10}, 64},
		{map[string]float64{"x": 90, "4": 10, "-2": 50}, 4},
		{map[string]float64{"8": math.NaN(), "2": 1}, 2},
	} {
		j := JobOut{IODepthLevel: tt.levels}
		if got := j.AchievedDepth(); got != tt.want {
			t.Errorf("%v: %d, want %d", tt.levels, got, tt.want)
		}
	}
}

func FuzzParseFio(f *testing.F) {
	for _, name := range []string{"fio-randread-q32-io_uring.json", "fio-seqread-psync-note.json", "fio-steady-write.json", "fio-steady-nan.json"} {
		b, err := os.ReadFile(filepath.Join("testdata", name))
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b)
	}
	f.Add([]byte(`{"jobs": [{"jobname": "x", "read": {"clat_ns": {"percentile": {"99.000000": 5}}}, "iodepth_level": {">=64": 1}}]}`))
	f.Add([]byte("note: x\n{"))
	f.Fuzz(func(t *testing.T, b []byte) {
		out, _, err := Parse(b)
		if err != nil {
			if out != nil {
				t.Fatal("output with an error")
			}
			return
		}
		if len(out.Jobs) == 0 {
			t.Fatal("parsed without jobs")
		}
		for _, j := range out.Jobs {
			if d := j.AchievedDepth(); d < 0 {
				t.Fatalf("depth %d", d)
			}
			for _, io := range []IO{j.Read, j.Write} {
				if io.IOPS < 0 || io.BWBytes < 0 || math.IsNaN(io.IOPS) {
					t.Fatalf("bad figure %+v", io)
				}
				if p, ok := io.Clat.Pct(99); ok && (p < 0 || math.IsNaN(p)) {
					t.Fatalf("bad p99 %v", p)
				}
			}
		}
	})
}
