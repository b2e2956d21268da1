package checks

import (
	"slices"
	"testing"
	"time"

	"github.com/diskdoctor/diskdoctor/machine"
	"github.com/diskdoctor/diskdoctor/probes/block"
	"github.com/diskdoctor/diskdoctor/probes/btrfs"
	"github.com/diskdoctor/diskdoctor/probes/kernlog"
	"github.com/diskdoctor/diskdoctor/probes/mount"
)

func btrfsFixture(t *testing.T, fixture string) []*Observation {
	t.Helper()
	h, err := machine.Recorded("../fixtures/" + fixture)
	if err != nil {
		t.Fatal(err)
	}
	res, err := Run(t.Context(), h, Options{ProbeTimeout: 2 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	return res.Observations
}

func btrfsObs(obs []*Observation, kind, subject string) *Observation {
	for _, o := range obs {
		if o.Check == "btrfs" && o.Kind == kind && o.Subject == subject {
			return o
		}
	}
	return nil
}

// The three recorded filesystems: the facts each rule reads, from the
// command, sysfs and the log as each fixture holds them.
func TestBTRFSFilesystemFixtures(t *testing.T) {
	o := btrfsObs(btrfsFixture(t, "btrfs-metadata-enospc"), KindFilesystem, "/mnt/fmbackup")
	if o == nil {
		t.Fatal("no observation of /mnt/fmbackup")
	}
	if o.Get("btrfs_unallocated_max_bytes") != uint64(1048576) || o.Get("btrfs_chunk_bytes") != uint64(1<<30) || o.Get("btrfs_metadata_used_percent") != 91.65 || o.Get("btrfs_enospc_lines") != 0 {
		t.Errorf("unallocated %v, chunk %v, metadata %v, enospc %v", o.Get("btrfs_unallocated_max_bytes"), o.Get("btrfs_chunk_bytes"), o.Get("btrfs_metadata_used_percent"), o.Get("btrfs_enospc_lines"))
	}
	if !slices.Equal(o.Get("btrfs_devices").([]string), []string{"sdb1"}) || o.Get("btrfs_uuid") != "3c1e9a52-7d40-4b8e-9f0c-51a2d6e8b7f4" {
		t.Errorf("devices %v uuid %v", o.Get("btrfs_devices"), o.Get("btrfs_uuid"))
	}
	// Scrub and balance were not recorded: unknown, not idle.
	if o.Get("btrfs_background") != nil {
		t.Errorf("background %v, want unknown", o.Get("btrfs_background"))
	}

	o = btrfsObs(btrfsFixture(t, "btrfs-raid1-unallocated"), KindFilesystem, "/srv/backup")
	if o == nil {
		t.Fatal("no observation of /srv/backup")
	}
	if o.Get("btrfs_unallocated_max_bytes") != uint64(11885720696259) || o.Get("btrfs_metadata_used_percent") != 98.82 {
		t.Errorf("unallocated %v, metadata %v", o.Get("btrfs_unallocated_max_bytes"), o.Get("btrfs_metadata_used_percent"))
	}
	if bg, _ := o.Get("btrfs_background").([]string); len(bg) != 0 {
		t.Errorf("a finished scrub is background work: %v", bg)
	}

	obs := btrfsFixture(t, "btrfs-raid5-degraded")
	o = btrfsObs(obs, KindFilesystem, "/var/media")
	if o == nil {
		t.Fatal("no observation of /var/media")
	}
	if !slices.Equal(o.Get("btrfs_missing_devices").([]string), []string{"devid 1"}) || o.Get("btrfs_degraded") != true || !slices.Equal(o.Get("btrfs_raid56").([]string), []string{"data raid5"}) {
		t.Errorf("missing %v, degraded %v, raid56 %v", o.Get("btrfs_missing_devices"), o.Get("btrfs_degraded"), o.Get("btrfs_raid56"))
	}
	if len(o.EvidenceOf("btrfs_missing_devices")) != 2 || o.Get("btrfs_quota") != false || o.Get("btrfs_metadata_used_percent") != 82.33 {
		t.Errorf("evidence %+v, quota %v, metadata %v", o.EvidenceOf("btrfs_missing_devices"), o.Get("btrfs_quota"), o.Get("btrfs_metadata_used_percent"))
	}
	// The missing member's counters land on its own disk, none on sda.
	if d := btrfsObs(obs, KindDevice, "sdb"); d == nil || d.Get("btrfs_dev_write_errs") != uint64(4458026) {
		t.Errorf("sdb: %+v", d)
	}
	if d := btrfsObs(obs, KindDevice, "sda"); d == nil || d.Get("btrfs_dev_names") != nil || d.Get("btrfs_member_redundant") != true {
		t.Errorf("sda: want no btrfs counters and a member of raid5, got %+v", d)
	}
}

// The counters read now replace the log's for the same device, one entry
// with the evidence of both; a device the log never printed is added; the
// log's devices the command does not list stay.
func TestMergeDevErrs(t *testing.T) {
	logged := []*devErrs{
		{dev: "sda1", corrupt: 5, ev: []Evidence{{"dmesg line 4", "… corrupt 5 …"}}},
		{dev: "sdc1", rd: 1, ev: []Evidence{{"dmesg line 9", "… rd 1 …"}}},
	}
	now := []*devErrs{
		{dev: "sda1", corrupt: 7, current: true, ev: []Evidence{{"btrfs device stats /srv", "[/dev/sda1].corruption_errs 7"}}},
		{dev: "sdb1", current: true, ev: []Evidence{{"btrfs device stats /srv", "[/dev/sdb1].corruption_errs 0"}}},
	}
	got := mergeDevErrs(logged, now)
	if len(got) != 3 || got[0].dev != "sda1" || got[0].corrupt != 7 || len(got[0].ev) != 2 || got[1].dev != "sdc1" || got[2].dev != "sdb1" {
		t.Fatalf("%+v", got)
	}
	// Counters reset with -z since the log line: zero now, no finding.
	got = mergeDevErrs([]*devErrs{{dev: "sda1", corrupt: 5}}, []*devErrs{{dev: "sda1", current: true}})
	if got[0].corrupt != 0 {
		t.Errorf("%+v", got[0])
	}
}

// btrfs device stats on dm-crypt devices (kdave/btrfs-progs issue 965):
// the mapper names resolve to the dm devices and through them to the
// disks; the command's counters go on the disk under sda_crypt.
func TestBTRFSStatsOnMapperDevices(t *testing.T) {
	st, err := btrfs.ParseStats([]byte("[/dev/mapper/sdc_crypt].write_io_errs    0\n[/dev/mapper/sda_crypt].write_io_errs    17876972\n[/dev/mapper/sda_crypt].read_io_errs     8890703\n"))
	if err != nil {
		t.Fatal(err)
	}
	dm := map[string]string{"sda_crypt": "dm-0", "sdc_crypt": "dm-1"}
	var errs []*devErrs
	for _, s := range st {
		errs = append(errs, &devErrs{dev: btrfsKernelName(s.Path, dm), wr: s.Write, rd: s.Read, current: true})
	}
	devs := []*block.Device{
		{Name: "sda", DevNo: "8:0", Holders: []string{"dm-0"}},
		{Name: "sdc", DevNo: "8:32", Holders: []string{"dm-1"}},
		{Name: "dm-0", DevNo: "253:0", Virtual: true},
		{Name: "dm-1", DevNo: "253:1", Virtual: true},
	}
	obs := btrfsObservations(errs, block.NewMap(devs), map[string]bool{"sda": true, "sdc": true})
	if len(obs) != 2 || obs[1].Subject != "sda" || obs[1].Get("btrfs_dev_write_errs") != uint64(17876972) || obs[0].Get("btrfs_dev_errs") != uint64(0) {
		t.Fatalf("%d observations", len(obs))
	}
	if btrfsKernelName("<missing disk #2>", dm) != "" || btrfsKernelName("devid:2", dm) != "" || btrfsKernelName("/dev/mapper/unknown", dm) != "" {
		t.Error("a path that names no device resolved")
	}
}

// Background work from each source, quotas with hung commits: built, as
// no capture holds a running balance with sysfs beside it.
func TestBTRFSBackgroundAndQuota(t *testing.T) {
	log := &kernlog.Log{Lines: kernlog.Parse([]byte("[  363.662691] INFO: task btrfs-transacti:1158 blocked for more than 120 seconds.\n[  363.662942]  wait_current_trans+0xd2/0x130 [btrfs]\n"))}
	f := &btrfsFS{
		uuid:    "8641eeeb-ddf0-47af-8ed0-254327dcc050",
		mounts:  []mount.Mount{{MountPoint: "/srv", FSType: "btrfs", Source: "/dev/sda1"}},
		devs:    []string{"sda1"},
		scrub:   &btrfs.Scrub{Running: true, State: "running", Percent: 4.86, Line: "Status:           running"},
		balance: &btrfs.Balance{Paused: true, Line: "Balance on '/srv' is paused"},
		sys:     &btrfs.Sysfs{UUID: "8641eeeb-ddf0-47af-8ed0-254327dcc050", ExclusiveOp: "balance paused", HasExclusiveOp: true, Quota: true, HasQuota: true, Subvolumes: 14},
	}
	o := btrfsFSObservations([]*btrfsFS{f}, block.NewMap(nil), log)[0]
	if bg := o.Get("btrfs_background").([]string); !slices.Equal(bg, []string{"scrub (4.9 % done)", "balance (paused)"}) {
		t.Errorf("background %v", bg)
	}
	if o.Get("btrfs_quota") != true || o.Get("btrfs_subvolumes") != 14 || !slices.Equal(o.Get("btrfs_hung_tasks").([]string), []string{"btrfs-transacti:1158"}) {
		t.Errorf("quota %v, subvolumes %v, hung %v", o.Get("btrfs_quota"), o.Get("btrfs_subvolumes"), o.Get("btrfs_hung_tasks"))
	}
	// A replace seen only in sysfs; nothing read at all: unknowns.
	f = &btrfsFS{mounts: f.mounts, sys: &btrfs.Sysfs{ExclusiveOp: "device replace", HasExclusiveOp: true}}
	o = btrfsFSObservations([]*btrfsFS{f}, block.NewMap(nil), nil)[0]
	if bg := o.Get("btrfs_background").([]string); !slices.Equal(bg, []string{"device replace"}) {
		t.Errorf("background %v", bg)
	}
	if o.Get("btrfs_unallocated_max_bytes") != nil || o.Get("btrfs_raid56") != nil || o.Get("btrfs_quota") != nil || o.Get("btrfs_hung_tasks") != nil || o.Get("btrfs_enospc_lines") != nil {
		t.Errorf("unknowns set: %v %v %v %v", o.Get("btrfs_unallocated_max_bytes"), o.Get("btrfs_raid56"), o.Get("btrfs_quota"), o.Get("btrfs_hung_tasks"))
	}
}
