package block

import (
	"regexp"
	"strings"
)

var (
	// The kernel builds block device names from a driver prefix, letters
	// and digits (cciss!c0d0 keeps a '!' for a '/'); DISK_NAME_LEN is 32.
	kernelName = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9!._:+-]{0,31}$`)
	// What udev writes into by-id names: it replaces every other
	// character (udev_replace_chars, encode_devnode_name) before use.
	udevLinkName = regexp.MustCompile(`^[A-Za-z0-9#+\-.:=@_\\]+$`)
	// An NVMe native multipath per-path device, nvme<subsys>c<ctrl>n<ns>
	// (drivers/nvme/host/multipath.c nvme_set_disk_name).
	nvmePathName = regexp.MustCompile(`^nvme\d+c(\d+)n\d+$`)
	// A controller, nvme<N>.
	nvmeCtrlName = regexp.MustCompile(`^nvme\d+$`)
)

// ValidName reports whether the kernel could have created a block
// device of this name. Names that fail are refused as subjects: they come
// from a crafted recording, and would end up in printed commands.
func ValidName(name string) bool { return kernelName.MatchString(name) }

// isUdevLinkName reports a name udev could have written under by-id ("."
// and ".." are the directory's own entries, no link udev made).
func isUdevLinkName(name string) bool {
	return name != "." && name != ".." && udevLinkName.MatchString(name)
}

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
// multipath per-path device.
func nvmePathController(name string) (string, bool) {
	m := nvmePathName.FindStringSubmatch(name)
	if m == nil {
		return "", false
	}
	return m[1], true
}

// isNVMeControllerName reports nvme<N>, a controller's name.
func isNVMeControllerName(name string) bool { return nvmeCtrlName.MatchString(name) }
