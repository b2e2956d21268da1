package main

import (
	"encoding/json"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"
)

// The custom plugin monitor's log lines (with -v=5) of a plugin's result
// and of the condition it made of it (pkg/custompluginmonitor/
// custom_plugin_monitor.go, "Receive new plugin result" and "New status
// generated", NPD v0.8.20 as packaging/npd/build-npd.sh builds it).
var (
	npdResult    = regexp.MustCompile(`Receive new plugin result for [^:]+: \{Rule:\S+ ExitStatus:(\d+) Message:([^}]*)\}`)
	npdCondition = regexp.MustCompile(`Conditions:\[\{Type:DiskdoctorProblem Status:(\w+) Transition:[^}]*? Reason:(\w+) Message:([^}]*)\}\]`)
)

// TestRealNPD runs the real node-problem-detector with the shipped
// custom-plugin-monitor config (packaging/npd/diskdoctor-monitor.json),
// the plugin pointed at a recorded machine instead of --host-root /host,
// and checks the DiskdoctorProblem condition NPD reports: False for a
// healthy machine, True with the line for a problem, Unknown when the
// doctor cannot examine the machine.
func TestRealNPD(t *testing.T) {
	npd := os.Getenv("DISKDOCTOR_NPD")
	if npd == "" {
		npd, _ = exec.LookPath("node-problem-detector")
	}
	if npd == "" {
		t.Skip("no node-problem-detector: build it with packaging/npd/build-npd.sh and set DISKDOCTOR_NPD to the binary")
	}
	raw, err := os.ReadFile("../../packaging/npd/diskdoctor-monitor.json")
	if err != nil {
		t.Fatal(err)
	}
	root, _ := filepath.Abs("../..")
	for _, c := range []struct {
		fixture, exit, line, status, reason, message string
	}{
		{"healthy-workstation", "0", "OK: no warning or critical findings (1 info)", "False", "DiskdoctorOK", "diskdoctor found no warning or critical storage problem"},
		{"md-raid1-degraded", "1", "CRITICAL: md-degraded on md0; kernel-io-errors on sdc", "True", "DiskdoctorFinding", "CRITICAL: md-degraded on md0; kernel-io-errors on sdc"},
		{"does-not-exist", "2", "UNKNOWN: recorded machine", "Unknown", "DiskdoctorOK", "UNKNOWN: recorded machine"},
	} {
		t.Run(c.fixture, func(t *testing.T) {
			var cfg map[string]any
			if err := json.Unmarshal(raw, &cfg); err != nil {
				t.Fatal(err)
			}
			for _, r := range cfg["rules"].([]any) {
				rule := r.(map[string]any)
				args := rule["args"].([]any)
				if rule["path"] != "/usr/bin/diskdoctor" || len(args) != 4 || args[2] != "--host-root" {
					t.Fatalf("the shipped rule is not /usr/bin/diskdoctor --format npd --host-root /host: %v %v", rule["path"], args)
				}
				rule["path"] = binary
				rule["args"] = []any{"--format", "npd", "--probe-timeout", "1s", "--root", filepath.Join(root, "fixtures", c.fixture)}
			}
			dir := t.TempDir()
			path := filepath.Join(dir, "monitor.json")
			b, _ := json.Marshal(cfg)
			if err := os.WriteFile(path, b, 0o644); err != nil {
				t.Fatal(err)
			}
			// NPD starts only with an exporter; Prometheus on a free port
			// is the one that needs no cluster.
			l, err := net.Listen("tcp", "127.0.0.1:0")
			if err != nil {
				t.Fatal(err)
			}
			port := l.Addr().(*net.TCPAddr).Port
			l.Close()
			logf, err := os.Create(filepath.Join(dir, "npd.log"))
			if err != nil {
				t.Fatal(err)
			}
			defer logf.Close()
			cmd := exec.Command(npd, "-v=5", "--enable-k8s-exporter=false", "--config.custom-plugin-monitor="+path,
				"--port=0", "--prometheus-address=127.0.0.1", "--prometheus-port="+strconv.Itoa(port), "--hostname-override=diskdoctor-test")
			cmd.Stdout, cmd.Stderr = logf, logf
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			defer func() { _ = cmd.Process.Kill(); _ = cmd.Wait() }()
			// Both rules run when the monitor starts, the temporary one
			// first; the condition is the permanent rule's, after the
			// second result.
			var res, cond []string
			for deadline := time.Now().Add(60 * time.Second); time.Now().Before(deadline); time.Sleep(200 * time.Millisecond) {
				log, _ := os.ReadFile(logf.Name())
				if results := npdResult.FindAllStringSubmatch(string(log), -1); len(results) >= 2 {
					res = results[1]
					conds := npdCondition.FindAllStringSubmatch(string(log), -1)
					cond = conds[len(conds)-1]
					break
				}
			}
			if res == nil {
				log, _ := os.ReadFile(logf.Name())
				t.Fatalf("NPD logged no two plugin results:\n%s", log)
			}
			if res[1] != c.exit || !strings.HasPrefix(res[2], c.line) {
				t.Errorf("plugin result: exit %s %q, want %s %q...", res[1], res[2], c.exit, c.line)
			}
			if cond[1] != c.status || cond[2] != c.reason || !strings.HasPrefix(cond[3], c.message) {
				t.Errorf("condition %s reason %s message %q, want %s %s %q...", cond[1], cond[2], cond[3], c.status, c.reason, c.message)
			}
			t.Logf("NPD: plugin exit %s %q; DiskdoctorProblem=%s reason=%s message=%q", res[1], res[2], cond[1], cond[2], cond[3])
		})
	}
}
