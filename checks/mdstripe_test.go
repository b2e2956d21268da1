package checks_test

import (
	"strings"
	"testing"

	"github.com/diskdoctor/diskdoctor/checks"
	"github.com/diskdoctor/diskdoctor/probes/block"
	"github.com/diskdoctor/diskdoctor/probes/md"
)

// A raid5 of four disks at md's default stripe cache (raid5.c NR_STRIPES
// 256): an info finding on hard disks with the runtime and the udev
// remedy; none once raised, none on SSDs, none when the disks are unknown,
// none for raid1 (no stripe cache, no file). No public capture shows the
// file beside its mdstat, so the data is built here.
func TestMDStripeCacheSmall(t *testing.T) {
	const raid5 = "Personalities : [raid6] [raid5] [raid4]\nmd0 : active raid5 sde1[4] sdd1[2] sdc1[1] sdb1[0]\n      11720661504 blocks super 1.2 level 5, 512k chunk, algorithm 2 [4/4] [UUUU]\n      bitmap: 0/30 pages [0KB], 65536KB chunk\n\nunused devices: <none>\n"
	const raid1 = "Personalities : [raid1]\nmd0 : active raid1 sdc1[1] sdb1[0]\n      3906885440 blocks super 1.2 [2/2] [UU]\n\nunused devices: <none>\n"
	disks := func(rot *bool) []*block.Device {
		var ds []*block.Device
		for _, n := range []string{"sdb", "sdc", "sdd", "sde"} {
			ds = append(ds, &block.Device{Name: n, Rotational: rot, Partitions: []block.Partition{{Name: n + "1"}}})
		}
		return ds
	}
	yes, no := true, false
	n := func(v int64) *int64 { return &v }
	for _, c := range []struct {
		name   string
		mdstat string
		devs   []*block.Device
		stripe *int64
		want   bool
	}{
		{"default on hard disks", raid5, disks(&yes), n(256), true},
		{"raised", raid5, disks(&yes), n(4096), false},
		{"on SSDs", raid5, disks(&no), n(256), false},
		{"disks unknown", raid5, nil, n(256), false},
		{"rotational unknown", raid5, disks(nil), n(256), false},
		{"not read", raid5, disks(&yes), nil, false},
		{"raid1 has none", raid1, disks(&yes), nil, false},
	} {
		t.Run(c.name, func(t *testing.T) {
			arrays, err := readMDStat(t, []byte(c.mdstat))
			if err != nil {
				t.Fatal(err)
			}
			sysfs := map[string]md.Sysfs{"md0": {StripeCacheSize: c.stripe}}
			obs := checks.MDObservationsWith(arrays, c.devs, func(*block.Device) bool { return true }, sysfs)
			fs, err := engineWith(t, "md-stripe-cache-small").Judge(&checks.Result{Observations: obs})
			if err != nil {
				t.Fatal(err)
			}
			if !c.want {
				if len(fs) != 0 {
					t.Errorf("findings %+v", fs)
				}
				return
			}
			if len(fs) != 1 || fs[0].Rule != "md-stripe-cache-small" || fs[0].Severity != "info" {
				t.Fatalf("findings %+v", fs)
			}
			var cmds []string
			for _, r := range fs[0].Remediation {
				cmds = append(cmds, r.Risk+": "+r.Command)
			}
			got := strings.Join(cmds, "\n")
			for _, w := range []string{"runtime: echo 4096 > /sys/block/md0/md/stripe_cache_size", "persistent: cat > /etc/udev/rules.d/", `ATTR{md/stripe_cache_size}="4096"`} {
				if !strings.Contains(got, w) {
					t.Errorf("remediation lacks %q:\n%s", w, got)
				}
			}
			// 256 pages × 4 KiB × 4 disks.
			for _, o := range obs {
				if o.Subject == "md0" {
					if o.Kind == checks.KindPool && o.Get("md_stripe_cache_mib") != 4.0 {
						t.Errorf("md_stripe_cache_mib = %v", o.Get("md_stripe_cache_mib"))
					}
				}
			}
		})
	}
}
