package rules

import (
	"strings"
	"testing"

	"github.com/diskdoctor/diskdoctor/checks"
)

// The instance types' caps are the page's figures: an EBS-optimized c5.large
// sustains 4,000 IOPS and 81.25 MB/s and bursts to 20,000 and 593.75; a
// c5.4xlarge sustains its maximum; a Standard_D2s_v5 3,750 IOPS and 85 MB/s
// uncached. A type no entry names, and a guest that does not show its type,
// get no cap; a site's entry naming the host gives Azure's.
func TestCloudInstanceLookup(t *testing.T) {
	ds, err := LoadDatasheets("")
	if err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct {
		provider, typ, host  string
		iops, mbs, max, maxB float64
	}{
		{"AWS", "c5.large", "", 4000, 81.25, 20000, 593.75},
		{"AWS", "c5.4xlarge", "", 20000, 593.75, 0, 0},
		{"AWS", "m5.xlarge", "", 6000, 143.75, 18750, 593.75},
		{"AWS", "t3.micro", "", 500, 10.86, 11800, 260.57},
		{"AWS", "m6g.large", "", 3600, 78.75, 20000, 593.75},
		{"AWS", "r5a.2xlarge", "", 8333, 197.5, 16000, 360},
		{"AWS", "c5a.4xlarge", "", 6600, 198, 13300, 396},
		{"Azure", "Standard_D2s_v5", "", 3750, 85, 10000, 1200},
		{"Azure", "Standard_E4s_v3", "", 6400, 96, 0, 0},
	} {
		l := ds.LookupInstance(tt.provider, tt.typ, tt.host)
		if l == nil {
			t.Errorf("%s %s: no entry", tt.provider, tt.typ)
			continue
		}
		if l.IOPS != tt.iops || l.ThroughputMBs != tt.mbs || l.MaxIOPS != tt.max || l.MaxThroughputMBs != tt.maxB {
			t.Errorf("%s %s: %v IOPS %v MB/s, max %v %v", tt.provider, tt.typ, l.IOPS, l.ThroughputMBs, l.MaxIOPS, l.MaxThroughputMBs)
		}
		if !strings.Contains(l.Source, "https://") {
			t.Errorf("%s %s: source %q", tt.provider, tt.typ, l.Source)
		}
	}
	if l := ds.LookupInstance("AWS", "c5.9xlarge", ""); l != nil {
		t.Errorf("a type not in the table has a cap: %+v", l)
	}
	if l := ds.LookupInstance("Azure", "", "sql01"); l != nil {
		t.Errorf("an Azure guest whose size nothing names has a cap: %+v", l)
	}
	site := []byte("cloud:\n  - provider: Azure\n    instance: sql01\n    instance_types: [Standard_D4s_v5]\n    source: \"test: az vm show\"\n")
	if err := ds.add(site, "site.yaml"); err != nil {
		t.Fatal(err)
	}
	l := ds.LookupInstance("Azure", "", "sql01")
	if l == nil || l.IOPS != 6400 || l.ThroughputMBs != 145 || !strings.HasPrefix(l.Source, "test: az vm show; Microsoft") {
		t.Errorf("site-named Azure size: %+v", l)
	}
	for _, bad := range []string{
		"cloud:\n  - {provider: AWS, instance_types: [c5.large], iops: 1}\n",                                          // no source
		"cloud:\n  - {provider: AWS, instance_types: [c5.large], volume_type: gp3, iops: 1, source: x}\n",             // both kinds
		"cloud:\n  - {provider: Azure, instance: a, instance_types: [Standard_D2s_v5, Standard_D4s_v5], source: x}\n", // two types for one host
	} {
		if err := ds.add([]byte(bad), "site.yaml"); err == nil {
			t.Errorf("accepted %q", bad)
		}
	}
}

// A GCP Persistent Disk's throughput cap scales with its size: a 100 GiB
// pd-balanced gets 0.28 MiBps per GiB (29.4 MB/s), a 10 TiB one the
// per-instance 1,200 MiBps; without the size there is no cap.
func TestCloudGCPPerGiB(t *testing.T) {
	ds, err := LoadDatasheets("")
	if err != nil {
		t.Fatal(err)
	}
	site := []byte("cloud:\n  - {provider: GCP, volume: data, volume_type: pd-balanced, source: \"test\"}\n")
	if err := ds.add(site, "site.yaml"); err != nil {
		t.Fatal(err)
	}
	if l := ds.LookupCloud("GCP", "data", 100<<30); l == nil || l.ThroughputMBs < 29.3 || l.ThroughputMBs > 29.4 || l.IOPS != 0 {
		t.Errorf("100 GiB pd-balanced: %+v", l)
	}
	if l := ds.LookupCloud("GCP", "data", 10<<40); l == nil || l.ThroughputMBs != 1258.3 {
		t.Errorf("10 TiB pd-balanced: %+v", l)
	}
	if l := ds.LookupCloud("GCP", "data", 0); l != nil {
		t.Errorf("size unknown: %+v", l)
	}
}

// cloud-volume-throttled on the instance as a whole: two EBS volumes of a
// c5.large together at 90 % of its 81.25 MB/s baseline are both named, with
// the instance's cap and its burst metric; the same volumes at 60 MB/s, an
// instance-store disk's traffic, a type not in the table and an Azure guest
// whose size nothing names give nothing.
func TestCloudInstanceThrottled(t *testing.T) {
	ebs := func(mbs float64) map[string]any {
		return map[string]any{"transport": "nvme", "model": "Amazon Elastic Block Store", "virtual_disk": true, "cloud_disk": "ebs",
			"sample_r_s": 50.0, "sample_w_s": 300.0, "sample_r_mbs": 1.0, "sample_w_mbs": mbs - 1, "sample_r_await_ms": 2.0,
			"sample_w_await_ms": 40.0, "sample_util_pct": 100.0}
	}
	host := func(provider, typ string) *checks.Observation {
		h := checks.NewObservation("test", checks.KindHost, "host")
		for k, v := range map[string]any{"role": "vm", "context": "auto", "provider": provider, "machine_type": typ, "hostname": "ip-10-0-0-1", "sample_seconds": 10.0} {
			h.Set(k, v)
		}
		return h
	}
	store := map[string]any{"transport": "nvme", "model": "Amazon EC2 NVMe Instance Storage", "virtual_disk": true, "cloud_disk": "instance-store",
		"ephemeral_disk": true, "ephemeral_holds": []string{}, "sample_r_s": 0.0, "sample_w_s": 3000.0, "sample_r_mbs": 0.0, "sample_w_mbs": 300.0, "sample_util_pct": 100.0}
	for _, tt := range []struct {
		name string
		obs  []*checks.Observation
		want []string
	}{
		{"c5.large at 80 MB/s", []*checks.Observation{device("nvme0n1", ebs(40)), device("nvme1n1", ebs(40)), host("AWS", "c5.large")}, []string{"nvme0n1", "nvme1n1"}},
		{"c5.large at 60 MB/s", []*checks.Observation{device("nvme0n1", ebs(30)), device("nvme1n1", ebs(30)), host("AWS", "c5.large")}, nil},
		{"instance store does not count", []*checks.Observation{device("nvme0n1", ebs(30)), device("nvme1n1", store), host("AWS", "c5.large")}, nil},
		{"type not in the table", []*checks.Observation{device("nvme0n1", ebs(400)), host("AWS", "c5.9xlarge")}, nil},
		{"Azure size unknown", []*checks.Observation{device("sdc", merged(ebs(200), map[string]any{"transport": "scsi", "model": "Virtual Disk", "cloud_disk": "azure-managed"})), host("Azure", "")}, nil},
	} {
		t.Run(tt.name, func(t *testing.T) {
			fs := judge(t, tt.obs...)
			var got *Finding
			for i := range fs {
				if fs[i].Rule == "cloud-volume-throttled" {
					got = &fs[i]
				}
			}
			if tt.want == nil {
				if got != nil {
					t.Errorf("want none, got %+v", got)
				}
				return
			}
			if got == nil {
				t.Fatalf("want a finding on %v, got none", tt.want)
			}
			if strings.Join(got.Subjects, " ") != strings.Join(tt.want, " ") || got.Title != "The instance runs at its documented disk cap" {
				t.Errorf("subjects %v, title %q", got.Subjects, got.Title)
			}
			if !strings.Contains(got.Expected, "c5.large sustains: 4000 IOPS, 81.25 MB/s (20000 IOPS, 593.75 MB/s while its burst balance lasts)") ||
				!strings.Contains(got.Expected, "ebs-optimized.html") {
				t.Errorf("expected %q", got.Expected)
			}
			if !strings.Contains(strings.Join(got.Notes, "\n"), "EBSByteBalance%") {
				t.Errorf("no burst metric in %q", got.Notes)
			}
		})
	}
}
