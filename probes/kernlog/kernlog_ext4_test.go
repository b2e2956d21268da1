package kernlog

import "testing"

// MichaIng/DietPi issue 765 (2017-03-03): the daily summary of a Raspberry
// Pi's root filesystem, printed again a day later. The mount-time warning
// in its two forms is built from fs/ext4/super.c's format strings
// (ext4_msg since 4.x, ext4_warning with function and line before); an
// ordinary mount line is none of them.
func TestEXT4ErrorInfo(t *testing.T) {
	log := &Log{Lines: Parse([]byte(`[259822.643398] EXT4-fs (mmcblk0p2): error count since last fsck: 8
[259822.643439] EXT4-fs (mmcblk0p2): initial error at time 1487728499: ext4_iget:4223: inode 1836929
[259822.643461] EXT4-fs (mmcblk0p2): last error at time 1487728859: ext4_iget:4223: inode 1836929
[346330.163686] EXT4-fs (mmcblk0p2): error count since last fsck: 8
[346330.163726] EXT4-fs (mmcblk0p2): initial error at time 1487728499: ext4_iget:4223: inode 1836929
[346330.163748] EXT4-fs (mmcblk0p2): last error at time 1487728859: ext4_iget:4223: inode 1836929
[    3.123456] EXT4-fs (xvdb): warning: mounting fs with errors, running e2fsck is recommended
[    3.200000] EXT4-fs warning (device sdc1): ext4_setup_super:2054: warning: mounting fs with errors, running e2fsck is recommended
[    3.300000] EXT4-fs (sda1): mounted filesystem with ordered data mode. Quota mode: none.
`))}
	got := log.EXT4ErrorInfo()
	if len(got) != 3 {
		t.Fatalf("%d filesystems: %+v", len(got), got)
	}
	if e := got[0]; e.Dev != "mmcblk0p2" || !e.HasCount || e.Count != 8 || e.First != "1487728499: ext4_iget:4223: inode 1836929" || e.MountedWithErrors || len(e.Lines) != 6 {
		t.Errorf("%+v", e)
	}
	if e := got[1]; e.Dev != "xvdb" || !e.MountedWithErrors || e.HasCount {
		t.Errorf("%+v", e)
	}
	if e := got[2]; e.Dev != "sdc1" || !e.MountedWithErrors {
		t.Errorf("%+v", e)
	}
}
