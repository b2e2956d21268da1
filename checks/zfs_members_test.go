package checks

import (
	"context"
	"testing"
	"time"

	"github.com/diskdoctor/diskdoctor/machine"
)

// Every form a pool member takes in zpool output (with and without -P,
// by-id, wwn, by-partuuid, kernel names, whole disks shown without their
// partition) maps to its disk.
func TestMemberIndex(t *testing.T) {
	for fixture, cases := range map[string]map[string]string{
		"hpe-microserver-writethrough": {
			"ata-WDC_WDS200T1R0A-68A4W0_21343D800458":                       "sda",
			"ata-WDC_WDS200T1R0A-68A4W0_21343D800458-part1":                 "sda/sda1",
			"/dev/disk/by-id/ata-WDC_WDS200T1R0A-68A4W0_21343D800461-part1": "sdb/sdb1",
			"wwn-0x5001b448b9e1a6d0-part1":                                  "sdc/sdc1",
			"/dev/disk/by-id/wwn-0x5001b448b9e1a4f7":                        "sdb",
			"sda1":                                                          "sda/sda1",
			"/dev/sdc1":                                                     "sdc/sdc1",
			"sdd":                                                           "sdd",
			"16876260487220383698":                                          "",
			"/dev/disk/by-id/ata-NOT_HERE":                                  "",
		},
		"r630-optane-schedutil": {
			"/dev/disk/by-partuuid/7057fce1-623d-44c7-8d49-2dc8d942ea9a": "nvme6n1/nvme6n1p1",
			"7fdb61cc-ad69-40f8-9837-00d0dd311178":                       "nvme0n1/nvme0n1p1",
			"nvme-INTEL_SSDPEK1A118GA_PHOC2104012Q118B-part1":            "nvme6n1/nvme6n1p1",
			"nvme6n1p1": "nvme6n1/nvme6n1p1",
			"/dev/sda3": "sda/sda3",
			"nvme0c0n1": "",
		},
	} {
		t.Run(fixture, func(t *testing.T) {
			h, err := machine.Recorded("../fixtures/" + fixture)
			if err != nil {
				t.Fatal(err)
			}
			env := newEnv(h, Options{ProbeTimeout: time.Second})
			ctx := context.Background()
			devs, err := env.Devices(ctx)
			if err != nil {
				t.Fatal(err)
			}
			ix := newMemberIndex(devs)
			for name, want := range cases {
				d, part := ix.resolve(env, name)
				got := ""
				if d != nil {
					got = d.Name
					if part != "" {
						got += "/" + part
					}
				}
				if got != want {
					t.Errorf("%s -> %q, want %q", name, got, want)
				}
			}
		})
	}
}
