package report

import (
	"bytes"
	"encoding/json"
	"maps"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"testing"
	"time"

	"go.yaml.in/yaml/v3"
)

// alertLabels are the static labels of each alert in the rule file.
func alertLabels(t *testing.T) map[string]map[string]string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(deployDir, "diskdoctor-alerts.yml"))
	if err != nil {
		t.Fatal(err)
	}
	var doc struct {
		Groups []struct {
			Rules []struct {
				Alert  string            `yaml:"alert"`
				Labels map[string]string `yaml:"labels"`
			} `yaml:"rules"`
		} `yaml:"groups"`
	}
	if err := yaml.Unmarshal(b, &doc); err != nil {
		t.Fatal(err)
	}
	out := map[string]map[string]string{}
	for _, g := range doc.Groups {
		for _, r := range g.Rules {
			out[r.Alert] = r.Labels
		}
	}
	return out
}

// TestAlertmanagerInhibition: amtool accepts docs/deploy/alertmanager-inhibit.yml,
// and a real Alertmanager with it suppresses DiskdoctorCritical for a rule
// whose per-rule alert fires on the same instance, and only that one: the
// summary of a critical rule without an alert of its own stays active, as
// does the summary on another instance. The alerts carry the labels the rule
// file gives them (scope, rule), plus those of their series.
func TestAlertmanagerInhibition(t *testing.T) {
	amtool := lookTool(t, "amtool", "prometheus-alertmanager")
	cfg := filepath.Join(deployDir, "alertmanager-inhibit.yml")
	if out, err := exec.Command(amtool, "check-config", cfg).CombinedOutput(); err != nil {
		t.Fatalf("amtool check-config: %v\n%s", err, out)
	}
	am := lookTool(t, "prometheus-alertmanager", "prometheus-alertmanager")

	labels := alertLabels(t)
	// Every per-rule alert names its rule (from its series or its labels),
	// or the inhibition's equal: [instance, rule] could not match it.
	for name, ls := range labels {
		if ls["scope"] == "" {
			t.Errorf("%s has no scope label", name)
		}
	}
	with := func(alert string, extra map[string]string) map[string]string {
		m := map[string]string{"alertname": alert, "job": "node"}
		for k, v := range labels[alert] {
			m[k] = v
		}
		for k, v := range extra {
			m[k] = v
		}
		return m
	}
	alerts := []map[string]string{
		with("DiskdoctorWriteCacheDisabled", map[string]string{"instance": "a:9100", "rule": "write-cache-disabled", "subject": "sda"}),
		with("DiskdoctorSmartFailing", map[string]string{"instance": "a:9100", "device": "sdb"}),
		with("DiskdoctorCritical", map[string]string{"instance": "a:9100", "rule": "write-cache-disabled"}),
		with("DiskdoctorCritical", map[string]string{"instance": "a:9100", "rule": "smart-failing"}),
		with("DiskdoctorCritical", map[string]string{"instance": "a:9100", "rule": "md-degraded"}),
		with("DiskdoctorCritical", map[string]string{"instance": "b:9100", "rule": "write-cache-disabled"}),
	}
	want := map[string]string{ // instance/alertname/rule: state
		"a:9100/DiskdoctorWriteCacheDisabled/write-cache-disabled": "active",
		"a:9100/DiskdoctorSmartFailing/smart-failing":              "active",
		"a:9100/DiskdoctorCritical/write-cache-disabled":           "suppressed",
		"a:9100/DiskdoctorCritical/smart-failing":                  "suppressed",
		"a:9100/DiskdoctorCritical/md-degraded":                    "active",
		"b:9100/DiskdoctorCritical/write-cache-disabled":           "active",
	}

	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	l.Close()
	var log bytes.Buffer
	cmd := exec.Command(am, "--config.file="+cfg, "--storage.path="+t.TempDir(), "--web.listen-address="+addr, "--cluster.listen-address=")
	cmd.Stdout, cmd.Stderr = &log, &log
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() { _ = cmd.Process.Kill(); _ = cmd.Wait() }()

	type apiAlert struct {
		Labels map[string]string `json:"labels"`
		Status struct {
			State       string   `json:"state"`
			InhibitedBy []string `json:"inhibitedBy"`
		} `json:"status"`
	}
	post := make([]apiAlert, len(alerts))
	for i, a := range alerts {
		post[i].Labels = a
	}
	body, _ := json.Marshal(post)
	base := "http://" + addr + "/api/v2/alerts"
	var got map[string]string
	for deadline := time.Now().Add(20 * time.Second); time.Now().Before(deadline); time.Sleep(200 * time.Millisecond) {
		resp, err := http.Post(base, "application/json", bytes.NewReader(body))
		if err != nil {
			continue // not listening yet
		}
		resp.Body.Close()
		if resp.StatusCode != http.StatusOK {
			t.Fatalf("POST alerts: %s\n%s", resp.Status, log.String())
		}
		resp, err = http.Get(base)
		if err != nil {
			t.Fatal(err)
		}
		var list []apiAlert
		err = json.NewDecoder(resp.Body).Decode(&list)
		resp.Body.Close()
		if err != nil {
			t.Fatal(err)
		}
		got = map[string]string{}
		for _, a := range list {
			got[a.Labels["instance"]+"/"+a.Labels["alertname"]+"/"+a.Labels["rule"]] = a.Status.State
		}
		// Alertmanager lists an alert before its inhibitor has muted it:
		// wait for the states, not only for the alerts.
		if maps.Equal(got, want) {
			break
		}
	}
	for k, w := range want {
		if got[k] != w {
			t.Errorf("%s: %q, want %q", k, got[k], w)
		}
	}
	t.Logf("Alertmanager %s: %v", strconv.Quote(addr), got)
}
