package snapshot

import (
	"bytes"
	"path"
	"strings"
)

// identityFiles are sysfs attributes whose whole content identifies a
// device or a machine.
var identityFiles = map[string]string{
	"serial": "serial", "wwid": "wwn", "eui": "wwn", "nguid": "wwn", "uuid": "wwn", "wwn": "wwn",
	"vpd_pg80": "serial", "vpd_pg83": "wwn",
	"product_serial": "serial", "board_serial": "serial", "chassis_serial": "serial", "product_uuid": "serial",
}

// fromEntries takes the secrets of recorded files' contents (and the
// words of the distribution's and kernel's names into osIDs).
func (s *secrets) fromEntries(entries []*Entry, osIDs map[string]bool) {
	for _, e := range entries {
		if e.Type != EntryFile || !e.read {
			continue
		}
		switch {
		case e.Path == "proc/sys/kernel/hostname" || e.Path == "etc/hostname":
			s.hostFiles = append(s.hostFiles, e)
		case e.Path == "etc/os-release" || e.Path == "usr/lib/os-release" || e.Path == "proc/sys/kernel/osrelease":
			// A host name that is a word of the distribution's or the
			// kernel's name (debian, truenas) is the installer's default:
			// it identifies nothing, and replacing it would rewrite them.
			for _, w := range strings.FieldsFunc(strings.ToLower(string(e.Data)), func(r rune) bool {
				return !(r >= 'a' && r <= 'z' || r >= '0' && r <= '9' || r == '-')
			}) {
				osIDs[w] = true
			}
		case strings.HasPrefix(e.Path, "run/udev/data/"):
			udevSecrets(e.Data, s.add)
		case strings.HasPrefix(e.Path, "sys/"):
			// A device-mapper UUID (dm/uuid) names its owner and volume
			// ("LVM-<vg uuid><lv uuid>-tpool", "CRYPT-LUKS2-…"), like a
			// filesystem UUID, not a serial number; replaced whole it
			// would lose the owner prefix the stack and lvm checks read
			// (Documentation/ABI/testing/sysfs-block-dm). A multipath
			// UUID's WWN is a secret of the disks below and replaced
			// wherever it occurs.
			if strings.HasSuffix(e.Path, "/dm/uuid") {
				break
			}
			if kind, ok := identityFiles[path.Base(e.Path)]; ok {
				s.identityFiles = append(s.identityFiles, e)
				s.identityValue(e.Data, kind)
			}
		}
		s.fromText(e.Data)
	}
}

// identityValue takes the secret of a sysfs identity attribute.
func (s *secrets) identityValue(data []byte, kind string) {
	if bytes.IndexByte(data, 0) >= 0 {
		return // binary (vpd pages): replaced whole, nothing to search for
	}
	v := strings.TrimSpace(string(data))
	if strings.HasPrefix(v, "t10.") {
		if f := strings.Fields(v); len(f) > 1 {
			s.add(f[len(f)-1], "serial")
		}
		return
	}
	s.add(v, kind)
}

// udevSecrets finds serial numbers and WWNs in a udev record.
func udevSecrets(b []byte, add func(v, kind string)) {
	props := map[string]string{}
	for _, line := range strings.Split(string(b), "\n") {
		if k, v, ok := strings.Cut(strings.TrimPrefix(line, "E:"), "="); ok && strings.HasPrefix(line, "E:") {
			props[k] = v
		}
	}
	var shorts []string
	for k, v := range props {
		switch {
		case strings.Contains(k, "SERIAL") && k != "ID_SERIAL" && k != "ID_USB_SERIAL":
			add(v, "serial")
			shorts = append(shorts, strings.TrimSpace(v))
		case strings.Contains(k, "WWN") || strings.HasPrefix(k, "SCSI_IDENT_LUN_NAA") || strings.HasPrefix(k, "SCSI_IDENT_LUN_EUI") ||
			strings.HasPrefix(k, "SCSI_IDENT_PORT_NAA") || strings.HasPrefix(k, "SCSI_IDENT_TARGET_NAA"):
			add(v, "wwn")
		}
	}
	for _, k := range []string{"ID_SERIAL", "ID_USB_SERIAL"} {
		v := props[k]
		if v == "" {
			continue
		}
		contained := false
		for _, s := range shorts {
			if len(s) >= 4 && strings.Contains(v, s) {
				contained = true
			}
		}
		if !contained {
			add(v, "serial")
		}
	}
}
