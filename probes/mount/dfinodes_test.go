package mount

import "testing"

// Real `df -i` lines: aelve/codesearch issue 195 (2019-01-15, an Ubuntu
// VM whose root was 96 % full in blocks and 54 % in inodes, beside snap
// squashfs images at 100 %), and NixOS/nixpkgs issue 74524 (its vfat
// /boot: no inode count, "-"). The Type column is added as -T prints it.
const dfiCodesearch195 = `Filesystem     Type        Inodes   IUsed   IFree IUse% Mounted on
udev           devtmpfs    501721     395  501326    1% /dev
/dev/vda1      ext4      10321920 5496101 4825819   54% /
/dev/loop0     squashfs     12810   12810       0  100% /snap/core/6034
/dev/sda1      vfat             0       0       0     - /boot
`

func TestParseDFInodes(t *testing.T) {
	got, err := ParseDFInodes([]byte(dfiCodesearch195))
	if err != nil || len(got) != 4 {
		t.Fatalf("%+v %v", got, err)
	}
	r := got[1]
	if r.Source != "/dev/vda1" || r.FSType != "ext4" || r.MountPoint != "/" || r.Total != 10321920 || r.Used != 5496101 || r.Free != 4825819 {
		t.Errorf("root %+v", r)
	}
	if p, ok := r.UsePercent(); !ok || p < 53 || p > 54 {
		t.Errorf("root use %v %v", p, ok)
	}
	if p, ok := got[2].UsePercent(); !ok || p != 100 {
		t.Errorf("squashfs use %v %v", p, ok)
	}
	// vfat has no inode count: unknown, not 0 %.
	if _, ok := got[3].UsePercent(); ok {
		t.Error("a filesystem without inodes has a percentage")
	}
	// More used than there are, or numbers that do not parse: skipped.
	got, err = ParseDFInodes([]byte("Filesystem Type Inodes IUsed IFree IUse% Mounted on\n/dev/sdb1 ext4 10 11 0 100% /x\n/dev/sdc1 ext4 10 5 5 50% /mnt/my disk\n"))
	if err != nil || len(got) != 1 || got[0].MountPoint != "/mnt/my disk" {
		t.Errorf("%+v %v", got, err)
	}
	if _, err := ParseDFInodes([]byte("garbage\n")); err == nil {
		t.Error("garbage parsed")
	}
}

func FuzzParseDFInodes(f *testing.F) {
	f.Add([]byte(dfiCodesearch195))
	f.Add([]byte("/dev/sda1 ext4 18446744073709551615 1 1 1% /\n"))
	f.Fuzz(func(t *testing.T, b []byte) {
		rows, _ := ParseDFInodes(b)
		for _, r := range rows {
			if p, ok := r.UsePercent(); ok && (p < 0 || p > 100) {
				t.Fatalf("%+v: %v %%", r, p)
			}
		}
	})
}
