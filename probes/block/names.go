package block

import "strings"

// The names every device and link passes through are tested a byte at a
// time against tables of the characters their grammar allows; the
// regular expressions they stand for are kept in the tests
// (TestNameTablesAreTheRegexps, FuzzNameTablesAreTheRegexps), which hold
// the two to the same answers.

// charTable is a set of bytes.
type charTable [256]bool

const alnum = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789"

func tableOf(chars string) *charTable {
	var t charTable
	for i := 0; i < len(chars); i++ {
		t[chars[i]] = true
	}
	return &t
}

var (
	alnumChars = tableOf(alnum)
	// The kernel builds block device names from a driver prefix, letters
	// and digits (cciss!c0d0 keeps a '!' for a '/'); DISK_NAME_LEN is 32.
	kernelNameChars = tableOf(alnum + "!._:+-")
	// What udev writes into by-id names: it replaces every other
	// character (udev_replace_chars, encode_devnode_name) before use.
	udevLinkChars = tableOf(alnum + `#+-.:=@_\`)
)

// all reports whether every byte of s is in t.
func (t *charTable) all(s string) bool {
	for i := 0; i < len(s); i++ {
		if !t[s[i]] {
			return false
		}
	}
	return true
}

// ValidName reports whether the kernel could have created a block
// device of this name. Names that fail are refused as subjects: they come
// from a crafted recording, and would end up in printed commands.
func ValidName(name string) bool {
	return len(name) > 0 && len(name) <= 32 && alnumChars[name[0]] && kernelNameChars.all(name[1:])
}

// isUdevLinkName reports a name udev could have written under by-id.
func isUdevLinkName(name string) bool { return name != "" && udevLinkChars.all(name) }

// virtualPrefixes are the drivers of block devices with no hardware below
// them (loop, zram, ram disks, device-mapper, md, nbd) and of the optical
// and floppy drives the doctor does not judge as disks (sr, fd).
var virtualPrefixes = []string{"loop", "zram", "ram", "dm-", "md", "nbd", "sr", "fd"}

// isVirtualName reports a name one of virtualPrefixes' drivers made.
func isVirtualName(name string) bool {
	for _, p := range virtualPrefixes {
		if strings.HasPrefix(name, p) {
			return true
		}
	}
	return false
}

// nvmePathController is the controller number of an NVMe native
// multipath per-path device, nvme<subsys>c<ctrl>n<ns> (the name
// drivers/nvme/host/multipath.c nvme_set_disk_name gives it).
func nvmePathController(name string) (string, bool) {
	rest, ok := strings.CutPrefix(name, "nvme")
	if !ok {
		return "", false
	}
	subsys, rest := leadingDigits(rest)
	if subsys == "" || !strings.HasPrefix(rest, "c") {
		return "", false
	}
	ctrl, rest := leadingDigits(rest[1:])
	if ctrl == "" || !strings.HasPrefix(rest, "n") {
		return "", false
	}
	ns, rest := leadingDigits(rest[1:])
	if ns == "" || rest != "" {
		return "", false
	}
	return ctrl, true
}

// isNVMeControllerName reports nvme<N>, a controller's name.
func isNVMeControllerName(name string) bool {
	rest, ok := strings.CutPrefix(name, "nvme")
	n, rest := leadingDigits(rest)
	return ok && n != "" && rest == ""
}

// leadingDigits splits s after its leading ASCII digits.
func leadingDigits(s string) (digits, rest string) {
	i := 0
	for i < len(s) && s[i] >= '0' && s[i] <= '9' {
		i++
	}
	return s[:i], s[i:]
}
