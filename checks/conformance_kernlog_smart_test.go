package checks_test

import (
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/diskdoctor/diskdoctor/checks"
	"github.com/diskdoctor/diskdoctor/probes/kernlog"
	"github.com/diskdoctor/diskdoctor/probes/smart"
	"github.com/diskdoctor/diskdoctor/rules"
)

// Conformance on real data nobody here wrote: every smartctl JSON and
// kernel log of ../shared/samples goes through the parsers, the checks'
// observations and the rules, and the verdicts are the ones the samples'
// README implies. docs/sample-verdicts.md lists them sample by sample.

const samples = "../../shared/samples"

// sampleRules are the rules this conformance test judges with (strictly:
// a rule that cannot be evaluated on a sample's facts fails the test).
var sampleRules = map[string]bool{
	"smart-failing": true, "smart-link-errors": true, "smart-temperature": true,
	"kernel-io-errors": true, "kernel-hung-tasks": true, "kernel-thermal-throttling": true,
}

func engine(t *testing.T) *rules.Engine {
	t.Helper()
	ds, err := rules.LoadDatasheets("")
	if err != nil {
		t.Fatal(err)
	}
	e, err := rules.NewEngine(ds)
	if err != nil {
		t.Fatal(err)
	}
	var rs []*rules.Rule
	for _, r := range e.Rules {
		if sampleRules[r.ID] {
			rs = append(rs, r)
		}
	}
	if len(rs) != len(sampleRules) {
		t.Fatalf("rules loaded: %d of %d", len(rs), len(sampleRules))
	}
	e.Rules, e.Strict = rs, true
	return e
}

// inventory stands in for the inventory check: what the rules need to
// know about a device that only a sample describes.
func inventory(dev, transport string) *checks.Observation {
	o := checks.NewObservation("inventory", checks.KindDevice, dev)
	o.Set("judged", true)
	o.Set("transport", transport)
	o.Set("dev_path", "/dev/"+dev)
	o.Set("model", "")
	o.Set("rotational", nil)
	return o
}

func sampleFiles(t *testing.T, dir, glob string) []string {
	t.Helper()
	p := filepath.Join(samples, dir)
	files, _ := filepath.Glob(filepath.Join(p, glob))
	if len(files) == 0 {
		t.Skipf("no samples at %s: the shared samples folder is absent", p)
	}
	return files
}

// verdicts renders findings as "rule severity subjects" lines, sorted.
func verdicts(fs []rules.Finding) []string {
	var out []string
	for _, f := range fs {
		out = append(out, f.Rule+" "+f.Severity+" "+strings.Join(f.Subjects, ","))
	}
	sort.Strings(out)
	return out
}

func TestConformanceSmartctlSamples(t *testing.T) {
	e := engine(t)
	// What each sample's README line implies; every other finding is a
	// false positive.
	want := map[string][]string{
		"sata-hdd-hitachi-HDS721050DLE630-failing.json":   {"smart-failing critical sdc"},
		"sata-ssd-samsung-840-crc-errors-xall.json":       {"smart-link-errors warning sda"},
		"nvme-samsung-MZWLL3T2HAJQ-critical-warning.json": {"smart-failing critical nvme0"},
		"nvme-samsung-970evo-media-errors.json":           {"smart-failing warning nvme0"},
		"sata-hdd-seagate-ST3500418AS-reallocated.json":   {"smart-failing warning sda"},
		"scsi-seagate-ST373453LC-grown-defects.json":      {"smart-failing warning sdb"},
		"nvme-intel-P4500-wear-75pct.json":                nil, // 75 % used: below the 90 % line
		"nvme-sabrent-rocket4-errlog-entries.json":        nil, // error-log entries without media errors are benign
		"sata-hdd-seagate-ST6000NM0115-megaraid.json":     nil,
		"sata-hdd-wdc-WD181KRYZ-healthy.json":             nil,
		"sata-ssd-crucial-m4-xall-truenas.json":           nil,
		"sata-ssd-samsung-860evo-xall.json":               nil,
		"scsi-sas-hdd-netdata-healthy.json":               nil,
	}
	seen := 0
	for _, f := range sampleFiles(t, "smartctl", "*.json") {
		name := filepath.Base(f)
		t.Run(name, func(t *testing.T) {
			b, err := os.ReadFile(f)
			if err != nil {
				t.Fatal(err)
			}
			s, err := smart.ParseJSON(b)
			if err != nil {
				t.Fatal(err)
			}
			s.Source = "smartctl " + name
			dev, transport := sampleDevice(name, s)
			res := &checks.Result{Observations: []*checks.Observation{inventory(dev, transport), checks.SMARTObservation(dev, s)}}
			fs, err := e.Judge(res)
			if err != nil {
				t.Fatal(err)
			}
			if checkVerdicts(t, want, name, fs) {
				seen++
			}
		})
	}
	if seen < len(want) {
		t.Errorf("%d of %d named samples found", seen, len(want))
	}
}

// sampleDevice names the device as the sample's smartctl did, with the
// transport its device type implies.
func sampleDevice(file string, s *smart.Info) (string, string) {
	dev := "sda"
	switch {
	case strings.Contains(file, "hitachi"):
		dev = "sdc"
	case strings.Contains(file, "ST373453LC"):
		dev = "sdb"
	case strings.HasPrefix(file, "nvme-"):
		dev = "nvme0"
	}
	switch {
	case s.Protocol == "NVMe":
		return dev, "nvme"
	case strings.Contains(file, "hitachi"): // behind a USB JMicron bridge
		return dev, "usb"
	case strings.Contains(file, "megaraid"):
		return dev, "raid"
	case s.Protocol == "SCSI":
		return dev, "sas"
	}
	return dev, "sata"
}

func TestConformanceKernelLogSamples(t *testing.T) {
	e := engine(t)
	want := map[string][]string{
		"ata-link-errors-speed-downgrade-ext4-readonly.txt": {"kernel-io-errors critical sda"},
		"ata-ncq-timeouts-intel-ssd-aborted-command.txt":    {"kernel-io-errors critical sda"},
		"ata-unc-media-error-read.txt":                      {"kernel-io-errors critical sdd"},
		"kernlog-scsi-medium-error-priority-prefix.txt":     {"kernel-io-errors critical sdb"},
		"nvme-timeout-reset-failed-ext4-readonly.txt":       {"kernel-hung-tasks warning host", "kernel-io-errors critical nvme1n1"},
		"sas-hba-medium-error-mpt2sas.txt":                  {"kernel-io-errors critical sdg"},
		"xfs-metadata-io-error-nvme-loop.txt":               {"kernel-io-errors critical nvme1n1"},
		"boot-b450-write-cache-disabled-full.txt":           nil,
		"boot-hp-pavilion-pcie-limited-sata-1.5g-dvd.txt":   nil,
	}
	facts := map[string]func(t *testing.T, topo *kernlog.Topology, k *kernlog.Log, obs map[string]*checks.Observation){
		"ata-link-errors-speed-downgrade-ext4-readonly.txt": func(t *testing.T, _ *kernlog.Topology, _ *kernlog.Log, obs map[string]*checks.Observation) {
			f := obs["sda"].Get
			if f("klog_link_downgraded") != true || f("klog_link_gbps") != 1.5 {
				t.Errorf("sda link: downgraded %v at %v Gb/s; libata limited it to 3.0 then 1.5 Gbps", f("klog_link_downgraded"), f("klog_link_gbps"))
			}
		},
		"ata-ncq-timeouts-intel-ssd-aborted-command.txt": func(t *testing.T, _ *kernlog.Topology, _ *kernlog.Log, obs map[string]*checks.Observation) {
			if obs["sda"].Get("klog_ncq_disabled") != true {
				t.Error("NCQ disabled not seen")
			}
		},
		"boot-b450-write-cache-disabled-full.txt": func(t *testing.T, topo *kernlog.Topology, k *kernlog.Log, _ map[string]*checks.Observation) {
			// The two internal SATA hard disks with the cache off are
			// named; the USB stick (scsi host10: usb-storage) is not.
			var internal, usb []string
			for dev, l := range k.WriteCacheLines() {
				if l.Enabled {
					continue
				}
				if topo.Transport[dev] == "usb" {
					usb = append(usb, dev)
				} else {
					internal = append(internal, dev)
				}
			}
			sort.Strings(internal)
			if strings.Join(internal, ",") != "sdb,sde" || strings.Join(usb, ",") != "sdc" {
				t.Errorf("write cache disabled: internal %v (want sdb,sde), USB %v (want sdc)", internal, usb)
			}
			if topo.Transport["sdb"] != "sata" || topo.Transport["sde"] != "sata" {
				t.Errorf("transports %v", topo.Transport)
			}
		},
		"boot-hp-pavilion-pcie-limited-sata-1.5g-dvd.txt": func(t *testing.T, topo *kernlog.Topology, k *kernlog.Log, _ map[string]*checks.Observation) {
			// The idle GPU's bandwidth line names 0000:01:00.0; the NVMe
			// is 0000:04:00.0. The 1.5 Gbps link is the DVD writer's.
			for _, ev := range kernlog.Classify(k, topo, -1) {
				if ev.Category == kernlog.PCIeBandwidth && len(ev.Devices) > 0 {
					t.Errorf("GPU bandwidth line attributed to %v", ev.Devices)
				}
				if ev.Category == kernlog.LinkUp && ev.Ref == "ata3" && len(ev.Devices) > 0 {
					t.Errorf("ATAPI link attributed to %v", ev.Devices)
				}
			}
			if !topo.ATAPI["ata3"] {
				t.Error("ata3 not recognised as ATAPI")
			}
		},
	}
	seen := 0
	for _, f := range sampleFiles(t, "dmesg", "*.txt") {
		name := filepath.Base(f)
		t.Run(name, func(t *testing.T) {
			b, err := os.ReadFile(f)
			if err != nil {
				t.Fatal(err)
			}
			k := &kernlog.Log{Source: "dmesg", Lines: kernlog.Parse(b)}
			if len(k.Lines) == 0 {
				t.Fatal("no lines")
			}
			topo := &kernlog.Topology{}
			topo.LearnFromLog(k)
			// The disks the log names, as judged devices.
			seenDev := map[string]bool{}
			var devs []string
			var obs []*checks.Observation
			for _, ev := range kernlog.Classify(k, topo, -1) {
				for _, d := range ev.Devices {
					if !seenDev[d] {
						seenDev[d] = true
						devs = append(devs, d)
					}
				}
			}
			for d := range topo.Disks {
				if !seenDev[d] {
					seenDev[d] = true
					devs = append(devs, d)
				}
			}
			sort.Strings(devs)
			for _, d := range devs {
				tr := topo.Transport[d]
				if tr == "" {
					tr = "sata"
					if strings.HasPrefix(d, "nvme") {
						tr = "nvme"
					}
				}
				obs = append(obs, inventory(d, tr))
			}
			kobs := checks.KernelLogObservations(k, topo, -1, devs)
			byDev := map[string]*checks.Observation{}
			for _, o := range kobs {
				byDev[o.Subject] = o
			}
			obs = append(obs, kobs...)
			fs, err := e.Judge(&checks.Result{Observations: obs})
			if err != nil {
				t.Fatal(err)
			}
			if c := facts[name]; c != nil {
				c(t, topo, k, byDev)
			}
			if checkVerdicts(t, want, name, fs) {
				seen++
			}
		})
	}
	if seen < len(want) {
		t.Errorf("%d of %d named samples found", seen, len(want))
	}
}

// The severity ladder of kernel-io-errors and the link-speed judgement on
// facts alone: a SATA link up at 3.0 Gbps is a finding only on a drive
// that can do 6.0 (SMART interface_speed), never on a USB bridge.
func TestKernelIOErrorsSeverities(t *testing.T) {
	e := engine(t)
	log := func(s string) *kernlog.Log { return &kernlog.Log{Lines: kernlog.Parse([]byte(s))} }
	smartMax := func(dev string, max, cur float64) *checks.Observation {
		return checks.SMARTObservation(dev, &smart.Info{Source: "smartctl -x -j /dev/" + dev, Passed: boolPtr(true), LinkMaxGbps: max, LinkCurGbps: cur, LinkMax: "6.0 Gb/s", LinkCur: "3.0 Gb/s"})
	}
	for _, c := range []struct {
		name, log, transport string
		extra                *checks.Observation
		want                 []string
	}{
		{"3.0 on a 6.0 drive", "[ 1.0] ata1: SATA link up 3.0 Gbps (SStatus 123 SControl 300)\n", "sata", smartMax("sda", 6, 3), []string{"kernel-io-errors warning sda", "smart-link-errors warning sda"}},
		{"3.0 on a 3.0 drive", "[ 1.0] ata1: SATA link up 3.0 Gbps (SStatus 123 SControl 300)\n", "sata", smartMax("sda", 3, 3), nil},
		{"3.0, drive unknown", "[ 1.0] ata1: SATA link up 3.0 Gbps (SStatus 123 SControl 300)\n", "sata", nil, nil},
		{"one reset at boot", "[ 2.0] ata1: hard resetting link\n[ 2.3] ata1: SATA link up 6.0 Gbps (SStatus 133 SControl 300)\n", "sata", nil, []string{"kernel-io-errors info sda"}},
		{"resets later", "[ 900.0] ata1: hard resetting link\n[ 900.3] ata1: SATA link up 6.0 Gbps (SStatus 133 SControl 300)\n", "sata", nil, []string{"kernel-io-errors warning sda"}},
		{"I/O error on a USB stick", "[ 900.0] I/O error, dev sda, sector 0 op 0x0:(READ) flags 0x0 phys_seg 1 prio class 2\n", "usb", nil, []string{"kernel-io-errors warning sda"}},
		{"I/O error on SATA", "[ 900.0] I/O error, dev sda, sector 0 op 0x0:(READ) flags 0x0 phys_seg 1 prio class 2\n", "sata", nil, []string{"kernel-io-errors critical sda"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			topo := &kernlog.Topology{}
			topo.LearnFromLog(log("[ 0.5] sd 0:0:0:0: [sda] Attached SCSI disk\n"))
			obs := append([]*checks.Observation{inventory("sda", c.transport)}, checks.KernelLogObservations(log(c.log), topo, 1000, []string{"sda"})...)
			if c.extra != nil {
				obs = append(obs, c.extra)
			}
			fs, err := e.Judge(&checks.Result{Observations: obs})
			if err != nil {
				t.Fatal(err)
			}
			if got := verdicts(fs); strings.Join(got, "\n") != strings.Join(c.want, "\n") {
				t.Errorf("verdicts %q, want %q", got, c.want)
			}
		})
	}
}

func boolPtr(b bool) *bool { return &b }

// Old messages say so: the age comes from /proc/uptime minus the
// timestamp.
func TestKernelIOErrorsOldMessagesNote(t *testing.T) {
	e := engine(t)
	k := &kernlog.Log{Lines: kernlog.Parse([]byte("[ 1000.0] ata1: hard resetting link\n[ 1000.3] ata1: SATA link up 6.0 Gbps (SStatus 133 SControl 300)\n"))}
	topo := &kernlog.Topology{}
	topo.LearnFromLog(&kernlog.Log{Lines: kernlog.Parse([]byte("[ 0.5] sd 0:0:0:0: [sda] Attached SCSI disk\n"))})
	obs := append([]*checks.Observation{inventory("sda", "sata")}, checks.KernelLogObservations(k, topo, 1000+3*86400, []string{"sda"})...)
	fs, err := e.Judge(&checks.Result{Observations: obs})
	if err != nil || len(fs) != 1 {
		t.Fatalf("%v %v", fs, err)
	}
	found := false
	for _, n := range fs[0].Notes {
		found = found || strings.Contains(n, "72 hours old")
	}
	if !found {
		t.Errorf("notes %q", fs[0].Notes)
	}
}

// checkVerdicts compares a sample's findings with the verdicts its README
// implies; it reports whether the sample has stated verdicts.
func checkVerdicts(t *testing.T, want map[string][]string, name string, fs []rules.Finding) bool {
	t.Helper()
	w, ok := want[name]
	if !ok {
		t.Logf("new sample without a stated verdict: %v", verdicts(fs))
		return false
	}
	for _, f := range fs {
		t.Logf("%s %s %v: %s", f.Rule, f.Severity, f.Subjects, f.Observed)
	}
	if got := verdicts(fs); strings.Join(got, "\n") != strings.Join(w, "\n") {
		t.Errorf("verdicts %q, want %q", got, w)
	}
	return true
}
