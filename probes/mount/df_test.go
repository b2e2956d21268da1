package mount

import "testing"

// GNU df's lines from uutils/coreutils issue 3251 (a real Ubuntu 20.04
// machine, `df -t ext4`: the same columns as df -P -k without Type, so the
// type column is added here as -T prints it).
const dfUutils3251 = `Filesystem                Type 1024-blocks     Used Available Capacity Mounted on
/dev/mapper/vgubuntu-root ext4   242791844 99671492 130717460      44% /
/dev/nvme0n1p2            ext4      721392   364852    304076      55% /boot
`

func TestParseDF(t *testing.T) {
	got, err := ParseDF([]byte(dfUutils3251))
	if err != nil || len(got) != 2 {
		t.Fatalf("%+v %v", got, err)
	}
	r := got[0]
	if r.Source != "/dev/mapper/vgubuntu-root" || r.FSType != "ext4" || r.MountPoint != "/" || r.SizeBytes != 242791844<<10 || r.UsedBytes != 99671492<<10 || r.AvailBytes != 130717460<<10 {
		t.Errorf("root %+v", r)
	}
	// df's Use% (44 %, rounded up): reserved blocks are neither used nor available.
	if p, ok := r.UsePercent(); !ok || p < 43 || p > 44 {
		t.Errorf("use %v %v", p, ok)
	}
	// A mount point with a space is the rest of the line; a line whose
	// numbers do not parse is skipped; only garbage is an error.
	got, err = ParseDF([]byte("Filesystem Type 1024-blocks Used Available Capacity Mounted on\n/dev/sdb1 ext4 100 95 5 95% /mnt/my disk\n/dev/sdc1 ext4 - - - - /x\n"))
	if err != nil || len(got) != 1 || got[0].MountPoint != "/mnt/my disk" {
		t.Errorf("%+v %v", got, err)
	}
	if _, err := ParseDF([]byte("garbage\n")); err == nil {
		t.Error("garbage parsed")
	}
	if got, err := ParseDF(nil); err != nil || len(got) != 0 {
		t.Errorf("empty: %v %v", got, err)
	}
	if _, ok := (Space{}).UsePercent(); ok {
		t.Error("no blocks has a percentage")
	}
}

func FuzzParseDF(f *testing.F) {
	f.Add([]byte(dfUutils3251))
	f.Add([]byte("/dev/sda1 ext4 18446744073709551615 1 1 1% /\n"))
	f.Fuzz(func(t *testing.T, b []byte) {
		rows, _ := ParseDF(b)
		for _, r := range rows {
			_, _ = r.UsePercent()
		}
	})
}
