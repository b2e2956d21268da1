package checks

import (
	"strings"
	"testing"

	"github.com/diskdoctor/diskdoctor/probes/bootcfg"
)

// The zfsutils-linux script's rule, pool by pool: auto (or unset) trims a
// pool only when every member is NVMe; a pool whose members did not
// resolve, or whose property was not read, is unknown, never left out.
func TestZFSJobVerdict(t *testing.T) {
	job := bootcfg.Line{File: "/etc/cron.d/zfsutils-linux", Num: 4, Text: "24 0 1-7 * * root /usr/lib/zfs-linux/trim"}
	j := zfsTrimJobs{
		jobs:       bootcfg.ZFSTrimJobs{Script: []bootcfg.Line{job}},
		periodic:   map[string]string{"fast": "auto", "fastunset": "-", "sata": "auto", "satason": "enable", "fastoff": "disable", "lost": "auto"},
		periodicOK: true,
		nvmeOnly:   map[string]bool{"fast": true, "fastunset": true, "sata": false, "satason": false, "fastoff": true},
	}
	for _, tt := range []struct {
		pool             string
		covered, unknown bool
		left             string
	}{
		{"fast", true, false, ""},
		{"fastunset", true, false, ""},
		{"satason", true, false, ""},
		{"sata", false, false, "=auto trims only pools whose members are all NVMe"},
		{"fastoff", false, false, "=disable"},
		{"lost", false, true, ""},    // a member did not resolve
		{"missing", false, true, ""}, // the pool's root dataset was not listed
	} {
		v := j.verdict(tt.pool)
		if v.covered != tt.covered || v.unknown != tt.unknown || (tt.left == "") != (v.left == "") || !strings.Contains(v.left, tt.left) {
			t.Errorf("%s: %+v, want covered %v unknown %v left %q", tt.pool, v, tt.covered, tt.unknown, tt.left)
		}
		if v.periodicOff != (tt.left != "") {
			t.Errorf("%s: periodicOff = %v", tt.pool, v.periodicOff)
		}
		if v.covered && (len(v.ev) != 2 || v.ev[0].Source != "/etc/cron.d/zfsutils-linux:4") {
			t.Errorf("%s: evidence %+v, want the job line and the property", tt.pool, v.ev)
		}
	}
	// The 2026 script also trims SATA SSDs that do queued TRIM under auto:
	// which of a pool's disks do is not read, so the pool is unknown.
	j.autoSATA = true
	if v := j.verdict("sata"); !v.unknown || v.covered || v.periodicOff || !strings.Contains(v.regime, "may trim pool sata") {
		t.Errorf("auto, SATA pool, 2026 script: %+v, want unknown", v)
	}
	if v := j.verdict("fast"); !v.covered {
		t.Errorf("auto, NVMe pool, 2026 script: %+v, want covered", v)
	}
	if v := j.verdict("fastoff"); v.covered || v.unknown || !v.periodicOff {
		t.Errorf("disable, 2026 script: %+v, want left out", v)
	}
	j.periodicOK = false
	if v := j.verdict("fast"); !v.unknown || v.covered {
		t.Errorf("unread property: %+v, want unknown", v)
	}
}
