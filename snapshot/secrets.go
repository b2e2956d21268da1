package snapshot

import (
	"bytes"
	"slices"
	"sort"
	"strings"
	"sync"
)

// hostNotSecret are host names that identify nothing (and would, replaced
// everywhere, eat ordinary words).
var hostNotSecret = map[string]bool{"localhost": true, "localhost.localdomain": true, "(none)": true, "localdomain": true}

// secrets are the identifying values of a recording.
type secrets struct {
	kind  map[string]string // value -> serial, wwn or mac
	alias map[string]string // another spelling -> its value (same token)
	// jsonIDs: the decimal id of a JSON WWN or EUI-64 -> its hex value.
	jsonIDs       map[string]string
	hosts         []string
	hostFiles     []*Entry
	hostNames     []string // named by log lines (secrets_log.go)
	identityFiles []*Entry // sysfs attributes replaced whole
}

func (s *secrets) add(v, kind string) {
	v = strings.TrimSpace(v)
	if kind == "wwn" {
		for _, part := range wwnParts(v) {
			if len(part) < 4 || placeholder(part) { // an unset EUI: all zeros
				continue
			}
			if !isHex(part) {
				s.setKind(part, kind)
				continue
			}
			// Hex is printed in either case (udev lower, hdparm and
			// some HBAs upper): one value, one token.
			lower := strings.ToLower(part)
			s.setKind(lower, kind)
			for _, a := range []string{part, strings.ToUpper(part)} {
				if a != lower {
					s.alias[a] = lower
				}
			}
		}
		return
	}
	if len(v) >= 4 && !strings.ContainsAny(v, "\n\x00") && !placeholder(v) {
		s.setKind(v, kind)
	}
}

// placeholderValues are what firmware writes where a serial was never set:
// they identify nothing, and replacing them everywhere would rewrite other
// DMI fields that hold the same words ("Default string" as a product
// version).
var placeholderValues = map[string]bool{
	"to be filled by o.e.m.": true, "default string": true, "system serial number": true,
	"chassis serial number": true, "base board serial number": true, "serial number": true,
	"not specified": true, "not applicable": true, "not available": true, "none": true,
	"unknown": true, "n/a": true, "empty": true, "invalid": true, "oem": true,
	"0123456789": true, "123456789": true, "1234567890": true,
	"03000200-0400-0500-0006-000700080009": true, // a common unset product_uuid
}

func placeholder(v string) bool {
	if placeholderValues[strings.ToLower(v)] {
		return true
	}
	// One character repeated (00000000, FFFFFFFF, "        "), dashes aside.
	v = strings.ReplaceAll(v, "-", "")
	return v != "" && strings.Count(v, v[:1]) == len(v)
}

func newSecrets() *secrets {
	return &secrets{kind: map[string]string{}, alias: map[string]string{}, jsonIDs: map[string]string{}}
}

// kindRank orders the kinds a value can be found as: one value seen as
// two (an HP logical volume's udev serial is its WWN, 3600508b1…) gets the
// higher one's token, whatever order the files were read in.
var kindRank = map[string]int{"ip": 0, "serial": 1, "wwn": 2, "mac": 3}

// setKind records v's kind, keeping the higher-ranked one it already has.
func (s *secrets) setKind(v, kind string) {
	if old, ok := s.kind[v]; ok && kindRank[old] > kindRank[kind] {
		return
	}
	s.kind[v] = kind
}

// merge adds what o found to what s found; a value both found keeps the
// higher-ranked kind (setKind).
func (s *secrets) merge(o *secrets) {
	for k, v := range o.kind {
		s.setKind(k, v)
	}
	for k, v := range o.alias {
		s.alias[k] = v
	}
	for k, v := range o.jsonIDs {
		s.jsonIDs[k] = v
	}
	s.hostFiles = append(s.hostFiles, o.hostFiles...)
	s.hostNames = append(s.hostNames, o.hostNames...)
	s.identityFiles = append(s.identityFiles, o.identityFiles...)
}

// findSecrets collects what identifies the machine and its devices. The
// entries are searched in chunks at once and what each chunk found is
// merged in order; each search only adds, so the result is the one pass's.
func (rec *Recording) findSecrets() *secrets {
	chunks := chunksOf(len(rec.Entries))
	contents := make([]*secrets, len(chunks))
	names := make([]*secrets, len(chunks))
	osIDs := make([]map[string]bool, len(chunks))
	commands := newSecrets()
	var wg sync.WaitGroup
	for k, ch := range chunks {
		wg.Add(1)
		go func() {
			defer wg.Done()
			contents[k], osIDs[k] = newSecrets(), map[string]bool{}
			contents[k].fromEntries(rec.Entries[ch[0]:ch[1]], osIDs[k])
			names[k] = newSecrets()
			for _, e := range rec.Entries[ch[0]:ch[1]] {
				names[k].macs([]byte(e.Path))
				names[k].macs([]byte(e.Target))
			}
		}()
	}
	for _, c := range rec.Commands {
		commands.fromText(c.Stdout)
		commands.fromText(c.Stderr)
		if kernelLogCommand(c.Argv) {
			commands.ipAddrs(c.Stdout)
		}
		// The controllers' own forms only in their outputs: a few
		// commands, where a pass over every file would cost the
		// snapshot's budget (issue #22).
		if controllerCommand(c.Argv) {
			commands.fromController(c.Stdout)
			if slices.Contains(c.Argv, "-PDList") {
				commands.fromMegaCli(c.Stdout)
			}
		}
	}
	wg.Wait()
	s, words := newSecrets(), map[string]bool{}
	for k := range chunks {
		s.merge(contents[k])
		for w := range osIDs[k] {
			words[w] = true
		}
	}
	s.merge(commands)
	for k := range chunks {
		s.merge(names[k])
	}
	for _, e := range s.hostFiles {
		s.addHost(string(bytes.TrimSpace(e.Data)), words)
	}
	for _, h := range s.hostNames {
		s.addHost(h, words)
	}
	return s
}

func isHex(v string) bool {
	return v != "" && strings.Trim(v, "0123456789abcdefABCDEF") == ""
}

// addHost takes the host name, its short form and its domain-less parts,
// unless it is a name that identifies nothing (localhost, the
// distribution's own name as installers default to).
func (s *secrets) addHost(h string, osIDs map[string]bool) {
	for _, v := range []string{h, strings.SplitN(h, ".", 2)[0]} {
		if len(v) < 3 || hostNotSecret[strings.ToLower(v)] || osIDs[strings.ToLower(v)] || strings.ContainsAny(v, " \t\n\x00/") {
			continue
		}
		if !contains(s.hosts, v) {
			s.hosts = append(s.hosts, v)
		}
	}
	// Longest first: the FQDN before its short name.
	sort.Slice(s.hosts, func(i, j int) bool { return len(s.hosts[i]) > len(s.hosts[j]) })
}

func contains(list []string, v string) bool {
	for _, x := range list {
		if x == v {
			return true
		}
	}
	return false
}

// wwnParts splits a WWN or EUI as udev and sysfs print it (0x5002538e40a1b2c3,
// naa.5002..., eui.0025..., 0x6005...0x1234 with its vendor extension) into
// its hex values.
func wwnParts(v string) []string {
	for _, p := range []string{"naa.", "eui.", "nvme.", "wwn-"} {
		v = strings.TrimPrefix(v, p)
	}
	var out []string
	for _, part := range strings.Split(v, "0x") {
		if part = strings.TrimSpace(part); part != "" {
			out = append(out, part)
		}
	}
	return out
}
