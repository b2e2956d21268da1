package report

import (
	"regexp"
	"strings"
	"testing"

	"github.com/diskdoctor/diskdoctor/checks"
	"github.com/diskdoctor/diskdoctor/probes/window"
	"github.com/diskdoctor/diskdoctor/rules"
)

// busyReport is a report with nothing found and a default window in which
// loop0 did rates and one process wrote.
func busyReport(context string, loop0 window.DeviceRates) *rules.Report {
	loop0.Name = "loop0"
	rep := &rules.Report{Schema: rules.Schema, Verdict: rules.VerdictOK, Host: rules.Host{Hostname: "h", Root: "/", Context: context},
		Findings: []rules.Finding{}, Skipped: []checks.Skipped{},
		Sample: &checks.Sample{Seconds: 1, Source: "live", Default: true, Pressure: map[string]float64{},
			Devices:   []window.DeviceRates{loop0, {Name: "vda", RS: 3, UtilPct: 0.5}},
			Processes: []window.ProcRates{{PID: 4242, Comm: "fio", Cmdline: "fio --name=busy …", Cgroup: "/user.slice/session-3.scope", WriteBytesPerS: 400e6}}},
	}
	// As rules.Report.Build settles it: with --context benchmark, load
	// above the noise floor makes the machine not ready, a warning.
	if context == rules.ContextBenchmark {
		ready := !loop0.Active()
		rep.Ready = &ready
		if !ready {
			rep.NotReady = []rules.NotReady{{Reason: "loop0 did I/O in the 1 s window", Measured: rules.DeviceLoad(loop0)}}
			rep.Verdict = rules.VerdictWarning
		}
	}
	return rep
}

// Issue #25: what is busy in the window keeps the verdict from a plain OK
// or READY and is named as bench's preflight names it (pid, the cut
// command, unit, MB/s, share of the device); a quiet default window adds
// no tables; with --context benchmark, load above bench's noise floor is
// enough.
func TestVerdictNamesWhatIsBusy(t *testing.T) {
	busy := window.DeviceRates{WS: 400, WMBs: 800, UtilPct: 90}
	light := window.DeviceRates{WS: 20, WMBs: 4, UtilPct: 3}
	quiet := window.DeviceRates{WS: 1, WMBs: 0.01, UtilPct: 0.2}
	for _, c := range []struct {
		name, context string
		rates         window.DeviceRates
		verdict       []string
		tables        bool
	}{
		{"busy", "auto", busy, []string{"OK, BUSY: no warning or critical finding; loop0 90.0 % busy, 800 MB/s written, 400 writes/s in the window; top process pid 4242 fio --name=busy … (session-3.scope): 400 MB/s written, ~50 % of what loop0 moved"}, true},
		{"busy before a benchmark", "benchmark", busy, []string{"NOT READY to benchmark:", "loop0 90.0 % busy, 800 MB/s written, 400 writes/s", "pid 4242 fio --name=busy …"}, true},
		{"light load", "auto", light, []string{"OK: no warning or critical findings"}, false},
		{"light load before a benchmark", "benchmark", light, []string{"NOT READY to benchmark:", "loop0 3.0 % busy, 4.0 MB/s written", "400 MB/s written, more than all loop0 moved"}, true},
		{"quiet before a benchmark", "benchmark", quiet, []string{"READY: no warning or critical findings"}, false},
	} {
		out := string(textOf(t, busyReport(c.context, c.rates), textOptions{width: 400}))
		lines := strings.Split(strings.TrimRight(out, "\n"), "\n")
		// The verdict is the last line before the first action.
		last := lines[len(lines)-1]
		for i := len(lines) - 1; i >= 0; i-- {
			if l := lines[i]; !strings.HasPrefix(l, "First") && !strings.HasPrefix(l, "Then") && !strings.HasPrefix(l, " ") {
				last = l
				break
			}
		}
		for _, w := range c.verdict {
			if !strings.Contains(last, w) {
				t.Errorf("%s: verdict %q lacks %q", c.name, last, w)
			}
		}
		if got := strings.Contains(out, "(iotop -o)"); got != c.tables {
			t.Errorf("%s: the window's tables shown %v, want %v:\n%s", c.name, got, c.tables, out)
		}
	}
	// A warning does not hide the load.
	rep := busyReport("auto", busy)
	rep.Verdict = rules.VerdictWarning
	rep.Findings = []rules.Finding{{Rule: "io-pressure-high", Severity: rules.Warning, Title: "Tasks stall on I/O", Subjects: []string{"host"}}}
	if v, _ := verdictLine(newPalette(nil, false), rep); !strings.HasPrefix(v, "WARNING: 1 warning finding; loop0 90.0 % busy") || !strings.Contains(v, "pid 4242") {
		t.Errorf("warning verdict %q", v)
	}
}

// An OK verdict on a busy machine still says what could not be examined,
// and a READY without a sampling window says the load is unknown: neither
// is a plain OK or READY.
func TestBusyOrUnsampledVerdictNamesWhatIsUnknown(t *testing.T) {
	rep := busyReport("auto", window.DeviceRates{WS: 400, WMBs: 800, UtilPct: 90})
	rep.Devices = []map[string]any{{"name": "loop0", checks.FactJudged: true}, {"name": "vda", checks.FactJudged: true}}
	rep.Incomplete = []rules.Incomplete{{Check: "smartctl", Subjects: []string{"vda"}, Reason: "smartctl: tool not installed"}}
	v, _ := verdictLine(newPalette(nil, false), rep)
	for _, want := range []string{"OK for 1 of 2 disks, BUSY:", "loop0 90.0 % busy", "vda's SMART health could not be examined: smartctl: tool not installed"} {
		if !strings.Contains(v, want) {
			t.Errorf("busy verdict %q lacks %q", v, want)
		}
	}
	rep = busyReport(rules.ContextBenchmark, window.DeviceRates{})
	rep.Sample = nil
	v, _ = verdictLine(newPalette(nil, false), rep)
	if want := "READY as far as examined: no warning or critical findings; no sampling window, so the devices' load is unknown"; v != want {
		t.Errorf("verdict without a window %q, want %q", v, want)
	}
}

// The triage line's datasheet share is of the figure beside it: the
// direction it was computed on, never the sum of both (which rounds to
// another number than the table's cell for the same device).
func TestTriageShareBesideItsFigure(t *testing.T) {
	for _, c := range []struct{ fixture, want string }{
		{"nvme-busy-healthy", "BOTTLENECK nvme0n1: 100 % busy, 3277 MB/s read = 93.6 % of its datasheet, 1.6 MB/s written"},
		{"sata-saturated-nvme-idle", "BOTTLENECK sdb: 99.2 % busy, 11.9 MB/s written = 6.8 % of its datasheet, 0.3 MB/s read — cause:"},
		{"hpe-microserver-writethrough", "BOTTLENECK sda: 100 % busy, 7.5 MB/s written = 1.4 % of its datasheet — cause:"},
	} {
		rep := fixtureReport(t, c.fixture)
		got, _ := triageAnswer(newPalette(nil, false), rep)
		if !strings.HasPrefix(got, c.want) {
			t.Errorf("%s:\n got %q\nwant %q…", c.fixture, got, c.want)
		}
	}
}

// On every recorded machine with a window, the figures the first lines
// quote are the tables' cells: the triage line's rate and datasheet share
// are its device's rMB/s or wMB/s and %sheet, and the top process's read
// and written MB/s are its iotop row's (one rounding, one quantity).
func TestWindowFiguresMatchTheTables(t *testing.T) {
	share := regexp.MustCompile(`^(?:BOTTLENECK|BUSY) (\S+): \S+ % busy, (\S+) MB/s (read|written) = (\S+) % of its datasheet`)
	proc := regexp.MustCompile(`top process (?:on \S+ )?pid (\d+) [^:]*: (?:(\S+) MB/s read)?(?:, )?(?:(\S+) MB/s written)?`)
	for _, name := range fixtures(t) {
		if !hasWindow(name) {
			continue
		}
		out := string(textOf(t, fixtureReport(t, name), textOptions{width: 1000}))
		rows := map[string][]string{}
		tables := out[strings.Index(out, "Devices in the"):]
		tables = tables[:strings.Index(tables, "\nDevices\n")]
		for _, l := range strings.Split(tables, "\n") {
			if f := strings.Fields(l); len(f) >= 5 {
				rows[f[0]] = f
			}
		}
		triage := strings.SplitN(out, "\n", 3)[1]
		if m := share.FindStringSubmatch(triage); m == nil && strings.Contains(triage, "of its datasheet") {
			t.Errorf("%s: the datasheet share is not beside one direction's figure: %q", name, triage)
		} else if m != nil {
			row := rows[m[1]]
			col := 3 // rMB/s
			if m[3] == "written" {
				col = 4
			}
			if len(row) < 10 || row[col] != m[2] || row[9] != m[4] {
				t.Errorf("%s: %q against the iostat row %v", name, m[0], row)
			}
		}
		for _, l := range strings.Split(out, "\n") {
			m := proc.FindStringSubmatch(l)
			if m == nil {
				continue
			}
			row := rows[m[1]]
			if len(row) < 5 || m[2]+m[3] == "" || (m[2] != "" && row[len(row)-2] != m[2]) || (m[3] != "" && row[len(row)-1] != m[3]) {
				t.Errorf("%s: %q against the iotop row %v", name, m[0], row)
			}
		}
	}
}

// A class default is not the device's datasheet: the triage line says
// which it is.
func TestTriageShareOfAClassDefault(t *testing.T) {
	table, err := rules.LoadDatasheets("")
	if err != nil {
		t.Fatal(err)
	}
	ds := table.Lookup("Elements 25A3", "usb")
	if ds == nil || ds.ModelEntry {
		t.Fatalf("no class default for usb: %+v", ds)
	}
	rep := busyReport("auto", window.DeviceRates{})
	sdf := window.DeviceRates{Name: "sdf", RS: 140, RMBs: 22.5, UtilPct: 95}
	rep.Sample.Devices = []window.DeviceRates{sdf}
	rep.Devices = []map[string]any{{"name": "sdf", checks.FactModel: "Elements 25A3", checks.FactClass: "usb", checks.FactJudged: true,
		"datasheet": map[string]any{"product": ds.Product, "model_entry": false}}}
	got, _ := triageAnswer(newPalette(nil, false), rep)
	if want := "BOTTLENECK sdf: 95.0 % busy, 22.5 MB/s read = "; !strings.HasPrefix(got, want) || !strings.Contains(got, "% of its class's default figure (no datasheet for its model)") {
		t.Errorf("triage %q", got)
	}
}

// A caution before a benchmark without a window says, as a READY does,
// that the devices' load was not measured.
func TestCautionWithoutWindow(t *testing.T) {
	rep := busyReport(rules.ContextBenchmark, window.DeviceRates{})
	rep.Sample = nil
	rep.Verdict = rules.VerdictWarning
	rep.Findings = []rules.Finding{{Rule: "trim-not-scheduled", Severity: rules.Warning, Title: "x", Subjects: []string{"sda"}}}
	if v, _ := verdictLine(newPalette(nil, false), rep); v != "CAUTION before benchmarking: 1 warning finding; no sampling window, so the devices' load is unknown" {
		t.Errorf("verdict %q", v)
	}
}
