package doctor

import (
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/diskdoctor/diskdoctor/rules"
)

// withWindow copies a fixture into a temporary root and adds a sampling
// window over seconds: /proc/diskstats before (the tree) and after
// (samples/1), one line per device as "name major minor" with its
// completed reads, sectors read, writes, sectors written, ms reading,
// ms writing and ms busy grown by the given amounts.
func withWindow(t *testing.T, fixture string, seconds int, lines map[string][2]string) string {
	t.Helper()
	root := t.TempDir()
	src := filepath.Join(fixturesDir, fixture)
	err := filepath.WalkDir(src, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(src, p)
		dst := filepath.Join(root, rel)
		switch {
		case d.Type()&fs.ModeSymlink != 0:
			l, err := os.Readlink(p)
			if err != nil {
				return err
			}
			return os.Symlink(l, dst)
		case d.IsDir():
			return os.MkdirAll(dst, 0o755)
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		return os.WriteFile(dst, b, 0o644)
	})
	if err != nil {
		t.Fatal(err)
	}
	var before, after strings.Builder
	for _, l := range lines {
		before.WriteString(l[0] + "\n")
		after.WriteString(l[1] + "\n")
	}
	for path, body := range map[string]string{
		"proc/diskstats":           before.String(),
		"samples/1/proc/diskstats": after.String(),
		"samples/window.yaml":      "seconds: " + strconv.Itoa(seconds) + "\n",
	} {
		p := filepath.Join(root, path)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return root
}

func examine(t *testing.T, root, datasheets string) *rules.Report {
	t.Helper()
	rep, err := Examine(t.Context(), Options{Root: root, ProbeTimeout: time.Second, Context: "auto", Strict: true,
		Sample: 5 * time.Second, Datasheets: datasheets})
	if err != nil {
		t.Fatal(err)
	}
	return rep
}

func finding(rep *rules.Report, rule string) *rules.Finding {
	for i := range rep.Findings {
		if rep.Findings[i].Rule == rule {
			return &rep.Findings[i]
		}
	}
	return nil
}

// The instance as a whole at its cap, end to end: the c5.2xlarge of
// fixtures/ebs-c5-nvme-timeout-30 (DMI product_name, an EBS root) with a
// window built here (no public capture of an instance flat at its EBS cap
// was found). Its EBS volume writing 270 MB/s is 94 % of the 287.5 MB/s a
// c5.2xlarge sustains: the finding names the instance's cap and
// EBSByteBalance%, and ranks before the device-saturated it explains. At
// 100 MB/s it is not named.
func TestInstanceCapOnRecordedC5(t *testing.T) {
	// 10 s: 20,000 writes of 135,000 bytes (263,671 sectors per 1,000
	// writes), 40 ms each, the disk busy the whole window.
	at := withWindow(t, "ebs-c5-nvme-timeout-30", 10, map[string][2]string{"nvme0n1": {
		" 259       0 nvme0n1 1000 0 8000 500 100000 0 20000000 400000 0 100000 400500 0 0 0 0",
		" 259       0 nvme0n1 1000 0 8000 500 120000 0 25273438 1200000 0 110000 1200500 0 0 0 0",
	}})
	rep := examine(t, at, "")
	f := finding(rep, "cloud-volume-throttled")
	if f == nil {
		t.Fatalf("no cloud-volume-throttled at 270 MB/s on a c5.2xlarge: %+v", rep.Findings)
	}
	// The cap is the cause of the saturated disk: it ranks first.
	if rep.Findings[0].Rule != "cloud-volume-throttled" || finding(rep, "device-saturated") == nil {
		t.Errorf("the cap does not explain the saturated disk: %+v", rep.Findings)
	}
	if f.Title != "The instance runs at its documented disk cap" || !strings.Contains(f.Expected, "c5.2xlarge sustains: 10000 IOPS, 287.5 MB/s") ||
		!strings.Contains(strings.Join(f.Notes, "\n"), "EBSByteBalance%") {
		t.Errorf("title %q, expected %q, notes %q", f.Title, f.Expected, f.Notes)
	}

	below := withWindow(t, "ebs-c5-nvme-timeout-30", 10, map[string][2]string{"nvme0n1": {
		" 259       0 nvme0n1 1000 0 8000 500 100000 0 20000000 400000 0 100000 400500 0 0 0 0",
		" 259       0 nvme0n1 1000 0 8000 500 110000 0 21953125 500000 0 105000 500500 0 0 0 0",
	}})
	if f := finding(examine(t, below, ""), "cloud-volume-throttled"); f != nil {
		t.Errorf("100 MB/s on a c5.2xlarge named: %+v", f)
	}
}

// A GCP Persistent Disk a site named with its type, end to end: the 50 GiB
// boot disk of fixtures/gcp-pd-scsi-guest as pd-standard gets 0.12 MiBps
// per GiB (6.3 MB/s); reading 6.2 MB/s it is at its cap, and the finding
// is the volume's, with Cloud Monitoring's throttling metric. As
// pd-balanced (14.7 MB/s) it is not.
func TestGCPVolumeCapOnRecordedGuest(t *testing.T) {
	root := withWindow(t, "gcp-pd-scsi-guest", 10, map[string][2]string{"sda": {
		"   8       0 sda 50000 0 4000000 60000 1000 0 16000 2000 0 50000 62000 0 0 0 0",
		"   8       0 sda 50950 0 4121094 85000 1000 0 16000 2000 0 60000 87000 0 0 0 0",
	}})
	for _, tt := range []struct {
		typ  string
		want bool
	}{{"pd-standard", true}, {"pd-balanced", false}} {
		site := filepath.Join(t.TempDir(), "site.yaml")
		yaml := "cloud:\n  - {provider: GCP, volume: persistent-disk-0, volume_type: " + tt.typ + ", source: \"test: gcloud compute disks describe\"}\n"
		if err := os.WriteFile(site, []byte(yaml), 0o644); err != nil {
			t.Fatal(err)
		}
		f := finding(examine(t, root, site), "cloud-volume-throttled")
		if (f != nil) != tt.want {
			t.Fatalf("%s: finding %+v, want %v", tt.typ, f, tt.want)
		}
		if f != nil && (f.Title != "A cloud volume runs at its documented cap" || !strings.Contains(f.Expected, "pd-standard cap") ||
			!strings.Contains(strings.Join(f.Notes, "\n"), "throttled_read_bytes_count")) {
			t.Errorf("%s: title %q, expected %q, notes %q", tt.typ, f.Title, f.Expected, f.Notes)
		}
	}
}

// The VM size an Azure guest does not show in DMI: skipped with the way to
// name it, and no longer skipped once the site names it for the host
// (fixtures/azure-temp-disk-at-mnt, hostname myVM).
func TestSiteNamedInstanceTypeEndsTheSkip(t *testing.T) {
	skipped := func(rep *rules.Report) bool {
		for _, s := range rep.Skipped {
			if s.Check == "cloud-instance-cap" {
				return true
			}
		}
		return false
	}
	root, err := filepath.Abs("../fixtures/azure-temp-disk-at-mnt")
	if err != nil {
		t.Fatal(err)
	}
	if !skipped(examine(t, root, "")) {
		t.Error("an Azure guest with no VM size named: cloud-instance-cap not skipped")
	}
	site := filepath.Join(t.TempDir(), "site.yaml")
	yaml := "cloud:\n  - {provider: Azure, instance: myVM, instance_types: [Standard_D4s_v5], source: \"test: az vm show\"}\n"
	if err := os.WriteFile(site, []byte(yaml), 0o644); err != nil {
		t.Fatal(err)
	}
	if skipped(examine(t, root, site)) {
		t.Error("the site named myVM's size, and cloud-instance-cap is still skipped")
	}
}
