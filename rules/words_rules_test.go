package rules

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/diskdoctor/diskdoctor/checks"
)

// findingsOf are the findings of one rule.
func findingsOf(fs []Finding, rule string) []Finding {
	var out []Finding
	for _, f := range fs {
		if f.Rule == rule {
			out = append(out, f)
		}
	}
	return out
}

// The title says whether the drive's health failed or its counters only
// rose, and the first clause of what was seen names every counter.
func TestSMARTTitleFromHealth(t *testing.T) {
	rose := map[string]any{"rotational": true, "smart_passed": true, "smart_critical": []string{},
		"smart_warnings": []string{"16 reallocated sectors", "24 sectors pending reallocation"}, "smart_pending": 24}
	failed := map[string]any{"smart_passed": false, "smart_critical": []string{"overall health FAILED"},
		"smart_warnings": []string{"1894 media and data integrity errors"}}
	unread := map[string]any{"smart_critical": []string{}, "smart_warnings": []string{"3 reallocated sectors"}}
	fs := findingsOf(judge(t, device("sdb", rose), device("nvme0n1", failed), device("sdc", unread)), "smart-failing")
	titles := map[string]string{}
	for _, f := range fs {
		for _, s := range f.Subjects {
			titles[s] = f.Title
		}
	}
	if !strings.Contains(titles["nvme0n1"], "reports failing health") {
		t.Errorf("failed health: %q", titles["nvme0n1"])
	}
	if strings.Contains(titles["sdb"], "failing") || !strings.Contains(titles["sdb"], "still passes") {
		t.Errorf("passed health, counters rose: %q", titles["sdb"])
	}
	if strings.Contains(titles["sdc"], "failing") || strings.Contains(titles["sdc"], "passes") {
		t.Errorf("health not read: %q (neither failing nor passing)", titles["sdc"])
	}
	// Retrying weak sectors for seconds is a hard disk's way, not an
	// NVMe drive's.
	for _, f := range fs {
		hdd := slices.Contains(f.Subjects, "sdb")
		if strings.Contains(f.Impact, "weak sectors retry for seconds") != hdd {
			t.Errorf("%v: impact %q", f.Subjects, f.Impact)
		}
	}
	// The first step, too: "predicts failure" only where the health
	// check or an attribute is at the failure line.
	for _, f := range fs {
		failing := slices.Contains(f.Subjects, "nvme0n1")
		if strings.Contains(f.FirstStep, "predicts failure") != failing {
			t.Errorf("%v: first step %q", f.Subjects, f.FirstStep)
		}
	}
	for _, f := range fs {
		if slices.Contains(f.Subjects, "sdb") {
			first, _, _ := strings.Cut(f.PerSubject[0].Observed, "; ")
			if !strings.Contains(first, "16 reallocated") || !strings.Contains(first, "24 sectors pending") {
				t.Errorf("first clause %q leaves out a counter", first)
			}
		}
	}
	// Nothing read is no finding: unknown is not a premise.
	if fs := findingsOf(judge(t, device("sdd", nil)), "smart-failing"); len(fs) != 0 {
		t.Errorf("a drive with no SMART facts: %v", fs)
	}
}

func smartArrayVolume(name string, facts map[string]any) *checks.Observation {
	base := map[string]any{"controller_volume": true, "ctl_family": "smartarray", "ctl_tool": "ssacli", "ctl_selector": "slot=0",
		"ctl_controller": "slot=0", "ctl_volume_ref": "1", "ctl_nbwc": true, "ctl_energy_pack": "battery", "ctl_drive_cache": false,
		"ctl_unprotected": []string{"no-battery write cache enabled: …"}}
	for k, v := range facts {
		base[k] = v
	}
	return device(name, base)
}

// No-Battery Write Cache beside a healthy battery is the risk of the
// battery failing, not writes without one; a failed battery is the loss
// itself; an unread state is said as a setting, not as a failure.
func TestUnprotectedCacheFollowsTheBattery(t *testing.T) {
	for _, c := range []struct {
		state   any
		title   string
		notSaid string
	}{
		{"ok", "would keep writing back if its battery or capacitor failed", "without power-loss protection"},
		{"failed", "writes back without power-loss protection", "would keep"},
		{nil, "is set to write back even without a working battery", "without power-loss protection"},
	} {
		fs := findingsOf(judge(t, smartArrayVolume("sda", map[string]any{"ctl_energy_state": c.state})), "controller-cache-unprotected")
		if len(fs) != 1 || !strings.Contains(fs[0].Title, c.title) || strings.Contains(fs[0].Title+fs[0].Impact, c.notSaid) {
			t.Errorf("battery %v: %+v, want title with %q and no %q", c.state, fs, c.title, c.notSaid)
		}
		if c.state == "ok" && !strings.HasPrefix(fs[0].Impact, "should the battery or capacitor fail") {
			t.Errorf("battery ok: impact %q", fs[0].Impact)
		}
	}
}

// A controller whose volume a rule found is not checked and fine for that
// rule: the rule judges the controller itself only where no OS device
// carries its volumes.
func TestFoundVolumeKeepsItsControllerFromPassing(t *testing.T) {
	ctl := checks.NewObservation("test", checks.KindController, "slot=0")
	for k, v := range map[string]any{"kind_controller": true, "ctl_family": "smartarray", "ctl_has_os_volumes": true, "ctl_nbwc": true,
		"ctl_unprotected": []string{"no-battery write cache enabled: …"}, "ctl_energy_state": "ok", "ctl_tasks": []string{}} {
		ctl.Set(k, v)
	}
	rep, err := strictEngine(t).Build(&checks.Result{Observations: []*checks.Observation{
		smartArrayVolume("sda", map[string]any{"ctl_energy_state": "ok"}), ctl}}, "/")
	if err != nil {
		t.Fatal(err)
	}
	if len(findingsOf(rep.Findings, "controller-cache-unprotected")) == 0 {
		t.Fatal("no finding on the volume")
	}
	for _, p := range rep.Passed {
		if p.Rule == "controller-cache-unprotected" && slices.Contains(p.Subjects, "slot=0") {
			t.Errorf("controller-cache-unprotected found on sda and checked and fine on its controller: %v", p.Subjects)
		}
	}
}

// The Gen10 note is for Gen10 and later: a Gen8 or Gen9 gets none.
func TestPlatformNoteByGeneration(t *testing.T) {
	off := map[string]any{"wc_on": false, "wc_supported": true, "wc_kernel_on": false, "wc_drive_enabled": false}
	for product, want := range map[string]bool{"ProLiant DL380p Gen8": false, "ProLiant ML10 Gen9": false, "ProLiant DL380 Gen10": true, "ProLiant DL360 Gen11": true} {
		fs := findingsOf(judge(t, device("sda", off), hostObs(map[string]any{checks.FactSysVendor: "HPE", checks.FactProduct: product})), "write-cache-disabled")
		got := len(fs) == 1 && strings.Contains(strings.Join(fs[0].Notes, " "), "Gen10 and later")
		if got != want {
			t.Errorf("%s: Gen10 note %v, want %v (%v)", product, got, want, fs)
		}
	}
}

// A measured figure is quoted only for the class or situation it was
// measured in; anything else gets a sentence of its own class.
func TestMeasuredFiguresOnlyWhereMeasured(t *testing.T) {
	off := map[string]any{"wc_on": false, "wc_supported": true, "wc_kernel_on": false, "wc_drive_enabled": false}
	ssd := findingsOf(judge(t, device("sda", off)), "write-cache-disabled")
	hdd := findingsOf(judge(t, device("sdb", map[string]any{"wc_on": false, "wc_supported": true, "rotational": true, "model": "WDC WD40EFZX-68AWUN0"})), "write-cache-disabled")
	if len(ssd) != 1 || !strings.Contains(ssd[0].Impact, "measured on WD Red SA500 SATA SSDs") {
		t.Errorf("SATA SSD: %v", ssd)
	}
	if len(hdd) != 1 || strings.Contains(hdd[0].Impact, "measured") || !strings.Contains(hdd[0].Impact, "platter") {
		t.Errorf("hard disk: %v", hdd)
	}
	// The cache that is on now but off after the next boot: the same.
	notKept := map[string]any{"wc_on": true, "wc_boot_disabled": true, "wc_persistent": false}
	ssdNext := findingsOf(judge(t, device("sda", notKept)), "write-cache-not-persistent")
	hddNext := findingsOf(judge(t, device("sdb", merged(notKept, map[string]any{"rotational": true, "model": "WDC WD40EFZX-68AWUN0"}))), "write-cache-not-persistent")
	if len(ssdNext) != 1 || !strings.Contains(ssdNext[0].Impact, "10-100x") {
		t.Errorf("SATA SSD, not kept: %v", ssdNext)
	}
	if len(hddNext) != 1 || strings.Contains(hddNext[0].Impact, "10-100x") || !strings.Contains(hddNext[0].Impact, "platter") {
		t.Errorf("hard disk, not kept: %v", hddNext)
	}
	for _, c := range []struct {
		host     map[string]any
		measured bool
	}{
		{map[string]any{"governor": "schedutil", "scaling_driver": "intel_cpufreq", "role": "server", "cpus_at_min_fraction": 1.0}, true},
		{map[string]any{"governor": "powersave", "scaling_driver": "intel_pstate", "role": "desktop", "cpus_at_min_fraction": 0.0}, false},
		{map[string]any{"governor": "schedutil", "scaling_driver": "intel_cpufreq", "role": "server"}, false},
	} {
		fs := findingsOf(judge(t, hostObs(c.host)), "cpu-governor-powersave")
		if len(fs) != 1 || strings.Contains(fs[0].Impact, "measured") != c.measured {
			t.Errorf("%v: %v, want measured figure %v", c.host, fs, c.measured)
		}
	}
}

// An ONLINE pool with checksum errors keeps its redundancy: only a
// DEGRADED, FAULTED or UNAVAIL pool is said to have lost some.
func TestOnlinePoolKeepsItsRedundancy(t *testing.T) {
	online := findingsOf(judge(t, pool("Data", map[string]any{"zfs_state": "ONLINE", "zfs_data_errors": 0,
		"zfs_vdev_errors": []string{"ata-X: 0 read, 0 write, 2 checksum errors"}, "zfs_vdev_problems": []string{}})), "zfs-pool-unhealthy")
	degraded := findingsOf(judge(t, pool("Data", map[string]any{"zfs_state": "DEGRADED", "zfs_data_errors": 0,
		"zfs_vdev_errors": []string{}, "zfs_vdev_problems": []string{"ata-Y UNAVAIL"}})), "zfs-pool-unhealthy")
	if len(online) != 1 || strings.Contains(online[0].Impact, "redundancy reduced") || strings.Contains(online[0].Title, "degraded") {
		t.Errorf("ONLINE: %+v", online)
	}
	if len(degraded) != 1 || !strings.Contains(degraded[0].Impact, "redundancy reduced") {
		t.Errorf("DEGRADED: %+v", degraded)
	}
}

// The hung-task note names the findings that can cause it by where they
// rank, after ranking; none present is said so.
func TestHungTaskNoteFollowsTheRanking(t *testing.T) {
	hung := hostObs(map[string]any{"klog_hung_tasks": 2})
	io := device("sdc", map[string]any{"klog_events": 3})
	fs := judge(t, hung, io)
	hi := slices.IndexFunc(fs, func(f Finding) bool { return f.Rule == "kernel-hung-tasks" })
	if hi < 0 {
		t.Fatalf("no hung-task finding: %s", rulesOf(fs))
	}
	note := strings.Join(fs[hi].Notes, " ")
	ii := slices.IndexFunc(fs, func(f Finding) bool { return f.Rule == "kernel-io-errors" })
	if ii < 0 {
		t.Fatalf("no kernel-io-errors finding: %s", rulesOf(fs))
	}
	where := "below"
	if ii < hi {
		where = "above"
	}
	if !strings.Contains(note, fmt.Sprintf("finding %d %s (kernel-io-errors on sdc)", ii+1, where)) {
		t.Errorf("note %q does not place kernel-io-errors at %d, %s", note, ii+1, where)
	}
	alone := judge(t, hostObs(map[string]any{"klog_hung_tasks": 1}))
	if n := strings.Join(alone[0].Notes, " "); !strings.Contains(n, "No device finding") {
		t.Errorf("alone: %q", n)
	}
}

// Every rule a caused_by names exists.
func TestCausedByNamesRules(t *testing.T) {
	rs, err := Load()
	if err != nil {
		t.Fatal(err)
	}
	ids := map[string]bool{}
	for _, r := range rs {
		ids[r.ID] = true
	}
	for _, r := range rs {
		for _, c := range r.CausedBy {
			if !ids[c] {
				t.Errorf("%s: caused_by names %q, no such rule", r.ID, c)
			}
		}
	}
}

// A controller task that makes no headway is called stalled; one that
// runs is background work.
func TestControllerTaskStalledTitle(t *testing.T) {
	for stalled, want := range map[bool]string{true: "has stalled", false: "busy with background work"} {
		f := map[string]any{"ctl_tasks": []string{"rebuild on a0 drive 32:2 (2%)"}, "ctl_tasks_stalled": []string{}}
		if stalled {
			f["ctl_tasks_stalled"] = []string{"rebuild on a0 drive 32:2 (2%): 49 days to go at the pace of its 1440 minutes so far"}
		}
		fs := findingsOf(judge(t, smartArrayVolume("sda", f)), "controller-background-work")
		if len(fs) != 1 || !strings.Contains(fs[0].Title, want) {
			t.Errorf("stalled %v: %+v, want a title with %q", stalled, fs, want)
		}
	}
}

// A degraded volume the controller already rebuilds is told to let the
// rebuild finish, not to replace a drive; one without a rebuild is told
// to replace the drive.
func TestDegradedVolumeFirstStepFollowsTheRebuild(t *testing.T) {
	for rebuilding, want := range map[bool]string{true: "let the controller's rebuild (rebuild on a0 drive 1:0) finish", false: "replace the volume's failed or missing drive"} {
		f := map[string]any{"ctl_volume_degraded": true, "ctl_volume_status": "Degraded", "ctl_rebuilding": rebuilding, "ctl_tasks": []string{}}
		if rebuilding {
			f["ctl_tasks"] = []string{"rebuild on a0 drive 1:0"}
		}
		fs := findingsOf(judge(t, smartArrayVolume("sda", f)), "controller-volume-degraded")
		if len(fs) != 1 || !strings.HasPrefix(fs[0].FirstStep, want) {
			t.Errorf("rebuilding %v: findings %+v, want the first step it to start %q", rebuilding, fs, want)
		}
	}
}

// A battery in a learn cycle beside a volume still writing back is not
// a cache that is off.
func TestLearnCycleWithTheCacheStillOn(t *testing.T) {
	for policy, want := range map[string]string{"write-back": "still writes back", "write-through": "cache is off"} {
		f := map[string]any{"ctl_cache_state": "degraded", "ctl_cache_reason": "energy pack: Non Operational", "ctl_energy_state": "charging",
			"ctl_policy_current": policy, "ctl_policy_configured": "write-back", "ctl_nbwc": false, "ctl_unprotected": []string{}}
		fs := findingsOf(judge(t, smartArrayVolume("sda", f)), "controller-cache-degraded")
		if len(fs) != 1 || !strings.Contains(fs[0].Title, want) {
			t.Fatalf("policy %s: %+v, want a title with %q", policy, fs, want)
		}
		imp := fs[0].PerSubject[0].Impact
		if cached := strings.Contains(imp, "go straight to the drives"); cached == (policy == "write-back") {
			t.Errorf("policy %s: impact %q", policy, imp)
		}
		if strings.Contains(fs[0].FirstStep, "comes back by itself") == (policy == "write-back") {
			t.Errorf("policy %s: first step %q", policy, fs[0].FirstStep)
		}
	}
}

// A patrol read or a consistency check is not a rebuild: its first step
// names the work and says nothing of replacing drives.
func TestBackgroundWorkFirstStepNamesTheWork(t *testing.T) {
	for _, c := range []struct {
		task       string
		rebuilding bool
		want, not  string
	}{
		{"patrol-read on /c0", false, "let the controller's patrol-read on /c0 finish before benchmarking", "another drive"},
		{"rebuild on a0 drive 1:0", true, "rebuild finish before benchmarking or replacing another drive", ""},
	} {
		fs := findingsOf(judge(t, smartArrayVolume("sda", map[string]any{"ctl_tasks": []string{c.task}, "ctl_tasks_stalled": []string{}, "ctl_rebuilding": c.rebuilding})), "controller-background-work")
		if len(fs) != 1 || !strings.Contains(fs[0].FirstStep, c.want) || (c.not != "" && strings.Contains(fs[0].FirstStep, c.not)) {
			t.Errorf("%s: %+v, want a first step with %q", c.task, fs, c.want)
		}
	}
}

// The expectation cites the controller's datasheet once: its source
// names the document, and the product is not said again in front of it.
func TestCacheDisabledCitesTheDatasheetOnce(t *testing.T) {
	fs := findingsOf(judge(t, smartArrayVolume("cciss!c0d0", map[string]any{"ctl_controller_model": "Smart Array P400i", "ctl_cache_state": "disabled",
		"ctl_cache_reason": "cache status Temporarily Disabled", "ctl_energy_state": "failed", "ctl_nbwc": false, "ctl_unprotected": []string{}})), "controller-cache-disabled")
	if len(fs) != 1 {
		t.Fatalf("%+v", fs)
	}
	exp := fs[0].PerSubject[0].Expected
	if !strings.Contains(exp, "(HP Smart Array P400 QuickSpecs: ") || strings.Count(exp, "Smart Array P400") != 1 {
		t.Errorf("expected %q", exp)
	}
}

// A link below the drive's speed with no CRC error is no corruption, and
// a drive in a USB enclosure has no cable or backplane slot of its own to
// reseat: the words follow which of the two was seen, and where.
func TestSMARTLinkWordsFollowWhatWasSeen(t *testing.T) {
	slow := findingsOf(judge(t, device("sdr", map[string]any{"smart_crc_errors": uint64(0), "smart_link_cur_gbps": 3.0, "smart_link_max_gbps": 6.0})), "smart-link-errors")
	if len(slow) != 1 {
		t.Fatalf("slow link: %v", slow)
	}
	all := slow[0].Title + " " + slow[0].Impact + " " + slow[0].FirstStep + " " + strings.Join(slow[0].Notes, " ")
	for _, w := range []string{"corrupt", "retried", "CRC count", "attribute 199"} {
		if strings.Contains(all, w) {
			t.Errorf("slow link, no CRC error, says %q: %s", w, all)
		}
	}
	usb := findingsOf(judge(t, device("sdb", map[string]any{"transport": "usb", "smart_crc_errors": uint64(1)})), "smart-link-errors")
	if len(usb) != 1 {
		t.Fatalf("usb: %v", usb)
	}
	all = usb[0].Title + " " + usb[0].Impact + " " + usb[0].FirstStep + " " + strings.Join(usb[0].Notes, " ")
	if !strings.Contains(usb[0].Title, "USB bridge") || strings.Contains(all, "backplane") || strings.Contains(all, "slows") {
		t.Errorf("USB enclosure: %s", all)
	}
	both := findingsOf(judge(t, device("sda", map[string]any{"smart_crc_errors": uint64(12), "smart_link_cur_gbps": 1.5, "smart_link_max_gbps": 6.0})), "smart-link-errors")
	if len(both) != 1 || !strings.Contains(both[0].Title, "corrupts and slows") || !strings.Contains(both[0].Impact, "retried") || !strings.Contains(both[0].Impact, "1.5 Gb/s") {
		t.Errorf("CRC errors on a slow link: %v", both)
	}
}

// A misaligned swap partition has nothing to copy off: its first step
// re-creates it; any other partition's moves the data.
func TestMisalignedSwapFirstStep(t *testing.T) {
	base := map[string]any{"rotational": true, "queue_misaligned_partitions": []string{"sda2"}, "queue_misaligned_numbers": []string{"2"}, "queue_physical_block_size": 4096}
	for swap, want := range map[any]string{true: "swapoff /dev/sda2", false: "copy the partition's data off", nil: "copy the partition's data off"} {
		fs := findingsOf(judge(t, device("sda", merged(base, map[string]any{"queue_misaligned_swap_only": swap}))), "partition-misaligned")
		if len(fs) != 1 || !strings.HasPrefix(fs[0].FirstStep, want) {
			t.Errorf("swap only %v: %v, want a first step %q…", swap, fs, want)
		}
	}
}

// A count of one is said in the singular, never "1 device(s)".
func TestCountsOfOneInTheSingular(t *testing.T) {
	ctl := checks.NewObservation("test", checks.KindController, "0000:00:17.0")
	ctl.Set("ahci_address", "0000:00:17.0")
	ctl.Set("ahci_remapped_nvme", 1)
	fs := judge(t, ctl, hostObs(map[string]any{"klog_hung_tasks": 1, "klog_thermal_throttle": 1}))
	n := 0
	for _, f := range fs {
		switch f.Rule {
		case "intel-rst-remapped-nvme", "kernel-hung-tasks", "kernel-thermal-throttling":
			n++
			if s := f.Observed + " " + f.Impact; strings.Contains(s, "(s)") {
				t.Errorf("%s: %q", f.Rule, s)
			}
		}
	}
	if n != 3 {
		t.Errorf("%d of the 3 rules found: %v", n, fs)
	}
}

// The scheduler's impact is the one of the device's class: a hard disk's
// seeks, or an NVMe drive's added latency, not both.
func TestSchedulerImpactByClass(t *testing.T) {
	hdd := findingsOf(judge(t, device("sdb", map[string]any{"rotational": true, "scheduler": "none", "class": "sata-hdd"})), "io-scheduler-unsuited")
	nvme := findingsOf(judge(t, device("nvme0n1", map[string]any{"transport": "nvme", "scheduler": "bfq", "class": "nvme-gen3"})), "io-scheduler-unsuited")
	if len(hdd) != 1 || !strings.Contains(hdd[0].Impact, "seeking") || strings.Contains(hdd[0].Impact, "NVMe") {
		t.Errorf("hard disk: %v", hdd)
	}
	if len(nvme) != 1 || strings.Contains(nvme[0].Impact, "seeking") || !strings.Contains(nvme[0].Impact, "bfq") {
		t.Errorf("NVMe: %v", nvme)
	}
}

// The governor's driver is named once: intel_pstate's status is its mode;
// intel_cpufreq is intel_pstate in passive mode, named with its status.
func TestGovernorDriverNamedOnce(t *testing.T) {
	for _, c := range []struct {
		driver, status, want string
	}{
		{"intel_pstate", "active", "governor powersave (intel_pstate in active mode)"},
		{"intel_cpufreq", "passive", "governor powersave (intel_cpufreq, intel_pstate passive)"},
		{"acpi-cpufreq", "", "governor powersave (acpi-cpufreq)"},
	} {
		h := map[string]any{"governor": "powersave", "scaling_driver": c.driver, "role": "server", "cpus_at_min_fraction": 1.0}
		if c.status != "" {
			h["pstate_status"] = c.status
		}
		fs := findingsOf(judge(t, hostObs(h)), "cpu-governor-powersave")
		if len(fs) != 1 || !strings.HasPrefix(fs[0].PerSubject[0].Observed, c.want) {
			t.Errorf("%s %s: %+v, want observed to start %q", c.driver, c.status, fs, c.want)
		}
	}
}

// Kernel errors on a disk with no SMART of its own (an EBS volume) are
// not sent to read its SMART; a real drive's are.
func TestKernelErrorsOnAVirtualDiskSkipSMART(t *testing.T) {
	for why, wantSMART := range map[string]bool{"": true, "a virtual disk (Amazon EBS) has no SMART of its own": false} {
		f := map[string]any{"klog_events": 5, "transport": "nvme", "dev_path": "/dev/nvme0n1"}
		if why != "" {
			f["smart_not_applicable"] = why
		}
		fs := findingsOf(judge(t, device("nvme0n1", f)), "kernel-io-errors")
		if len(fs) != 1 {
			t.Fatalf("%q: %v", why, fs)
		}
		smart := strings.Contains(fs[0].FirstStep, "SMART log")
		for _, m := range fs[0].Remediation {
			smart = smart || strings.HasPrefix(m.Command, "smartctl")
		}
		if smart != wantSMART {
			t.Errorf("%q: SMART advised %v, want %v: %q %+v", why, smart, wantSMART, fs[0].FirstStep, fs[0].Remediation)
		}
	}
}
