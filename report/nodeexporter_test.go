package report

// The fleet formats with their real consumers: Debian's node_exporter reads
// the textfile, promtool checks and unit-tests the alert rules, and
// systemd-analyze verifies the units of docs/deploy. Each test skips, saying
// which package to install, where its tool is missing.

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"go.yaml.in/yaml/v3"

	"github.com/diskdoctor/diskdoctor/checks"
	"github.com/diskdoctor/diskdoctor/rules"
)

const deployDir = "../docs/deploy"

// lockedBuffer collects a child's stderr while the test reads it.
type lockedBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

// freeLoopbackAddr finds a free TCP port on 127.0.0.1: node_exporter cannot
// listen on port 0 and tell which port it got.
func freeLoopbackAddr(t *testing.T) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Skipf("no loopback TCP here (%v); skipping", err)
	}
	addr := l.Addr().String()
	l.Close()
	return addr
}

// startNodeExporter starts node_exporter with only the textfile collector
// on a loopback port and stops it when the test ends.
func startNodeExporter(t *testing.T, exporter, textDir string) string {
	t.Helper()
	for attempt := 1; ; attempt++ {
		addr, portTaken := tryNodeExporter(t, exporter, textDir)
		if !portTaken {
			return addr
		}
		if attempt == 3 {
			t.Fatalf("node_exporter: address already in use, three times")
		}
	}
}

// tryNodeExporter starts node_exporter once; portTaken says that another
// process took the port between our probe and its listen.
func tryNodeExporter(t *testing.T, exporter, textDir string) (addr string, portTaken bool) {
	t.Helper()
	addr = freeLoopbackAddr(t)
	cmd := exec.Command(exporter,
		"--web.listen-address="+addr,
		"--web.disable-exporter-metrics",
		"--collector.disable-defaults",
		"--collector.textfile",
		"--collector.textfile.directory="+textDir,
	)
	stderr := &lockedBuffer{}
	cmd.Stdout, cmd.Stderr = io.Discard, stderr
	if err := cmd.Start(); err != nil {
		t.Fatalf("start %s: %v", exporter, err)
	}
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }()
	var waitErr error
	done := false
	t.Cleanup(func() {
		if !done {
			_ = cmd.Process.Kill()
			<-exited
		}
	})
	client := &http.Client{Timeout: 2 * time.Second}
	for range 50 {
		select {
		case waitErr = <-exited:
			done = true
			if strings.Contains(stderr.String(), "address already in use") {
				return addr, true
			}
			t.Fatalf("node_exporter exited at start-up (%v):\n%s", waitErr, stderr.String())
		default:
		}
		resp, err := client.Get("http://" + addr + "/metrics")
		if err == nil {
			resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				return addr, false
			}
		}
		time.Sleep(100 * time.Millisecond)
	}
	t.Fatalf("node_exporter did not answer on %s within 5 s:\n%s", addr, stderr.String())
	return "", false
}

// scrape fetches /metrics and parses every sample in it.
func scrape(t *testing.T, addr string) (map[string]promSample, string) {
	t.Helper()
	client := &http.Client{Timeout: 5 * time.Second}
	resp, err := client.Get("http://" + addr + "/metrics")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil || resp.StatusCode != http.StatusOK {
		t.Fatalf("scrape: %v, HTTP %d\n%s", err, resp.StatusCode, body)
	}
	samples := map[string]promSample{}
	for i, line := range strings.Split(string(body), "\n") {
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		s, _, err := parseSampleLine(line)
		if err != nil {
			t.Fatalf("scrape line %d: %v: %q", i+1, err, line)
		}
		samples[s.key()] = s
	}
	return samples, string(body)
}

// TestNodeExporterTextfile: the doctor writes the HPE MicroServer's
// textfile with --output; Debian's node_exporter serves every diskdoctor
// series from it, with node_textfile_scrape_error 0.
func TestNodeExporterTextfile(t *testing.T) {
	exporter := lookTool(t, "prometheus-node-exporter", "prometheus-node-exporter")
	dir := t.TempDir()
	prom := filepath.Join(dir, "diskdoctor.prom")
	_, stderr, code := runBinary(t, "--root", "fixtures/hpe-microserver-writethrough", "--format", "prometheus", "--output", prom)
	if code != 0 {
		t.Fatalf("exit %d, want 0 (the metrics written; the verdict is in them): %s", code, stderr)
	}
	written, err := os.ReadFile(prom)
	if err != nil {
		t.Fatal(err)
	}
	fams, err := parseTextfile(written)
	if err != nil {
		t.Fatal(err)
	}

	addr := startNodeExporter(t, exporter, dir)
	got, body := scrape(t, addr)
	if e, ok := got[promSample{name: "node_textfile_scrape_error"}.key()]; !ok || e.value != 0 {
		t.Fatalf("node_textfile_scrape_error = %v (present: %v), want 0\n%s", e.value, ok, body)
	}
	if _, ok := got[promSample{name: "node_textfile_mtime_seconds", labels: map[string]string{"file": prom}}.key()]; !ok {
		// node_exporter 1.5 labels the file by its base name, later ones by path
		if _, ok := got[promSample{name: "node_textfile_mtime_seconds", labels: map[string]string{"file": "diskdoctor.prom"}}.key()]; !ok {
			t.Errorf("no node_textfile_mtime_seconds for diskdoctor.prom")
		}
	}
	n := 0
	for _, f := range fams {
		if !strings.Contains(body, "# HELP "+f.name+" ") || !strings.Contains(body, "# TYPE "+f.name+" gauge") {
			t.Errorf("scrape lacks HELP/TYPE of %s", f.name)
		}
		for _, s := range f.samples {
			n++
			g, ok := got[s.key()]
			switch {
			case !ok:
				t.Errorf("scrape lacks %s", s.key())
			case g.value != s.value:
				t.Errorf("%s: scraped %v, file %v", s.key(), g.value, s.value)
			}
		}
	}
	for _, want := range []string{
		`diskdoctor_finding{rule="write-cache-disabled",severity="critical",subject="sda",waived="false"} 1`,
		`diskdoctor_verdict 2`,
	} {
		if !strings.Contains(body, want+"\n") {
			t.Errorf("scrape lacks the line %s", want)
		}
	}
	t.Logf("node_exporter on %s served all %d diskdoctor samples of a %d-byte textfile; node_textfile_scrape_error 0", addr, n, len(written))

	// The check can fail: a file the exporter cannot parse sets
	// node_textfile_scrape_error to 1.
	if err := os.WriteFile(filepath.Join(dir, "broken.prom"), []byte("diskdoctor_broken{device=\"sda} 1\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	got, _ = scrape(t, addr)
	if e := got[promSample{name: "node_textfile_scrape_error"}.key()]; e.value != 1 {
		t.Errorf("with a broken file beside it, node_textfile_scrape_error = %v, want 1 (is the check blind?)", e.value)
	}
}

// promtoolTests is the part of a promtool rule test file that the fixture
// check reads.
type promtoolTests struct {
	Tests []struct {
		Name        string `yaml:"name"`
		InputSeries []struct {
			Series string `yaml:"series"`
			Values string `yaml:"values"`
		} `yaml:"input_series"`
	} `yaml:"tests"`
}

// runVaryingSeries differ from run to run; the fixture groups set them to
// what each alert test needs.
var runVaryingSeries = map[string]bool{"diskdoctor_last_run_timestamp_seconds": true, "diskdoctor_run_duration_seconds": true}

var constantValues = regexp.MustCompile(`^(\S+?)x\d+$`)

// generatedBlock is a block of input series in the promtool test file that
// -update regenerates from a fixture's output.
var generatedBlock = regexp.MustCompile(`(?ms)^( *)# generated from fixtures/(\S+), instance (\S+), x(\d+): [^\n]*\n(.*?)^ *# end of generated series\n`)

// regenerateSeries rewrites every generated block of the promtool test
// file from the doctor's current output (go test -run TestPromtoolRules
// -update); the alert expectations stay as written.
func regenerateSeries(t *testing.T, path string) {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var failed error
	out := generatedBlock.ReplaceAllFunc(b, func(block []byte) []byte {
		m := generatedBlock.FindSubmatch(block)
		indent, fixture, instance, n := string(m[1]), string(m[2]), string(m[3]), string(m[4])
		var body strings.Builder
		text := renderProm(t, fixtureReport(t, fixture), RunInfo{})
		for _, line := range strings.Split(strings.TrimSpace(string(text)), "\n") {
			if strings.HasPrefix(line, "#") {
				continue
			}
			sp := strings.LastIndexByte(line, ' ') // label values may hold spaces
			series, value := line[:sp], line[sp+1:]
			name, labels, ok := strings.Cut(series, "{")
			if runVaryingSeries[name] {
				continue
			}
			scrape := `instance="` + instance + `",job="node"`
			if ok {
				series = name + "{" + scrape + "," + labels
			} else {
				series = name + "{" + scrape + "}"
			}
			if strings.Contains(series, "'") {
				failed = fmt.Errorf("%s: a quote in %s", fixture, series)
			}
			fmt.Fprintf(&body, "%s- series: '%s'\n%s  values: '%sx%s'\n", indent, series, indent, value, n)
		}
		head, _, _ := bytes.Cut(block, []byte("\n"))
		return []byte(string(head) + "\n" + body.String() + indent + "# end of generated series\n")
	})
	if failed != nil {
		t.Fatal(failed)
	}
	if err := os.WriteFile(path, out, 0o644); err != nil {
		t.Fatal(err)
	}
}

// TestPromtoolRules: the alert rules pass promtool check rules; the unit
// tests pass promtool test rules; each "fixture: NAME" group's input series
// are exactly the doctor's output for that fixture.
func TestPromtoolRules(t *testing.T) {
	promtool := lookTool(t, "promtool", "prometheus")
	alerts := filepath.Join(deployDir, "diskdoctor-alerts.yml")
	tests := filepath.Join(deployDir, "diskdoctor-alerts.test.yml")
	if *update {
		regenerateSeries(t, tests)
	}
	for _, args := range [][]string{{"check", "rules", alerts}, {"test", "rules", tests}} {
		out, err := exec.Command(promtool, args...).CombinedOutput()
		if err != nil {
			t.Errorf("promtool %s: %v\n%s", strings.Join(args, " "), err, out)
		} else {
			t.Logf("promtool %s: %s", strings.Join(args, " "), bytes.Join(bytes.Fields(out), []byte(" ")))
		}
	}

	b, err := os.ReadFile(tests)
	if err != nil {
		t.Fatal(err)
	}
	var pt promtoolTests
	if err := yaml.Unmarshal(b, &pt); err != nil {
		t.Fatal(err)
	}
	groups := 0
	for _, g := range pt.Tests {
		fixture, ok := strings.CutPrefix(g.Name, "fixture: ")
		if !ok {
			continue
		}
		groups++
		t.Run(fixture, func(t *testing.T) {
			want := map[string]float64{}
			fams, err := parseTextfile(renderProm(t, fixtureReport(t, fixture), RunInfo{}))
			if err != nil {
				t.Fatal(err)
			}
			for _, f := range fams {
				for _, s := range f.samples {
					if !runVaryingSeries[s.name] {
						want[s.key()] = s.value
					}
				}
			}
			have := map[string]float64{}
			for _, in := range g.InputSeries {
				name, labels, rest, err := parseSeries(in.Series)
				if err != nil || rest != "" {
					t.Fatalf("series %q: %v %q", in.Series, err, rest)
				}
				if runVaryingSeries[name] {
					continue
				}
				if labels["job"] == "" || labels["instance"] == "" {
					t.Errorf("%s: no job and instance labels, as a scrape adds them", in.Series)
				}
				delete(labels, "job")
				delete(labels, "instance")
				m := constantValues.FindStringSubmatch(in.Values)
				if m == nil {
					t.Errorf("%s: values %q are not one constant (VxN)", in.Series, in.Values)
					continue
				}
				v, err := parseValue(m[1])
				if err != nil {
					t.Errorf("%s: %v", in.Series, err)
				}
				have[promSample{name: name, labels: labels}.key()] = v
			}
			stale := false
			for k, v := range want {
				if hv, ok := have[k]; !ok || hv != v {
					t.Errorf("the doctor prints %s %v; the test file has %v (present: %v)", k, v, hv, ok)
					stale = true
				}
			}
			for k, v := range have {
				if _, ok := want[k]; !ok {
					t.Errorf("the test file has %s %v, which the doctor does not print for %s", k, v, fixture)
					stale = true
				}
			}
			if stale {
				t.Errorf("regenerate the input series with: go test ./cmd/diskdoctor -run TestPromtoolRules -update (then check the alert expectations)")
			}
		})
	}
	if groups == 0 {
		t.Error(`no "fixture: NAME" test group in the promtool test file`)
	}

	// Every metric the alerts use is one the doctor can print.
	rulesText, err := os.ReadFile(alerts)
	if err != nil {
		t.Fatal(err)
	}
	full := &rules.Report{
		Schema: rules.Schema, Verdict: rules.VerdictOK,
		Findings: []rules.Finding{{Rule: "write-cache-disabled", Severity: rules.Critical, Subjects: []string{"sda"}}},
		Skipped:  []checks.Skipped{{Check: "cpu-power", Reason: "r"}},
		Devices:  []map[string]any{{"name": "sda", "judged": true}},
	}
	for _, g := range deviceGauges {
		full.Devices[0][g.fact] = true
	}
	fams, err := parseTextfile(renderProm(t, full, RunInfo{Start: time.Unix(1, 0)}))
	if err != nil {
		t.Fatal(err)
	}
	printable := map[string]bool{}
	for _, f := range fams {
		printable[f.name] = true
	}
	for _, m := range regexp.MustCompile(`diskdoctor_[a-z_]+`).FindAllString(string(rulesText), -1) {
		if !printable[m] {
			t.Errorf("the alert rules use %s, which the doctor never prints", m)
		}
	}
}

// unitSettings reads Key=Value lines of a unit file, by section.
func unitSettings(t *testing.T, path string) map[string][]string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	out := map[string][]string{}
	section := ""
	for _, line := range strings.Split(string(b), "\n") {
		line = strings.TrimSpace(line)
		switch {
		case line == "" || strings.HasPrefix(line, "#") || strings.HasPrefix(line, ";"):
		case strings.HasPrefix(line, "["):
			section = strings.Trim(line, "[]")
		default:
			k, v, _ := strings.Cut(line, "=")
			out[section+"."+k] = append(out[section+"."+k], v)
		}
	}
	return out
}

// TestSystemdUnits: systemd-analyze verify accepts the service and the
// timer (with ExecStart pointed at the built binary), and the service keeps
// the settings the doctor depends on.
func TestSystemdUnits(t *testing.T) {
	svc := unitSettings(t, filepath.Join(deployDir, "diskdoctor.service"))
	tmr := unitSettings(t, filepath.Join(deployDir, "diskdoctor.timer"))
	one := func(m map[string][]string, key string) string {
		if len(m[key]) != 1 {
			t.Errorf("%s: want one setting, have %q", key, m[key])
			return ""
		}
		return m[key][0]
	}
	// --format prometheus exits 0 with any verdict once it has written
	// the metrics: every other status is a failure, a runtime's exit 2
	// too, so the unit counts no other status as success. The textfile
	// directory is the one writable path; nothing hides the devices or
	// the kernel log.
	if got, set := svc["Service.SuccessExitStatus"]; set {
		t.Errorf("SuccessExitStatus=%v would count a failure as success", got)
	}
	execStart := strings.Fields(one(svc, "Service.ExecStart"))
	out := ""
	for i, a := range execStart {
		if a == "--output" && i+1 < len(execStart) {
			out = execStart[i+1]
		}
	}
	if !strings.Contains(strings.Join(execStart, " "), "--format prometheus") || out == "" {
		t.Errorf("ExecStart %q does not write --format prometheus to an --output file", execStart)
	}
	if rw := strings.TrimPrefix(one(svc, "Service.ReadWritePaths"), "-"); rw != filepath.Dir(out) {
		t.Errorf("ReadWritePaths=%s, but the textfile is written to %s", rw, filepath.Dir(out))
	}
	for key, want := range map[string]string{
		"Service.Type": "oneshot", "Service.ProtectSystem": "strict", "Service.PrivateTmp": "yes", "Service.NoNewPrivileges": "yes",
		"Timer.Persistent": "true", "Timer.OnCalendar": "hourly", "Timer.RandomizedDelaySec": "5min", "Install.WantedBy": "timers.target",
	} {
		m := svc
		if strings.HasPrefix(key, "Timer.") || strings.HasPrefix(key, "Install.") {
			m = tmr
		}
		if got := one(m, key); got != want {
			t.Errorf("%s=%s, want %s", key, got, want)
		}
	}
	if one(tmr, "Timer.OnBootSec") == "" {
		t.Error("the timer does not run after boot")
	}
	for _, key := range []string{"PrivateDevices", "ProtectKernelLogs", "ProtectClock", "DeviceAllow", "DynamicUser", "User"} {
		if v, set := svc["Service."+key]; set {
			t.Errorf("%s=%v would keep the doctor from /dev, the kernel log or root", key, v)
		}
	}
	caps := one(svc, "Service.CapabilityBoundingSet")
	for _, c := range []string{"CAP_SYS_RAWIO", "CAP_SYSLOG"} {
		if !strings.Contains(caps, c) {
			t.Errorf("CapabilityBoundingSet lacks %s (hdparm SG_IO, dmesg)", c)
		}
	}

	analyze := lookTool(t, "systemd-analyze", "systemd")
	dir := t.TempDir()
	for _, name := range []string{"diskdoctor.service", "diskdoctor.timer"} {
		b, err := os.ReadFile(filepath.Join(deployDir, name))
		if err != nil {
			t.Fatal(err)
		}
		// verify wants ExecStart's program to exist: use the built binary.
		b = bytes.ReplaceAll(b, []byte("ExecStart=/usr/bin/diskdoctor "), []byte("ExecStart="+builtBinary(t)+" "))
		if err := os.WriteFile(filepath.Join(dir, name), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	units := []string{filepath.Join(dir, "diskdoctor.service"), filepath.Join(dir, "diskdoctor.timer")}
	cmd := exec.Command(analyze, append([]string{"verify", "--man=no"}, units...)...)
	cmd.Env = append(os.Environ(), "SYSTEMD_LOG_COLOR=0", "SYSTEMD_PAGER=")
	msg, err := cmd.CombinedOutput()
	var exitErr *exec.ExitError
	if err != nil && !errors.As(err, &exitErr) {
		t.Fatalf("systemd-analyze: %v", err)
	}
	// A problem with our units names them (unknown keys are only a warning
	// with exit status 0, so the output counts, not just the status).
	var ours []string
	for _, line := range strings.Split(string(msg), "\n") {
		if strings.Contains(line, "diskdoctor.service") || strings.Contains(line, "diskdoctor.timer") || strings.Contains(line, builtBinary(t)) {
			ours = append(ours, line)
		}
	}
	switch {
	case len(ours) > 0:
		t.Errorf("systemd-analyze verify (exit %v) reports on the units:\n%s", err, strings.Join(ours, "\n"))
	case err != nil:
		t.Skipf("systemd-analyze verify cannot run here (exit %d, nothing about our units; no systemd manager?):\n%s", exitErr.ExitCode(), msg)
	default:
		t.Logf("systemd-analyze verify: both units accepted")
	}

	// The sandbox's exposure, for the record (systemd 252: --offline).
	sec, err := exec.Command(analyze, "security", "--offline=yes", "--no-pager", units[0]).CombinedOutput()
	if m := regexp.MustCompile(`Overall exposure level for \S+: ([0-9.]+) (\w+)`).FindSubmatch(sec); err == nil && m != nil {
		if lvl, _ := strconv.ParseFloat(string(m[1]), 64); lvl > 5 {
			t.Errorf("systemd-analyze security: exposure %s %s; the sandbox has weakened", m[1], m[2])
		}
		t.Logf("systemd-analyze security: exposure %s %s", m[1], m[2])
	}
}
