package rules

import (
	"flag"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/diskdoctor/diskdoctor/checks"
)

var update = flag.Bool("update", false, "rewrite golden files")

func TestEveryRuleLoads(t *testing.T) {
	rs, err := Load()
	if err != nil {
		t.Fatal(err)
	}
	// The core set of design.md that this version judges.
	for _, id := range []string{"write-cache-disabled", "write-cache-state-mismatch", "write-cache-not-persistent", "trim-unsupported", "trim-not-scheduled", "pcie-link-degraded", "cpu-governor-powersave", "io-pressure-high"} {
		found := false
		for _, r := range rs {
			found = found || r.ID == id
		}
		if !found {
			t.Errorf("rule %s missing", id)
		}
	}
	for _, r := range rs {
		if len(r.References) == 0 {
			t.Errorf("%s: no references", r.ID)
		}
		for _, m := range r.Remediation {
			// Writing queue/write_cache only changes the kernel's belief; it
			// is the remedy for a mismatch, never a way to turn a cache on.
			if strings.Contains(m.Command, "queue/write_cache") && r.ID != "write-cache-state-mismatch" {
				t.Errorf("%s suggests writing queue/write_cache: %s", r.ID, m.Command)
			}
		}
	}
}

func TestRuleValidation(t *testing.T) {
	base := "id: x\ntitle: t\nsubject: device\nseverity: warning\nwhen: 'true'\nwhy: w\nimpact: i\nexpected: e\n"
	for name, extra := range map[string]string{
		"bad severity":           "severity_when: [{when: 'true', severity: fatal}]\n",
		"bad risk":               "remediation: [{command: c, risk: dangerous}]\n",
		"destructive needs note": "remediation: [{command: blkdiscard x, risk: destructive}]\n",
		"bad expression":         "notes: [{when: '(((', text: n}]\n",
		"bad template":           "observed: '{{.x'\n",
		"unknown field (typo)":   "remedation: []\n",
	} {
		if _, err := parseRule([]byte(base + extra)); err == nil {
			t.Errorf("%s: accepted", name)
		}
	}
	if _, err := parseRule([]byte(base)); err != nil {
		t.Errorf("minimal rule rejected: %v", err)
	}
}

func TestDatasheets(t *testing.T) {
	ds, err := LoadDatasheets("")
	if err != nil {
		t.Fatal(err)
	}
	if len(ds.Models) < 30 {
		t.Errorf("%d models, want at least 30", len(ds.Models))
	}
	classes := map[string]bool{}
	for _, c := range ds.Classes {
		classes[c.Class] = true
		if !strings.HasPrefix(c.Source, "class default") {
			t.Errorf("class %s: source %q does not say it is a class default", c.Class, c.Source)
		}
	}
	for _, m := range ds.Models {
		if !classes[m.Class] {
			t.Errorf("%s: class %q has no default", m.Product, m.Class)
		}
	}
	for model, want := range map[string]string{
		"WDC_WDS200T1R0A-68A4W0":  "WD Red SA500 2TB",
		"Samsung SSD 860 EVO 1TB": "860 EVO 1TB",
		"INTEL SSDPEK1A118GA":     "P1600X",
		"Samsung SSD 980 PRO 1TB": "980 PRO 1TB",
	} {
		d := ds.Lookup(model, "sata-ssd")
		if d == nil || !d.ModelEntry || !strings.Contains(d.Product, want) {
			t.Errorf("Lookup(%q) = %+v, want %s", model, d, want)
		}
	}
	if d := ds.Lookup("Unknown Drive 9000", "nvme-gen4"); d == nil || d.ModelEntry || d.Class != "nvme-gen4" {
		t.Errorf("unknown model should fall back to the class default, got %+v", d)
	}
	user := filepath.Join(t.TempDir(), "mine.yaml")
	if err := os.WriteFile(user, []byte("models:\n  - match: '^WDC WDS200T1R0A'\n    product: My lab figure\n    class: sata-ssd\n    seq_write_mbs: 400\n    volatile_cache: true\n    source: our own fio runs, 2026\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	ds2, err := LoadDatasheets(user)
	if err != nil {
		t.Fatal(err)
	}
	if d := ds2.Lookup("WDC WDS200T1R0A-68A4W0", "sata-ssd"); d.Product != "My lab figure" {
		t.Errorf("user datasheet must take precedence, got %s", d.Product)
	}
	if _, err := LoadDatasheets(filepath.Join(t.TempDir(), "absent.yaml")); err == nil {
		t.Error("a missing --datasheets file must be an error")
	}
}

func TestDeviceClass(t *testing.T) {
	tests := []struct {
		transport string
		rot       any
		gts       any
		want      string
	}{
		{"sata", false, nil, "sata-ssd"}, {"sata", true, nil, "sata-hdd"}, {"sas", true, nil, "sas-hdd"},
		{"nvme", false, 8.0, "nvme-gen3"}, {"nvme", false, 16.0, "nvme-gen4"}, {"nvme", false, 32.0, "nvme-gen5"},
		{"nvme", false, nil, "nvme-gen3"}, {"usb", true, nil, "usb"}, {"virtio", true, nil, "virtual"},
		{"pata", true, nil, "pata-hdd"}, {"pata", false, nil, "sata-ssd"},
		{"iscsi", true, nil, "iscsi"}, {"fc", false, nil, "fc"}, {"sas", false, nil, "sas-ssd"},
		{"scsi", nil, nil, "unknown"}, {"sata", nil, nil, "unknown"}, {"scsi", false, nil, "sata-ssd"},
	}
	for _, tt := range tests {
		if got := DeviceClass(tt.transport, tt.rot, tt.gts); got != tt.want {
			t.Errorf("DeviceClass(%s, %v, %v) = %s, want %s", tt.transport, tt.rot, tt.gts, got, tt.want)
		}
	}
}

// A SCSI-attached disk's class says what it is: a RAID controller's
// logical drive a volume, whatever its rotational flag; a SATA drive
// (INQUIRY vendor "ATA") behind a SAS HBA SATA; a drive a RAID controller
// passes through SAS unless it says ATA; iSCSI and FC LUNs their own.
func TestDeviceClassBehindSCSI(t *testing.T) {
	for _, tt := range []struct {
		facts map[string]any
		want  string
	}{
		{map[string]any{"transport": "raid", "rotational": true, "vendor": "HP", "controller_volume": true}, "raid-volume"},
		{map[string]any{"transport": "raid", "rotational": false, "vendor": "", "controller_volume": true}, "raid-volume"},
		{map[string]any{"transport": "raid", "rotational": true, "vendor": "SEAGATE", "controller_volume": false}, "sas-hdd"},
		{map[string]any{"transport": "raid", "rotational": true, "vendor": "ATA     ", "controller_volume": false}, "sata-hdd"},
		{map[string]any{"transport": "sas", "rotational": true, "vendor": "ATA"}, "sata-hdd"},
		{map[string]any{"transport": "sas", "rotational": true, "vendor": "HGST"}, "sas-hdd"},
		{map[string]any{"transport": "iscsi", "rotational": true, "vendor": "LIO-ORG"}, "iscsi"},
		{map[string]any{"transport": "fc", "rotational": false, "vendor": "3PARdata"}, "fc"},
		{map[string]any{"transport": "sata", "rotational": true, "vendor": "ATA"}, "sata-hdd"},
	} {
		if got := deviceClass(tt.facts); got != tt.want {
			t.Errorf("deviceClass(%v) = %s, want %s", tt.facts, got, tt.want)
		}
	}
}

// judge runs the engine on hand-made observations.
func judge(t *testing.T, obs ...*checks.Observation) []Finding {
	t.Helper()
	fs, err := readOnlyEngine(t).Judge(&checks.Result{Observations: obs})
	if err != nil {
		t.Fatal(err)
	}
	return fs
}

// strictEngine is the embedded rules with the default datasheets, strict.
func strictEngine(t *testing.T) *Engine {
	t.Helper()
	ds, err := LoadDatasheets("")
	if err != nil {
		t.Fatal(err)
	}
	e, err := NewEngine(ds)
	if err != nil {
		t.Fatal(err)
	}
	e.Strict = true
	return e
}

// readOnlyEngine is strictEngine made once for the package, for judge
// and build, which only judge with it: making an engine parses every
// rule, and the tests call them hundreds of times. A test that changes
// an engine (its datasheets, site, rules) makes its own with strictEngine.
func readOnlyEngine(t *testing.T) *Engine {
	t.Helper()
	e, err := sharedEngine()
	if err != nil {
		t.Fatal(err)
	}
	return e
}

var sharedEngine = sync.OnceValues(func() (*Engine, error) {
	ds, err := LoadDatasheets("")
	if err != nil {
		return nil, err
	}
	e, err := NewEngine(ds)
	if err != nil {
		return nil, err
	}
	e.Strict = true
	return e, nil
})

func device(name string, facts map[string]any) *checks.Observation {
	o := checks.NewObservation("test", checks.KindDevice, name)
	base := map[string]any{"judged": true, "transport": "sata", "rotational": false, "ata": true, "in_use": true,
		"dev_path": "/dev/" + name, "model": "WDC WDS200T1R0A-68A4W0", "udev_serial": "WDC_X_" + name,
		"mountpoints": []string{}, "zfs_pools": []string{}, "trim_blocked_by": []string{}}
	for k, v := range base {
		o.Set(k, v)
	}
	for k, v := range facts {
		o.Set(k, v, checks.Evidence{Source: "/sys/block/" + name + "/" + k, Value: "x"})
	}
	return o
}

func TestGroupingAndRanking(t *testing.T) {
	off := map[string]any{"wc_on": false, "wc_supported": true, "wc_kernel_on": false, "wc_drive_enabled": false}
	host := checks.NewObservation("test", checks.KindHost, "host")
	host.Set("io_some_avg60", 30.0)
	host.Set("io_full_avg60", 12.0)
	fs := judge(t, device("sda", off), device("sdb", off), device("sdc", off), host)
	if len(fs) != 2 {
		t.Fatalf("findings = %+v", fs)
	}
	if fs[0].Rule != "write-cache-disabled" || fs[0].Severity != Critical || strings.Join(fs[0].Subjects, ",") != "sda,sdb,sdc" {
		t.Errorf("first finding = %s %s %v", fs[0].Rule, fs[0].Severity, fs[0].Subjects)
	}
	if fs[1].Rule != "io-pressure-high" || fs[1].Severity != Warning {
		t.Errorf("second finding = %s %s", fs[1].Rule, fs[1].Severity)
	}
	// One command for every affected drive (hdparm takes several).
	var runtime []string
	for _, m := range fs[0].Remediation {
		if m.Risk == RiskRuntime {
			runtime = append(runtime, m.Command)
		}
	}
	if len(runtime) != 1 || runtime[0] != "hdparm -W1 /dev/sda /dev/sdb /dev/sdc" {
		t.Errorf("runtime remedies %q, want one hdparm -W1 for sda, sdb and sdc", runtime)
	}
}

func TestDestructiveOnlyForUnusedDevices(t *testing.T) {
	untrimmed := map[string]any{"trim_supported": true, "trim_relevant": true, "trim_covered": false, "trim_uncovered": []string{"ZFS pool p (autotrim=off)"}}
	used := device("sda", untrimmed)
	free := device("sdb", untrimmed)
	free.Set("in_use", false)
	fs := judge(t, used, free)
	if len(fs) != 1 {
		t.Fatalf("findings = %+v", fs)
	}
	var destructive []string
	for _, m := range fs[0].Remediation {
		if m.Risk == RiskDestructive {
			destructive = append(destructive, m.Command)
			if m.Note == "" {
				t.Error("destructive command without a warning note")
			}
		}
	}
	if len(destructive) != 1 || !strings.HasSuffix(destructive[0], "/dev/sdb") {
		t.Errorf("destructive commands = %v, want blkdiscard of sdb only", destructive)
	}
}

func TestRulesDocUpToDate(t *testing.T) {
	rs, err := Load()
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join("..", "docs", "rules.md")
	got := Markdown(rs)
	if *update {
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test ./rules -update)", err)
	}
	if string(want) != got {
		t.Error("docs/rules.md is stale: run go test ./rules -update and review the diff")
	}
}

func TestWriteCacheRules(t *testing.T) {
	tests := []struct {
		name  string
		facts map[string]any
		want  string // the one rule that must fire, "" for none
	}{
		{"kernel thinks no cache while the drive caches", map[string]any{"wc_kernel_on": false, "wc_drive_enabled": true, "wc_supported": true, "wc_on": true}, "write-cache-state-mismatch"},
		{"on by hand, nothing persists it", map[string]any{"wc_kernel_on": true, "wc_drive_enabled": true, "wc_supported": true, "wc_on": true, "wc_boot_disabled": true, "wc_persistent": false}, "write-cache-not-persistent"},
		{"on by hand, a udev rule persists it", map[string]any{"wc_kernel_on": true, "wc_drive_enabled": true, "wc_supported": true, "wc_on": true, "wc_boot_disabled": true, "wc_persistent": true}, ""},
		{"NVMe without a volatile cache", map[string]any{"transport": "nvme", "ata": false, "wc_kernel_on": false, "wc_supported": false, "wc_on": false, "model": "SAMSUNG MZQLB1T9HAJR-00007"}, ""},
		{"cache off on a USB bridge is only a note", map[string]any{"transport": "usb", "wc_on": false, "wc_supported": true}, "write-cache-disabled"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			fs := judge(t, device("sda", tt.facts))
			switch {
			case tt.want == "" && len(fs) != 0:
				t.Errorf("want no finding, got %s", fs[0].Rule)
			case tt.want != "" && (len(fs) != 1 || fs[0].Rule != tt.want):
				t.Errorf("want %s, got %+v", tt.want, fs)
			}
			if tt.want == "write-cache-disabled" && fs[0].Severity != Info {
				t.Errorf("USB: severity %s, want info", fs[0].Severity)
			}
			if tt.want == "write-cache-state-mismatch" {
				for _, m := range fs[0].Remediation {
					if strings.Contains(m.Command, "hdparm -W0") {
						t.Errorf("mismatch must not advise turning the cache off: %s", m.Command)
					}
				}
			}
		})
	}
}

// A configuration cause ranks before the measured symptom it explains and
// cites the measurement; a note-level finding explains nothing.
func TestCauseRanksBeforeItsSymptom(t *testing.T) {
	facts := map[string]any{"wc_on": false, "wc_supported": true,
		"sample_util_pct": 100.0, "sample_w_mbs": 7.5, "sample_wareq_kib": 126.0, "sample_w_await_ms": 65.0,
		"sample_r_mbs": 0.0, "sample_r_s": 0.8, "sample_w_s": 58.0, "sample_aqu_sz": 7.5, "sample_r_await_ms": 1.0}
	fs := judge(t, device("sda", facts))
	if len(fs) < 2 || fs[0].Rule != "write-cache-disabled" {
		t.Fatalf("findings = %+v", fs)
	}
	cited := false
	for _, ev := range fs[0].Evidence {
		if ev.Source == "measured (device-below-datasheet)" && strings.Contains(ev.Value, "1.4 %") {
			cited = true
		}
	}
	if !cited {
		t.Errorf("the cause does not cite the measured fraction of datasheet: %+v", fs[0].Evidence)
	}
	for _, f := range fs[1:] {
		if f.Rule == "device-below-datasheet" && !strings.Contains(strings.Join(f.Notes, " "), "explained by write-cache-disabled") {
			t.Errorf("the symptom does not point at its cause: %v", f.Notes)
		}
	}
}

// A virtual disk whose cache is off is the hypervisor's setting: at most a
// note naming it, never write-cache-disabled with sdparm (issue #10 item 9).
func TestVirtualDiskWriteCache(t *testing.T) {
	facts := map[string]any{"transport": "scsi", "ata": false, "virtual_disk": true, "hypervisor": "VMware",
		"hypervisor_cache_setting": "the ESXi host decides", "model": "Virtual disk",
		"wc_on": false, "wc_supported": nil, "wc_kernel_on": false, "wc_boot_enabled": false, "wc_boot_disabled": true, "rotational": true}
	fs := judge(t, device("sda", facts))
	if len(fs) != 1 || fs[0].Rule != "write-cache-virtual-disk" || fs[0].Severity != Info {
		t.Fatalf("findings = %+v", fs)
	}
	if len(fs[0].Remediation) != 0 || !strings.Contains(strings.Join(fs[0].Notes, " "), "ESXi") {
		t.Errorf("want no command and a note naming the hypervisor setting: %+v", fs[0])
	}
	if !strings.Contains(fs[0].Expected, "class default") || strings.Contains(fs[0].Expected, "3.5in") {
		t.Errorf("expected %q: want the virtual class default", fs[0].Expected)
	}
}

// A rule whose expression fails at run time is a skipped entry naming the
// rule and the error outside --strict, an error in strict mode.
func TestRuleRuntimeErrorIsSkipped(t *testing.T) {
	ds, _ := LoadDatasheets("")
	e, err := NewEngine(ds)
	if err != nil {
		t.Fatal(err)
	}
	bad, err := parseRule([]byte("id: broken\ntitle: t\nsubject: device\nseverity: warning\nwhen: 'size_bytes > 1'\nwhy: w\nimpact: i\nexpected: e\n"))
	if err != nil {
		t.Fatal(err)
	}
	e.Rules = append(e.Rules, bad)
	res := &checks.Result{Observations: []*checks.Observation{device("sda", map[string]any{"size_bytes": "not a number"})}}
	rep, err := e.Build(res, "/")
	if err != nil {
		t.Fatal(err)
	}
	found := false
	for _, s := range rep.Skipped {
		if s.Check == "rule broken" && strings.Contains(s.Reason, "condition failed") && len(s.Subjects) == 1 && s.Subjects[0] == "sda" {
			found = true
		}
	}
	if !found {
		t.Errorf("no skipped entry for the failing rule: %+v", rep.Skipped)
	}
	e.Strict = true
	if _, err := e.Build(res, "/"); err == nil || !strings.Contains(err.Error(), "broken") {
		t.Errorf("strict: err = %v", err)
	}
}

// A device idle during the window does not explain host I/O pressure; a
// busy one does (issue #10 item 16).
func TestIdleDeviceExplainsNoPressure(t *testing.T) {
	off := map[string]any{"wc_on": false, "wc_supported": true, "wc_kernel_on": false, "wc_drive_enabled": false}
	host := checks.NewObservation("test", checks.KindHost, "host")
	host.Set("io_some_avg60", 60.0)
	host.Set("io_full_avg60", 40.0)
	idle := device("sda", off)
	idle.Set("sample_util_pct", 0.0)
	idle.Set("sample_w_mbs", 0.0)
	fs := judge(t, idle, host)
	for _, f := range fs {
		if f.Rule == "io-pressure-high" && strings.Contains(strings.Join(f.Notes, " "), "explained by") {
			t.Errorf("an idle disk explains the pressure: %v", f.Notes)
		}
	}
	busy := device("sda", off)
	busy.Set("sample_util_pct", 100.0)
	busy.Set("sample_w_mbs", 7.5)
	fs = judge(t, busy, host)
	explained := false
	for _, f := range fs {
		if f.Rule == "io-pressure-high" && strings.Contains(strings.Join(f.Notes, " "), "explained by write-cache-disabled on sda") {
			explained = true
		}
	}
	if !explained {
		t.Errorf("a busy disk with its cache off must explain the pressure: %+v", fs)
	}
}

// NVMe with 'write through' written to queue/write_cache while the drive
// caches: the mismatch, with NVMe commands, not SCSI ones.
func TestNVMeMismatch(t *testing.T) {
	fs := judge(t, device("nvme0n1", map[string]any{"transport": "nvme", "ata": false, "scsi_address": "", "model": "Samsung SSD 980 PRO 1TB",
		"wc_kernel_on": false, "wc_drive_enabled": true, "wc_drive_supported": true, "wc_supported": true, "wc_on": true}))
	if len(fs) != 1 || fs[0].Rule != "write-cache-state-mismatch" {
		t.Fatalf("findings = %+v", fs)
	}
	var cmds []string
	for _, m := range fs[0].Remediation {
		cmds = append(cmds, m.Command)
	}
	got := strings.Join(cmds, "\n")
	if !strings.Contains(got, "nvme get-feature -f 0x06 -H /dev/nvme0n1") || !strings.Contains(got, "echo 'write back' > /sys/block/nvme0n1/queue/write_cache") || strings.Contains(got, "scsi_disk") || strings.Contains(got, "hdparm") {
		t.Errorf("remediation:\n%s", got)
	}
}

// docs/rules.md says, per rule, which facts it needs and what happens when
// they cannot be read: every fact a condition reads is documented.
func TestEveryConditionFactDocumented(t *testing.T) {
	rs, err := Load()
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range rs {
		facts := conditionFacts(r)
		if len(facts) == 0 {
			t.Errorf("%s: no facts found in its conditions", r.ID)
		}
		for _, f := range facts {
			if _, _, ok := FactSource(f); !ok {
				t.Errorf("%s: fact %s has no source in rules/docs.go", r.ID, f)
			}
		}
	}
}

// A rule that only sets queue/write_cache is named as what it is: the
// kernel's belief, not the drive's cache (issue #10 item 13).
func TestKernelOnlyRuleNoted(t *testing.T) {
	fs := judge(t, device("sda", map[string]any{"wc_on": false, "wc_supported": true, "wc_kernel_on": true, "wc_drive_enabled": false,
		"wc_kernel_only_rules": []string{"/etc/udev/rules.d/70-x.rules:1"}}))
	if len(fs) == 0 || fs[0].Rule != "write-cache-disabled" {
		t.Fatalf("findings = %+v", fs)
	}
	if !strings.Contains(strings.Join(fs[0].Notes, " "), "/etc/udev/rules.d/70-x.rules:1 writes queue/write_cache only") {
		t.Errorf("notes %v", fs[0].Notes)
	}
}

// An NVMe drive whose own volatile write cache is off (the kernel may still
// say write back) gets NVMe commands, not hdparm or sdparm.
func TestNVMeCacheOff(t *testing.T) {
	fs := judge(t, device("nvme0n1", map[string]any{"transport": "nvme", "ata": false, "model": "Samsung SSD 980 PRO 1TB",
		"wc_kernel_on": true, "wc_drive_enabled": false, "wc_drive_supported": true, "wc_supported": true, "wc_on": false}))
	if len(fs) != 1 || fs[0].Rule != "write-cache-disabled" {
		t.Fatalf("findings = %+v", fs)
	}
	var cmds []string
	for _, m := range fs[0].Remediation {
		cmds = append(cmds, m.Command)
	}
	got := strings.Join(cmds, "\n")
	if !strings.Contains(got, "nvme set-feature -f 0x06 -v 1 /dev/nvme0n1") || strings.Contains(got, "hdparm") || strings.Contains(got, "sdparm") {
		t.Errorf("remediation:\n%s", got)
	}
}
