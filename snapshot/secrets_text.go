package snapshot

import (
	"bytes"
	"fmt"
	"regexp"
	"strconv"
	"strings"
)

var (
	// serialNumberLine: "SerialNumber: X" (USB devices in the kernel log),
	// "Serial Number:    X" (smartctl, hdparm -I text).
	serialNumberLine = regexp.MustCompile(`(?i)serial ?number:\s*(\S+)`)
	// jsonSerial: smartctl's JSON ("serial_number": "X").
	jsonSerial = regexp.MustCompile(`"serial_number"\s*:\s*"([^"\\]+)"`)
	// jsonLUID: smartctl's JSON of a SCSI disk ("logical_unit_id": "0x5000c500...").
	jsonLUID = regexp.MustCompile(`"logical_unit_id"\s*:\s*"([^"\\]+)"`)
	// jsonWWN: smartctl's JSON of an ATA disk's WWN, in decimal fields:
	// "wwn": {"naa": 5, "oui": 9528, "id": 61213881027}, and of an NVMe
	// namespace's EUI-64: "eui64": {"oui": 9528, "ext_id": 373959082964}.
	jsonWWN   = regexp.MustCompile(`"(wwn|eui64)"\s*:\s*\{[^{}]*\}`)
	jsonField = regexp.MustCompile(`"(naa|oui|id|ext_id)"\s*:\s*([0-9]+)`)
)

// fromText takes the serials, WWNs and MACs that tools print (kernel log,
// smartctl text and JSON).
func (s *secrets) fromText(b []byte) {
	if len(b) == 0 {
		return
	}
	// The regular expressions only where their words are: most contents
	// are sysfs values and udev records without any.
	if bytes.Contains(b, []byte("erial")) || bytes.Contains(b, []byte("ERIAL")) {
		// Each expression only where its literal part is (a udev record
		// has ID_SERIAL in it, and neither): without a literal prefix (a
		// case-folded one has none) a regexp search steps its automaton
		// over every byte, where bytes.Contains is a vectorised scan.
		if hasNumberColon(b) {
			for _, m := range serialNumberLine.FindAllSubmatch(b, -1) {
				s.add(strings.TrimRight(string(m[1]), `",`), "serial")
			}
		}
		if bytes.Contains(b, []byte(`"serial_number"`)) {
			for _, m := range jsonSerial.FindAllSubmatch(b, -1) {
				s.add(string(m[1]), "serial")
			}
		}
	}
	if bytes.Contains(b, []byte(`"logical_unit_id"`)) {
		for _, m := range jsonLUID.FindAllSubmatch(b, -1) {
			s.add(string(m[1]), "wwn")
		}
	}
	if bytes.Contains(b, []byte(`"wwn"`)) || bytes.Contains(b, []byte(`"eui64"`)) {
		for _, m := range jsonWWN.FindAll(b, -1) {
			hex, id, idHex := jsonWWNHex(string(m))
			if hex == "" {
				continue
			}
			s.add(hex, "wwn")
			s.jsonIDs[id] = hex
			// smartctl -x text splits it: "LU WWN Device Id: 5 002538 e40a1b2c3".
			if len(idHex) >= 8 {
				s.alias[idHex] = hex
				s.alias[strings.ToUpper(idHex)] = hex
			}
		}
	}
	s.macs(b)
	s.logHosts(b)
}

// hasNumberColon reports whether b holds "number:" in any case, as
// serialNumberLine needs ((?i) folds these six letters to their ASCII
// other case only).
func hasNumberColon(b []byte) bool {
	for i := bytes.IndexByte(b, ':'); i >= 0; {
		if i >= 6 {
			w := b[i-6 : i]
			if w[0]|0x20 == 'n' && w[1]|0x20 == 'u' && w[2]|0x20 == 'm' && w[3]|0x20 == 'b' && w[4]|0x20 == 'e' && w[5]|0x20 == 'r' {
				return true
			}
		}
		j := bytes.IndexByte(b[i+1:], ':')
		if j < 0 {
			return false
		}
		i += 1 + j
	}
	return false
}

// jsonWWNHex computes the hex value of a smartctl JSON WWN or EUI-64
// object, the decimal id it holds, and the id in hex.
func jsonWWNHex(obj string) (hex, id, idHex string) {
	f := map[string]uint64{}
	raw := map[string]string{}
	for _, m := range jsonField.FindAllStringSubmatch(obj, -1) {
		n, err := strconv.ParseUint(m[2], 10, 64)
		if err != nil {
			return "", "", ""
		}
		f[m[1]], raw[m[1]] = n, m[2]
	}
	switch {
	case strings.HasPrefix(obj, `"wwn"`) && raw["id"] != "":
		// NAA (4 bits), IEEE OUI (24 bits), vendor id (36 bits): ATA IDENTIFY words 108-111.
		idHex = fmt.Sprintf("%09x", f["id"])
		return fmt.Sprintf("%x%06x%s", f["naa"], f["oui"], idHex), raw["id"], idHex
	case strings.HasPrefix(obj, `"eui64"`) && raw["ext_id"] != "":
		// OUI (24 bits), extension id (40 bits): NVMe Identify Namespace EUI64.
		idHex = fmt.Sprintf("%010x", f["ext_id"])
		return fmt.Sprintf("%06x%s", f["oui"], idHex), raw["ext_id"], idHex
	}
	return "", "", ""
}

// findMACs returns every 48-bit MAC address written with colons or dashes
// in b that is not part of a longer run of hex pairs (an EUI-64, a SAS
// address in a dump).
func findMACs(b []byte) []string {
	var out []string
	// A MAC's first separator is its third byte: the scan jumps from one
	// ':' or '-' to the next (each found by IndexByte, kept until passed)
	// instead of trying every byte of a snapshot's few megabytes.
	colon, dash := -1, -1
	for i := 0; i+17 <= len(b); i++ {
		if colon < i+2 {
			colon = indexByteFrom(b, i+2, ':')
		}
		if dash < i+2 {
			dash = indexByteFrom(b, i+2, '-')
		}
		if i = min(colon, dash) - 2; i+17 > len(b) {
			break
		}
		if !isMACAt(b, i) {
			continue
		}
		if i > 0 && (isHex(string(b[i-1:i])) || b[i-1] == ':' || b[i-1] == '-') {
			continue
		}
		if end := i + 17; end < len(b) && (isHex(string(b[end:end+1])) || b[end] == ':' || b[end] == '-') {
			continue
		}
		out = append(out, string(b[i:i+17]))
		i += 16
	}
	return out
}

// indexByteFrom is the index of the first c in b from from on, len(b) if
// none.
func indexByteFrom(b []byte, from int, c byte) int {
	if j := bytes.IndexByte(b[from:], c); j >= 0 {
		return from + j
	}
	return len(b)
}

// isMACAt: six hex pairs at b[i:], separated all by ':' or all by '-'.
func isMACAt(b []byte, i int) bool {
	sep := b[i+2]
	if sep != ':' && sep != '-' {
		return false
	}
	for k := 0; k < 6; k++ {
		p := i + 3*k
		if !isHex(string(b[p:p+2])) || (k < 5 && b[p+2] != sep) {
			return false
		}
	}
	return true
}

// macs takes every MAC address in b, in its canonical form (lower case,
// colons); the dash and bare forms are its aliases.
func (s *secrets) macs(b []byte) {
	for _, m := range findMACs(b) {
		canon := strings.ToLower(strings.ReplaceAll(m, "-", ":"))
		if canon == "00:00:00:00:00:00" || canon == "ff:ff:ff:ff:ff:ff" {
			continue
		}
		s.kind[canon] = "mac"
		for _, v := range []string{strings.ReplaceAll(canon, ":", "-"), strings.ReplaceAll(canon, ":", "")} {
			s.alias[v] = canon
			s.alias[strings.ToUpper(v)] = canon
		}
		s.alias[strings.ToUpper(canon)] = canon
	}
}
