package block

import (
	"strings"
	"testing"
)

func TestNames(t *testing.T) {
	for _, c := range []struct {
		name              string
		valid, link, virt bool
		pathCtrl          string // nvmePathController's answer; "" none
		ctrl              bool
	}{
		{name: ""},
		{name: "sda", valid: true, link: true},
		{name: "nvme0n1p2", valid: true, link: true},
		{name: "cciss!c0d0", valid: true},
		{name: "a2345678901234567890123456789012", valid: true, link: true},
		{name: "a23456789012345678901234567890123", link: true},
		{name: "-sda", link: true},
		{name: "!x"},
		{name: "a b"},
		{name: "a/b"},
		{name: "é"},
		{name: "a\x00b"},
		{name: "sda\n"},
		{name: "nvme1c2n3", valid: true, link: true, pathCtrl: "2"},
		{name: "nvme12c34n56", valid: true, link: true, pathCtrl: "34"},
		{name: "nvme1c2n", valid: true, link: true},
		{name: "nvmec2n3", valid: true, link: true},
		{name: "nvme1c2n3x", valid: true, link: true},
		{name: "nvme0", valid: true, link: true, ctrl: true},
		{name: "nvme", valid: true, link: true},
		{name: "nvme0x", valid: true, link: true},
		{name: "loop0", valid: true, link: true, virt: true},
		{name: "dm-3", valid: true, link: true, virt: true},
		{name: "dm", valid: true, link: true},
		{name: "md127", valid: true, link: true, virt: true},
		{name: "sr0", valid: true, link: true, virt: true},
		{name: "sdr", valid: true, link: true},
		{name: "wwn-0x5000c500a1b2c3d4", valid: true, link: true},
		{name: `nvme-Samsung_SSD\x20980`, link: true},
		{name: "usb-a#b=c@d", link: true},
	} {
		ctrl, ok := nvmePathController(c.name)
		if ValidName(c.name) != c.valid || isUdevLinkName(c.name) != c.link || isVirtualName(c.name) != c.virt ||
			ctrl != c.pathCtrl || ok != (c.pathCtrl != "") || isNVMeControllerName(c.name) != c.ctrl {
			t.Errorf("%q: valid %v, udev link %v, virtual %v, path controller %q, controller %v; want %+v",
				c.name, ValidName(c.name), isUdevLinkName(c.name), isVirtualName(c.name), ctrl, isNVMeControllerName(c.name), c)
		}
	}
}

// FuzzValidName: a name a recording gives is a subject, a path element and
// a word of a printed command only if it is a kernel name: never a
// separator, a dot-dot, a space, a quote or a control byte.
func FuzzValidName(f *testing.F) {
	for _, s := range []string{"sda", "nvme1c2n3", "loop7", "wwn-0x5000", "cciss!c0d0", "nvme0", "..", "a/b", "a\nb"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, name string) {
		if ValidName(name) && (len(name) > 32 || name[0] == '.' || name[0] == '-' || strings.ContainsAny(name, "/ \t\n\"'`$\\;&|<>()*?[]{}~\x00")) {
			t.Errorf("%q is taken for a kernel name", name)
		}
		if isUdevLinkName(name) && (name == "" || name == "." || name == ".." || strings.ContainsAny(name, "/ \t\n\"'`$;&|<>()*?[]{}~\x00")) {
			t.Errorf("%q is taken for a by-id name", name)
		}
		if ctrl, ok := nvmePathController(name); ok && (ctrl == "" || strings.Trim(ctrl, "0123456789") != "") {
			t.Errorf("%q: controller %q", name, ctrl)
		}
	})
}
