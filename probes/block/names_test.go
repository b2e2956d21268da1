package block

import (
	"io/fs"
	"path/filepath"
	"regexp"
	"testing"
)

// The grammars names.go tests byte by byte, as regular expressions.
var (
	kernelNameRE   = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9!._:+-]{0,31}$`)
	udevLinkNameRE = regexp.MustCompile(`^[A-Za-z0-9#+\-.:=@_\\]+$`)
	virtualNameRE  = regexp.MustCompile(`^(loop|zram|ram|dm-|md|nbd|sr|fd)\d*`)
	nvmePathNameRE = regexp.MustCompile(`^nvme\d+c(\d+)n\d+$`)
	nvmeCtrlNameRE = regexp.MustCompile(`^nvme\d+$`)
)

// sameAsTheRegexps fails t when a table's answer for name differs from
// its regular expression's.
func sameAsTheRegexps(t *testing.T, name string) {
	t.Helper()
	if got, want := ValidName(name), kernelNameRE.MatchString(name); got != want {
		t.Errorf("ValidName(%q) = %v, the regexp %v", name, got, want)
	}
	if got, want := isUdevLinkName(name), udevLinkNameRE.MatchString(name); got != want {
		t.Errorf("isUdevLinkName(%q) = %v, the regexp %v", name, got, want)
	}
	if got, want := isVirtualName(name), virtualNameRE.MatchString(name); got != want {
		t.Errorf("isVirtualName(%q) = %v, the regexp %v", name, got, want)
	}
	ctrl, ok := nvmePathController(name)
	if m := nvmePathNameRE.FindStringSubmatch(name); (m != nil) != ok || m != nil && m[1] != ctrl {
		t.Errorf("nvmePathController(%q) = %q, %v; the regexp %q", name, ctrl, ok, m)
	}
	if got, want := isNVMeControllerName(name), nvmeCtrlNameRE.MatchString(name); got != want {
		t.Errorf("isNVMeControllerName(%q) = %v, the regexp %v", name, got, want)
	}
}

// TestNameTablesAreTheRegexps: named cases at each grammar's edges, and
// every file and directory name of the fixtures.
func TestNameTablesAreTheRegexps(t *testing.T) {
	names := []string{"", "s", "sda", "sda1", "nvme0n1", "nvme0n1p2", "nvme1c2n3", "nvme1c2n", "nvmec2n3", "nvme1c2n3x", "nvme12c34n56",
		"nvme", "nvme0", "nvme0x", "cciss!c0d0", "-sda", "!x", "a2345678901234567890123456789012", "a23456789012345678901234567890123",
		"loop", "loop0", "loopback", "zram0", "ram", "dm-", "dm-3", "dm", "md127", "mdx", "nbd0", "sr0", "fd0", "sdr", "xvda",
		"wwn-0x5000c500a1b2c3d4", "ata-ST18000NM000J-2TV103_ZR5ABCDE", `nvme-Samsung_SSD\x20980`, "usb-a#b=c@d", "a b", "é", "a\x00b", "\xff"}
	n := 0
	err := filepath.WalkDir("../../fixtures", func(_ string, d fs.DirEntry, err error) error {
		if err == nil {
			names = append(names, d.Name())
			n++
		}
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	if n < 1000 {
		t.Fatalf("only %d fixture names: the fixtures moved?", n)
	}
	for _, name := range names {
		sameAsTheRegexps(t, name)
	}
	for _, name := range []string{"sda", "nvme0n1", "cciss!c0d0"} {
		if !ValidName(name) {
			t.Errorf("%q is a kernel name", name)
		}
	}
}

func FuzzNameTablesAreTheRegexps(f *testing.F) {
	for _, s := range []string{"sda", "nvme1c2n3", "loop7", "wwn-0x5000", "cciss!c0d0", "nvme0"} {
		f.Add(s)
	}
	f.Fuzz(sameAsTheRegexps)
}
