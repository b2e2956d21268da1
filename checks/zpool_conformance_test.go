package checks_test

import (
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/diskdoctor/diskdoctor/rules"
)

// Conformance on real data nobody here wrote: every `zpool status` sample of
// the shared samples goes through the zfs check and the rules as the output
// of `zpool status -P -t` on an otherwise empty machine, and must give the
// verdict its description implies.
var zpoolSampleVerdicts = map[string][]string{
	// a mirror member UNAVAIL ("was /dev/dsk/…"), pool DEGRADED, a log device
	"status-illumos-degraded-with-log.txt": {"zfs-pool-unhealthy critical zones"},
	// scrub canceled: not running, nothing to report
	"status-o3x-scrub-canceled.txt": nil,
	// "Some supported features are not enabled": healthy
	"status-openzfs-features-upgrade-mirrors.txt": nil,
	// healthy raidz1 + NVMe mirror, last scrub repaired 1M and finished
	"status-openzfs2-healthy-raidz1-nvme-mirror.txt": nil,
	// rpool DEGRADED (two of three mirror sides cannot be opened), zpool UNAVAIL
	"status-solaris-degraded-and-unavail.txt": {"zfs-pool-unhealthy critical rpool,zpool"},
	// a spare in use for a FAULTED member, read and checksum errors counted
	"status-zol-degraded-spare-inuse.txt": {"zfs-pool-unhealthy critical test"},
}

func TestZpoolSamplesConformance(t *testing.T) {
	dir := filepath.Join("..", "..", "shared", "samples", "zpool")
	files, _ := filepath.Glob(filepath.Join(dir, "status-*.txt"))
	if len(files) == 0 {
		t.Skipf("no zpool status samples in %s (the shared samples live beside the repository)", dir)
	}
	ds, err := rules.LoadDatasheets("")
	if err != nil {
		t.Fatal(err)
	}
	eng, err := rules.NewEngine(ds)
	if err != nil {
		t.Fatal(err)
	}
	eng.Strict = true
	for _, f := range files {
		name := filepath.Base(f)
		t.Run(name, func(t *testing.T) {
			want, ok := zpoolSampleVerdicts[name]
			if !ok {
				t.Fatalf("new sample %s: add its verdict", name)
			}
			root := t.TempDir()
			for _, d := range []string{"sys/block", "sys/module/zfs/parameters", "commands"} {
				if err := os.MkdirAll(filepath.Join(root, d), 0o755); err != nil {
					t.Fatal(err)
				}
			}
			b, err := os.ReadFile(f)
			if err != nil {
				t.Fatal(err)
			}
			write(t, filepath.Join(root, "commands", "status.txt"), string(b))
			write(t, filepath.Join(root, "commands", "manifest.yaml"), "- argv: [zpool, status, -P, -t]\n  stdout: status.txt\n")
			res := runRecorded(t, root)
			for _, s := range res.Skipped {
				if s.Check == "zpool-status" {
					t.Fatalf("zpool status skipped: %s", s.Reason)
				}
			}
			fs, err := eng.Judge(res)
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, f := range fs {
				if strings.HasPrefix(f.Rule, "zfs-") {
					got = append(got, f.Rule+" "+f.Severity+" "+strings.Join(f.Subjects, ","))
				}
			}
			sort.Strings(got)
			if strings.Join(got, "; ") != strings.Join(want, "; ") {
				t.Errorf("zfs findings = %q, want %q", got, want)
			}
		})
	}
}

func write(t *testing.T, p, s string) {
	t.Helper()
	if err := os.WriteFile(p, []byte(s), 0o644); err != nil {
		t.Fatal(err)
	}
}
