package rules

import (
	"regexp"
	"strings"
	"testing"
)

// multipathConfLine is one line of a multipath.conf(5) fragment: a
// section opening ("overrides {"), a keyword and its value, or "}".
var multipathConfLine = regexp.MustCompile(`^\s*(?:(\w+)\s*\{|(\w+)\s+("[^"]*"|\S+)|\})\s*$`)

// multipathConfKeys: the top-level sections multipath.conf(5) knows and,
// for those a fragment of ours writes, the keywords it may set.
var multipathConfKeys = map[string]map[string]bool{
	"defaults":  {"no_path_retry": true, "polling_interval": true},
	"overrides": {"no_path_retry": true},
}

// checkMultipathConf: a conf.d fragment is multipath.conf syntax, its
// sections are ones a config_dir file may hold, its keywords known there,
// and no_path_retry is a number, fail or queue.
func checkMultipathConf(t *testing.T, name string, h heredoc) {
	t.Helper()
	section, keys := "", 0
	for _, line := range strings.Split(h.body, "\n") {
		if strings.TrimSpace(line) == "" || strings.HasPrefix(strings.TrimSpace(line), "#") {
			continue
		}
		m := multipathConfLine.FindStringSubmatch(line)
		switch {
		case m == nil:
			t.Errorf("%s: %s: not multipath.conf syntax: %q", name, h.path, line)
		case m[1] != "":
			if section != "" || multipathConfKeys[m[1]] == nil {
				t.Errorf("%s: %s: section %s (inside %q) not allowed", name, h.path, m[1], section)
			}
			section = m[1]
		case m[2] != "":
			if !multipathConfKeys[section][m[2]] {
				t.Errorf("%s: %s: %s/%s is not a known keyword", name, h.path, section, m[2])
			}
			if m[2] == "no_path_retry" && !regexp.MustCompile(`^(\d+|fail|queue)$`).MatchString(m[3]) {
				t.Errorf("%s: %s: no_path_retry %q", name, h.path, m[3])
			}
			keys++
		default:
			if section == "" {
				t.Errorf("%s: %s: } without a section", name, h.path)
			}
			section = ""
		}
	}
	if section != "" || keys == 0 {
		t.Errorf("%s: %s: section %q left open, or no setting (%d)", name, h.path, section, keys)
	}
}

// multipathd not read: the observed line leaves its queueing out rather
// than printing it unknown, and says what was read (multipath -ll's
// features, the iSCSI sessions).
func TestMultipathQueueObservedWithoutMultipathd(t *testing.T) {
	p := pool("mpatha", map[string]any{"multipath_dm": "dm-2", "multipath_queue_if_no_path": true,
		"multipath_iscsi_sessions": []string{"session18 (sdb): recovery_tmo 120 s"}, "multipath_iscsi_recovery_tmo": 120})
	for _, f := range judge(t, p) {
		if f.Rule != "multipath-queue-forever" {
			continue
		}
		if want := "mpatha (dm-2): features queue_if_no_path; iSCSI session18 (sdb): recovery_tmo 120 s"; f.Observed != want {
			t.Errorf("observed %q, want %q", f.Observed, want)
		}
		return
	}
	t.Error("no multipath-queue-forever finding")
}
