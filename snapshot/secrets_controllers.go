package snapshot

import (
	"bytes"
	"strings"

	"github.com/diskdoctor/diskdoctor/probes/raidctl"
)

// controllerCLIs are the hardware-RAID controllers' own programs (issue
// #23): HPE Smart Array (ssacli and its older names), Broadcom/LSI
// MegaRAID (storcli, Dell's perccli build of it, and the older MegaCli).
// Their outputs name the controller, its cache module, the host and every
// drive behind it by serial number and WWN, in key/value forms of their
// own that the generic expressions of fromText do not know.
var controllerCLIs = map[string]bool{
	"ssacli": true, "hpssacli": true, "hpacucli": true,
	"storcli64": true, "storcli": true, "perccli64": true, "perccli": true,
	"MegaCli64": true, "MegaCli": true, "megacli": true,
}

// controllerCommand says whether argv is a controller's CLI, or smartctl
// reading a drive through a controller (-d megaraid,N or -d cciss,N,
// smartctl(8)), whose SAS addresses fromText does not know either.
func controllerCommand(argv []string) bool {
	if len(argv) == 0 {
		return false
	}
	if controllerCLIs[argv[0]] {
		return true
	}
	if argv[0] != "smartctl" {
		return false
	}
	for _, a := range argv[1:] {
		// The type is -d's value, as its own word or joined to the flag
		// (-dmegaraid,0, --device=megaraid,0); sat+megaraid,N passes
		// through the same controller.
		if strings.Contains(a, "megaraid,") || strings.Contains(a, "cciss,") {
			return true
		}
	}
	return false
}

// controllerKind is the kind of secret a controller output's key names,
// "" for none. key is lower case, '_' and runs of spaces made one space,
// and a trailing "(N)" (MegaCli's "SAS Address(0)") dropped.
func controllerKind(key string) string {
	switch {
	case strings.HasSuffix(key, "serial number"), strings.HasSuffix(key, "serial no"),
		strings.HasSuffix(key, "serial"), key == "sn":
		// ssacli: Serial Number, Cache Serial Number, Host Serial Number;
		// storcli JSON: "Serial Number", a drive's "SN"; MegaCli: Serial No.
		return "serial"
	case key == "wwn", key == "wwid", strings.HasSuffix(key, "sas address"),
		key == "unique identifier", key == "drive unique id", key == "scsi naa id",
		key == "logical unit id":
		// ssacli: WWID, Unique Identifier (a logical drive's NAA id, the
		// host's wwid of it), SAS Address, Drive Unique ID; storcli: WWN,
		// "SAS Address", "SAS address" in a drive's port information, "SCSI
		// NAA Id" of a virtual drive; MegaCli: WWN, SAS Address(N);
		// smartctl through a controller: "SAS address =", "attached SAS
		// address =", "Logical Unit id:", "sas_address" in its JSON.
		return "wwn"
	}
	return ""
}

// normKey is a key as controllerKind takes it.
func normKey(k string) string {
	k = strings.ToLower(strings.TrimSpace(k))
	if i := strings.LastIndexByte(k, '('); i > 0 && strings.HasSuffix(k, ")") {
		k = strings.TrimSpace(k[:i])
	}
	return strings.Join(strings.Fields(strings.ReplaceAll(k, "_", " ")), " ")
}

// fromController takes the serials and WWNs of a controller command's
// output, line by line: "Key: value" (ssacli, MegaCli, smartctl text),
// "Key = value" (smartctl's SAS port text) and "Key" : "value" (storcli's
// and smartctl's JSON, any number of pairs a line). Only these
// outputs are read, and each once: they are a few per controller, not per
// file of the recording.
func (s *secrets) fromController(b []byte) {
	for len(b) > 0 {
		line := b
		if i := bytes.IndexByte(b, '\n'); i >= 0 {
			line, b = b[:i], b[i+1:]
		} else {
			b = nil
		}
		// A line without a separator (a brace, a blank line, a heading)
		// holds no pair: no string made of it.
		if bytes.ContainsAny(line, ":=") {
			s.controllerLine(string(bytes.TrimSpace(line)))
		}
	}
}

// controllerLine takes the secrets of one trimmed line: its JSON pairs,
// or its text pair.
func (s *secrets) controllerLine(line string) {
	if strings.IndexByte(line, '"') >= 0 {
		for rest := line; rest != ""; {
			var k, v string
			var ok bool
			if k, v, rest, ok = jsonPair(rest); ok {
				if kind := controllerKind(normKey(k)); kind != "" {
					s.add(v, kind)
				}
			}
		}
	}
	if line == "" || strings.IndexByte(`"{}[],`, line[0]) >= 0 {
		return // JSON, read above
	}
	i := strings.IndexAny(line, ":=")
	if i <= 0 {
		return
	}
	key, v := normKey(line[:i]), line[i+1:]
	if key == "inquiry data" {
		return // the drive's serial inside it is the MegaCli parser's (fromMegaCli)
	}
	if kind := controllerKind(key); kind != "" {
		s.add(v, kind)
	}
}

// jsonPair reads the first string of line and, when `: "value"` follows
// it, the value; rest is what follows what it read (a key without a
// string value, a value, an array's element), "" when no string is left.
// A string with an escape is not a key or a value taken: no serial or WWN
// has one.
func jsonPair(line string) (key, value, rest string, ok bool) {
	i := strings.IndexByte(line, '"')
	if i < 0 {
		return "", "", "", false
	}
	k, after, found := strings.Cut(line[i+1:], `"`)
	if !found {
		return "", "", "", false
	}
	next := strings.TrimLeft(after, " \t")
	if !strings.HasPrefix(next, ":") {
		return "", "", after, false
	}
	next = strings.TrimLeft(next[1:], " \t")
	if !strings.HasPrefix(next, `"`) {
		return "", "", next, false
	}
	v, rest, found := strings.Cut(next[1:], `"`)
	if !found {
		return "", "", "", false
	}
	ok = !strings.Contains(k, `\`) && !strings.Contains(v, `\`)
	return k, v, rest, ok
}

// fromMegaCli takes the drives' serial numbers from MegaCli's drive
// lists, where they sit inside "Inquiry Data" (INQUIRY or IDENTIFY
// strings run together): the parser that reads them for the doctor knows
// their columns.
func (s *secrets) fromMegaCli(b []byte) {
	inv, err := raidctl.ParseMegaCli(nil, nil, b)
	if err != nil {
		return
	}
	for _, c := range inv.Controllers {
		for _, d := range c.Drives {
			if d.Serial.Set {
				s.add(d.Serial.Text, "serial")
			}
		}
	}
}
