package rules

import (
	"strings"
	"testing"

	"github.com/diskdoctor/diskdoctor/checks"
)

// cloudSeverity judges one device on a host with the given facts and
// wants rule at severity want, or no finding of it when want is "".
func cloudSeverity(t *testing.T, host map[string]any, dev *checks.Observation, rule, want string) {
	t.Helper()
	h := checks.NewObservation("test", checks.KindHost, "host")
	h.Set("role", "vm")
	h.Set("context", "auto")
	for k, v := range host {
		h.Set(k, v)
	}
	var got *Finding
	fs := judge(t, dev, h)
	for i := range fs {
		if fs[i].Rule == rule {
			got = &fs[i]
		}
	}
	switch {
	case want == "" && got != nil:
		t.Errorf("want no finding, got %s", got.Severity)
	case want != "" && got == nil:
		t.Errorf("want %s, got none (%+v)", want, fs)
	case want != "" && got.Severity != want:
		t.Errorf("severity %s, want %s", got.Severity, want)
	}
}

// ebs-nvme-timeout-short: the default 30 s and 255 s on a kernel that
// takes more are short; the maximum (module or queue), 255 s on a kernel
// before 4.15, an unknown timeout or kernel, and an instance-store disk
// are not. The 255 s on 4.15.0-112 is a BOSH stemcell on an m5.large
// (cloudfoundry/bosh-linux-stemcell-builder#118).
func TestEBSNVMeTimeoutShort(t *testing.T) {
	ebs := map[string]any{"transport": "nvme", "model": "Amazon Elastic Block Store", "cloud_disk": "ebs", "cloud_volume_id": "vol-0f53eccc69bc1e40e"}
	with := func(extra map[string]any) map[string]any { return merged(ebs, extra) }
	k414, k415 := map[string]any{"kernel_code": 4014}, map[string]any{"kernel_code": 4015}
	for _, tt := range []struct {
		name string
		host map[string]any
		dev  map[string]any
		want string
	}{
		{"default 30 s", nil, with(map[string]any{"nvme_io_timeout_ms": int64(30000)}), Warning},
		{"255 s on 4.15", k415, with(map[string]any{"nvme_io_timeout_ms": int64(255000)}), Warning},
		{"255 s on 4.14: its maximum", k414, with(map[string]any{"nvme_io_timeout_ms": int64(255000)}), ""},
		{"255 s, kernel unknown", nil, with(map[string]any{"nvme_io_timeout_ms": int64(255000)}), ""},
		{"module maximum", k415, with(map[string]any{"nvme_io_timeout_ms": int64(4294967295000)}), ""},
		{"queue maximum as the kernel keeps it", k415, with(map[string]any{"nvme_io_timeout_ms": int64(4294966296)}), ""},
		{"timeout unread", k415, with(map[string]any{"nvme_io_timeout_ms": nil}), ""},
		{"instance store at 90 s", k415, with(map[string]any{"cloud_disk": "instance-store", "nvme_io_timeout_ms": int64(90000)}), ""},
	} {
		t.Run(tt.name, func(t *testing.T) {
			cloudSeverity(t, tt.host, device("nvme0n1", tt.dev), "ebs-nvme-timeout-short", tt.want)
		})
	}
}

// ephemeral-disk-holds-data: a warning when the ephemeral disk is part of
// something larger or holds a filesystem outside the scratch mount (an
// md RAID0 of instance-store disks, as amazon-eks-ami's setup-local-disks
// builds and loses at stop/start: awslabs/amazon-eks-ami#2755); a note
// otherwise, also when what it holds is unknown; nothing for EBS.
func TestEphemeralDiskHoldsData(t *testing.T) {
	store := map[string]any{"transport": "nvme", "model": "Amazon EC2 NVMe Instance Storage", "cloud_disk": "instance-store", "ephemeral_disk": true}
	with := func(extra map[string]any) map[string]any { return merged(store, extra) }
	for _, tt := range []struct {
		name string
		dev  map[string]any
		want string
	}{
		{"md RAID0 member", with(map[string]any{"ephemeral_holds": []string{"nvme1n1: md array member", "nvme1n1: held by md127"}}), Warning},
		{"xfs at /var/lib/data", with(map[string]any{"ephemeral_holds": []string{"nvme1n1: xfs mounted at /var/lib/data"}}), Warning},
		{"scratch at /mnt or nothing", with(map[string]any{"ephemeral_holds": []string{}}), Info},
		{"mounts unknown", with(map[string]any{"ephemeral_holds": nil}), Info},
		{"EBS", merged(store, map[string]any{"cloud_disk": "ebs", "ephemeral_disk": false, "ephemeral_holds": []string{}}), ""},
		{"not a cloud disk", merged(store, map[string]any{"cloud_disk": "", "ephemeral_disk": false, "ephemeral_holds": []string{}}), ""},
	} {
		t.Run(tt.name, func(t *testing.T) {
			cloudSeverity(t, nil, device("nvme1n1", tt.dev), "ephemeral-disk-holds-data", tt.want)
		})
	}
}

// cpu-steal-high: 10 % of the window's CPU time and above; 9.9 % and an
// unknown steal (no window, no /proc/stat) give nothing.
func TestCPUStealHigh(t *testing.T) {
	for _, tt := range []struct {
		name string
		host map[string]any
		want string
	}{
		{"54 % (coreos/bugs#73)", map[string]any{"cpu_steal_window_pct": 54.0, "sample_seconds": 3.0}, Warning},
		{"10 %", map[string]any{"cpu_steal_window_pct": 10.0, "sample_seconds": 3.0}, Warning},
		{"9.9 %", map[string]any{"cpu_steal_window_pct": 9.9, "sample_seconds": 3.0}, ""},
		{"unknown", map[string]any{"cpu_steal_window_pct": nil}, ""},
	} {
		t.Run(tt.name, func(t *testing.T) {
			h := checks.NewObservation("test", checks.KindHost, "host")
			h.Set("role", "vm")
			h.Set("context", "auto")
			for k, v := range tt.host {
				h.Set(k, v)
			}
			var got *Finding
			fs := judge(t, h)
			for i := range fs {
				if fs[i].Rule == "cpu-steal-high" {
					got = &fs[i]
				}
			}
			switch {
			case tt.want == "" && got != nil:
				t.Errorf("want no finding, got %s", got.Severity)
			case tt.want != "" && (got == nil || got.Severity != tt.want):
				t.Errorf("want %s, got %+v", tt.want, got)
			}
		})
	}
}

// cloud-volume-throttled: a named gp3 volume at 2,950 of its 3,000 IOPS
// warns; at 1,000 it does not; a volume no entry names is never judged
// (the guest cannot see its type); nor a physical disk.
func TestCloudVolumeThrottled(t *testing.T) {
	site := []byte("cloud:\n  - provider: AWS\n    volume: vol-0f53eccc69bc1e40e\n    volume_type: gp3\n    source: \"test: provisioned as gp3\"\n")
	ds, err := LoadDatasheets("")
	if err != nil {
		t.Fatal(err)
	}
	if err := ds.add(site, "site.yaml"); err != nil {
		t.Fatal(err)
	}
	e := strictEngine(t)
	e.Datasheets = ds
	ebs := map[string]any{"transport": "nvme", "model": "Amazon Elastic Block Store", "virtual_disk": true, "cloud_disk": "ebs",
		"cloud_volume_id": "vol-0f53eccc69bc1e40e", "sample_r_s": 950.0, "sample_w_s": 2000.0, "sample_r_mbs": 3.8, "sample_w_mbs": 16.0,
		"sample_r_await_ms": 4.1, "sample_w_await_ms": 9.7, "sample_util_pct": 100.0}
	host := func() *checks.Observation {
		h := checks.NewObservation("test", checks.KindHost, "host")
		for k, v := range map[string]any{"role": "vm", "context": "auto", "provider": "AWS", "sample_seconds": 10.0} {
			h.Set(k, v)
		}
		return h
	}
	for _, tt := range []struct {
		name string
		dev  map[string]any
		want bool
	}{
		{"gp3 at 2,950 IOPS", ebs, true},
		{"gp3 at 1,000 IOPS", merged(ebs, map[string]any{"sample_r_s": 200.0, "sample_w_s": 800.0}), false},
		{"a volume no entry names", merged(ebs, map[string]any{"cloud_volume_id": "vol-0aaaaaaaaaaaaaaaa"}), false},
		{"not a cloud disk", merged(ebs, map[string]any{"cloud_disk": ""}), false},
	} {
		t.Run(tt.name, func(t *testing.T) {
			fs, err := e.Judge(&checks.Result{Observations: []*checks.Observation{device("nvme0n1", tt.dev), host()}})
			if err != nil {
				t.Fatal(err)
			}
			got := false
			for _, f := range fs {
				got = got || f.Rule == "cloud-volume-throttled"
			}
			if got != tt.want {
				t.Errorf("finding %v, want %v (%+v)", got, tt.want, fs)
			}
		})
	}
}

// Every entry of the cloud table names its source; one without is
// refused, in the shipped table and in a site's file alike.
func TestCloudTableSources(t *testing.T) {
	ls, err := parseCloud(embeddedCloud)
	if err != nil {
		t.Fatal(err)
	}
	if len(ls) == 0 {
		t.Fatal("empty cloud table")
	}
	for _, l := range ls {
		if !strings.Contains(l.Source, "https://") {
			t.Errorf("%s %s: source %q names no public page", l.Provider, l.VolumeType, l.Source)
		}
	}
	if _, err := parseCloud([]byte("cloud:\n  - {provider: AWS, volume_type: gp3, iops: 3000}\n")); err == nil {
		t.Error("an entry without a source was accepted")
	}
	ds, _ := LoadDatasheets("")
	if err := ds.add([]byte("cloud:\n  - {provider: AWS, volume: vol-1, volume_type: gp3}\n"), "site.yaml"); err == nil {
		t.Error("a site's entry without a source was accepted")
	}
}

// A cloud disk is never compared with a physical drive's datasheet: a
// guest's disk is class virtual whatever model it reports.
func TestCloudDiskHasNoDriveDatasheet(t *testing.T) {
	e := strictEngine(t)
	subs, _ := e.subjects(&checks.Result{Observations: []*checks.Observation{
		device("nvme0n1", map[string]any{"transport": "nvme", "model": "Samsung SSD 980 PRO 1TB", "virtual_disk": true, "cloud_disk": "ebs"}),
	}})
	s := subs[checks.KindDevice+"/nvme0n1"]
	if s.facts[checks.FactClass] != "virtual" || (s.ds != nil && s.ds.ModelEntry) {
		t.Errorf("class %v, datasheet %+v", s.facts[checks.FactClass], s.ds)
	}
}

// virtual-disk-queue-shallow: a pvscsi disk at depth 16 with aqu-sz 15
// is noted; the same disk idle, a deep queue, a physical disk or an
// unknown depth are not.
func TestVirtualDiskQueueShallow(t *testing.T) {
	vm := map[string]any{"transport": "scsi", "virtual_disk": true, "hypervisor": "VMware", "drivers": []string{"sd", "vmw_pvscsi"},
		"queue_depth": 16, "sample_aqu_sz": 15.2, "sample_util_pct": 100.0}
	with := func(extra map[string]any) map[string]any { return merged(vm, extra) }
	for _, tt := range []struct {
		name string
		dev  map[string]any
		want string
	}{
		{"pvscsi depth 16 queueing", vm, Info},
		{"Hyper-V depth 8 queueing", with(map[string]any{"hypervisor": "Hyper-V", "drivers": []string{"sd", "hv_storvsc"}, "queue_depth": 8, "sample_aqu_sz": 7.0}), Info},
		{"idle", with(map[string]any{"sample_aqu_sz": 0.4}), ""},
		{"depth 64", with(map[string]any{"queue_depth": 64, "sample_aqu_sz": 60.0}), ""},
		{"QEMU/KVM", with(map[string]any{"hypervisor": "QEMU/KVM"}), ""},
		{"depth unknown", with(map[string]any{"queue_depth": nil}), ""},
		{"no window", with(map[string]any{"sample_aqu_sz": nil}), ""},
	} {
		t.Run(tt.name, func(t *testing.T) {
			cloudSeverity(t, nil, device("sda", tt.dev), "virtual-disk-queue-shallow", tt.want)
		})
	}
}

// An ephemeral disk is named in words ("the Azure temporary disk"), not
// by the cloud_disk value, and a disk holding only scratch mounts is said
// to hold nothing else, not guessed to hold scratch data.
func TestEphemeralDiskObservedInWords(t *testing.T) {
	d := device("sdb", map[string]any{"transport": "scsi", "model": "Virtual Disk", "cloud_disk": "azure-temporary", "ephemeral_disk": true, "ephemeral_holds": []string{}})
	var got string
	for _, f := range judge(t, d) {
		if f.Rule == "ephemeral-disk-holds-data" {
			got = f.Observed
		}
	}
	if !strings.Contains(got, "the Azure temporary disk") || strings.Contains(got, "azure-temporary") {
		t.Errorf("observed %q: want the disk named in words", got)
	}
}
