package snapshot

import (
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
	for _, m := range serialNumberLine.FindAllSubmatch(b, -1) {
		s.add(strings.TrimRight(string(m[1]), `",`), "serial")
	}
	for _, m := range jsonSerial.FindAllSubmatch(b, -1) {
		s.add(string(m[1]), "serial")
	}
	for _, m := range jsonLUID.FindAllSubmatch(b, -1) {
		s.add(string(m[1]), "wwn")
	}
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
	s.macs(b)
	s.logHosts(b)
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

// macAddr is a 48-bit MAC address written with colons or dashes, at the
// start of the text or after a byte that is not a hex digit, colon or
// dash (RE2 has no look-behind: that byte is part of the match).
var macAddr = regexp.MustCompile(`(?:^|[^0-9A-Fa-f:-])([0-9A-Fa-f]{2}(?::[0-9A-Fa-f]{2}){5}|[0-9A-Fa-f]{2}(?:-[0-9A-Fa-f]{2}){5})`)

// findMACs returns every MAC address in b that is not part of a longer
// run of hex pairs (an EUI-64, a SAS address in a dump): neither a hex
// digit, a colon nor a dash on either side of it.
func findMACs(b []byte) []string {
	var out []string
	for _, m := range macAddr.FindAllSubmatchIndex(b, -1) {
		if end := m[3]; end < len(b) && strings.IndexByte("0123456789abcdefABCDEF:-", b[end]) >= 0 {
			continue
		}
		out = append(out, string(b[m[2]:m[3]]))
	}
	return out
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
