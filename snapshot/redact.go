package snapshot

import (
	"bytes"
	"fmt"
	"path"
	"regexp"
	"runtime"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"
)

// identityFiles are sysfs attributes whose whole content identifies a
// device or a machine.
var identityFiles = map[string]string{
	"serial": "serial", "wwid": "wwn", "eui": "wwn", "nguid": "wwn", "uuid": "wwn", "wwn": "wwn",
	"vpd_pg80": "serial", "vpd_pg83": "wwn",
	"product_serial": "serial", "board_serial": "serial", "chassis_serial": "serial", "product_uuid": "serial",
}

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

const redactedHost = "redacted-host"

// hostNotSecret are host names that identify nothing (and would, replaced
// everywhere, eat ordinary words).
var hostNotSecret = map[string]bool{"localhost": true, "localhost.localdomain": true, "(none)": true, "localdomain": true}

// redact replaces each distinct serial number, WWN and MAC address with a
// stable token and the host name with "redacted-host", in every file
// content, path name, link target, argv and command output, so that links
// and by-id names still agree and resolve.
func (rec *Recording) redact() {
	s := rec.findSecrets()
	t := newTokenizer(s)
	t.redactIdentityFiles(s.identityFiles)
	count := t.count
	for _, e := range s.hostFiles {
		if len(bytes.TrimSpace(e.Data)) > 0 {
			e.Data = []byte(redactedHost + "\n")
			count["host"] = 1
		}
	}
	rec.rewrite(t.apply)
	rec.Redacted = true
	rec.RedactedValues = count
}

// secrets are the identifying values of a recording.
type secrets struct {
	kind  map[string]string // value -> serial, wwn or mac
	alias map[string]string // another spelling -> its value (same token)
	// jsonIDs: the decimal id of a JSON WWN or EUI-64 -> its hex value.
	jsonIDs       map[string]string
	hosts         []string
	hostFiles     []*Entry
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
				s.kind[part] = kind
				continue
			}
			// Hex is printed in either case (udev lower, hdparm and
			// some HBAs upper): one value, one token.
			lower := strings.ToLower(part)
			s.kind[lower] = kind
			for _, a := range []string{part, strings.ToUpper(part)} {
				if a != lower {
					s.alias[a] = lower
				}
			}
		}
		return
	}
	if len(v) >= 4 && !strings.ContainsAny(v, "\n\x00") && !placeholder(v) {
		s.kind[v] = kind
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

// merge adds what o found after what s found: a value both found takes
// o's kind, as one pass over s's inputs and then o's would give it.
func (s *secrets) merge(o *secrets) {
	for k, v := range o.kind {
		s.kind[k] = v
	}
	for k, v := range o.alias {
		s.alias[k] = v
	}
	for k, v := range o.jsonIDs {
		s.jsonIDs[k] = v
	}
	s.hostFiles = append(s.hostFiles, o.hostFiles...)
	s.identityFiles = append(s.identityFiles, o.identityFiles...)
}

// findSecrets collects what identifies the machine and its devices. The
// entries are searched in chunks at once (a 1,000-disk machine's snapshot
// holds 40,000) and what each chunk found is merged in order; each search
// only adds, so the result is the one pass's.
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
	return s
}

// chunksOf splits n items into contiguous [lo, hi) ranges, one per CPU the
// process may use (at most 8), none of fewer than 512 items.
func chunksOf(n int) [][2]int {
	return chunksN(n, min(runtime.GOMAXPROCS(0), 8, max(1, n/512)))
}

// chunksN splits n items into k contiguous [lo, hi) ranges (fewer when n
// is less than k, and one when n is 0).
func chunksN(n, k int) [][2]int {
	k = max(1, min(k, n))
	out := make([][2]int, 0, k)
	for i := range k {
		out = append(out, [2]int{i * n / k, (i + 1) * n / k})
	}
	return out
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
		// has ID_SERIAL in it, and neither): the expressions cost tens of
		// microseconds a file.
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

func isHex(v string) bool {
	for i := 0; i < len(v); i++ {
		if c := v[i] | 0x20; !(c >= '0' && c <= '9' || c >= 'a' && c <= 'f') {
			return false
		}
	}
	return v != ""
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

// tokenizer replaces secrets with their tokens.
type tokenizer struct {
	tokenOf map[string]string // value or alias -> token
	count   map[string]int    // distinct values by kind
	long    *strings.Replacer // values of 8 characters or more, anywhere
	starts  []uint64          // a bit per hash of the first 8 bytes of each of them
	short   []repl            // shorter ones, where they stand alone
	jsonIDs map[string]string // decimal JSON id -> its number token
	hosts   []string
}

type repl struct{ from, to string }

// newTokenizer numbers each distinct value per kind in sorted order of the
// values (SERIAL0001, WWN0001, MAC0001), so tokens are stable.
func newTokenizer(s *secrets) *tokenizer {
	t := &tokenizer{tokenOf: map[string]string{}, count: map[string]int{}, jsonIDs: map[string]string{}, hosts: s.hosts}
	values := make([]string, 0, len(s.kind))
	for v := range s.kind {
		values = append(values, v)
	}
	sort.Strings(values)
	for _, v := range values {
		kind := s.kind[v]
		t.count[kind]++
		t.tokenOf[v] = fmt.Sprintf("%s%04d", strings.ToUpper(kind), t.count[kind])
	}
	for a, v := range s.alias {
		if tok, ok := t.tokenOf[v]; ok {
			if _, own := t.tokenOf[a]; !own {
				t.tokenOf[a] = tok
			}
		}
	}
	// A JSON id must stay a number for the parser: the token's number.
	for id, hex := range s.jsonIDs {
		if tok := t.tokenOf[hex]; tok != "" {
			t.jsonIDs[id] = strings.TrimLeft(strings.TrimPrefix(tok, "WWN"), "0")
		}
	}
	var repls []repl
	for v, tok := range t.tokenOf {
		repls = append(repls, repl{v, tok})
	}
	// Longest first, so that a value containing another is replaced whole.
	sort.Slice(repls, func(i, j int) bool {
		if len(repls[i].from) != len(repls[j].from) {
			return len(repls[i].from) > len(repls[j].from)
		}
		return repls[i].from < repls[j].from
	})
	var long []string
	for _, r := range repls {
		if len(r.from) >= 8 {
			long = append(long, r.from, r.to)
		} else {
			t.short = append(t.short, r)
		}
	}
	t.long = strings.NewReplacer(long...)
	t.starts = make([]uint64, 1<<startBits/64)
	for i := 0; i < len(long); i += 2 {
		h := startHash(long[i])
		t.starts[h/64] |= 1 << (h % 64)
	}
	return t
}

// apply replaces every secret in s.
func (t *tokenizer) apply(s string) string {
	if len(t.jsonIDs) > 0 && strings.Contains(s, `"`) {
		s = jsonWWN.ReplaceAllStringFunc(s, func(obj string) string {
			return jsonField.ReplaceAllStringFunc(obj, func(f string) string {
				m := jsonField.FindStringSubmatch(f)
				if n, ok := t.jsonIDs[m[2]]; ok && (m[1] == "id" || m[1] == "ext_id") {
					return strings.Replace(f, m[2], n, 1)
				}
				return f
			})
		})
	}
	if t.mayHoldLong(s) {
		s = t.long.Replace(s)
	}
	for _, r := range t.short {
		if strings.Contains(s, r.from) {
			s = replaceSecret(s, r.from, r.to)
		}
	}
	for _, h := range t.hosts {
		if strings.Contains(s, h) {
			s = replaceWord(s, h, redactedHost)
		}
	}
	return s
}

// startBits sizes the filter of mayHoldLong: 2^24 bits (2 MiB) hold the
// starts of a 1,000-disk machine's 9,000 values and spellings with one
// bit in 2,000 set.
const startBits = 24

// startHash hashes the first 8 bytes of s (at least 8 long) to startBits
// bits.
func startHash(s string) uint64 {
	x := uint64(s[0]) | uint64(s[1])<<8 | uint64(s[2])<<16 | uint64(s[3])<<24 |
		uint64(s[4])<<32 | uint64(s[5])<<40 | uint64(s[6])<<48 | uint64(s[7])<<56
	return (x * 0x9E3779B97F4A7C15) >> (64 - startBits)
}

// mayHoldLong reports whether a value of 8 characters or more may start
// somewhere in s: false when none of s's 8-byte windows hashes to a value's
// start. Most of a recording (sysfs values, paths) holds none, and the
// Replacer's own search costs some 10 ns a byte.
func (t *tokenizer) mayHoldLong(s string) bool {
	for i := 0; i+8 <= len(s); i++ {
		h := startHash(s[i:])
		if t.starts[h/64]&(1<<(h%64)) != 0 {
			return true
		}
	}
	return false
}

// redactIdentityFiles replaces a sysfs identity attribute whole: with its
// token, or REDACTED when it holds no token (binary, or unknown parts).
func (t *tokenizer) redactIdentityFiles(es []*Entry) {
	for _, e := range es {
		v := strings.TrimSpace(string(e.Data))
		tok := t.tokenOf[v]
		if tok == "" {
			tok = t.apply(v)
		}
		if tok == v || bytes.IndexByte(e.Data, 0) >= 0 {
			tok = "REDACTED"
		}
		e.Data = []byte(tok + "\n")
	}
}

// rewrite applies f (which must be safe for concurrent use) to every
// path, link target, content, argv and output, the entries in chunks at
// once. Two paths that become one (cannot happen with distinct tokens, but
// a hostile recording could try) keep the first.
func (rec *Recording) rewrite(f func(string) string) {
	fb := func(b []byte) []byte {
		if len(b) == 0 {
			return b
		}
		s := string(b)
		if r := f(s); r != s {
			return []byte(r)
		}
		return b // most contents hold nothing to replace: no second copy
	}
	type rewritten struct {
		path, target string
		data         []byte
	}
	res := make([]rewritten, len(rec.Entries))
	var wg sync.WaitGroup
	for _, ch := range chunksOf(len(rec.Entries)) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := ch[0]; i < ch[1]; i++ {
				e := rec.Entries[i]
				res[i] = rewritten{f(e.Path), f(e.Target), fb(e.Data)}
			}
		}()
	}
	wg.Wait()
	drop := collisions(rec.Entries, func(i int) string { return res[i].path })
	kept := make([]*Entry, 0, len(rec.Entries))
	var moved []*Entry // renamed: few (by-id links, names with a MAC)
	for i, e := range rec.Entries {
		renamed := res[i].path != e.Path
		e.Path = res[i].path
		if drop[i] {
			continue
		}
		e.Target, e.Data = res[i].target, res[i].data
		if renamed {
			moved = append(moved, e)
		} else {
			kept = append(kept, e)
		}
	}
	rec.Entries = mergeByPath(kept, moved)
	for i := range rec.Commands {
		c := &rec.Commands[i]
		for j := range c.Argv {
			c.Argv[j] = f(c.Argv[j])
		}
		c.Stdout, c.Stderr = fb(c.Stdout), fb(c.Stderr)
	}
}

func byPath(a, b *Entry) int { return strings.Compare(a.Path, b.Path) }

// collisions marks the entries whose new path (to(i)) an earlier entry
// takes too. Entries that keep their path are distinct, so a collision
// involves an entry renamed: each of those few is looked up among the
// others (by binary search when the entries are sorted, as a Recording's
// are) instead of every path going into a set (60,000 on a 1,000-disk
// machine, a single core's work after the parallel rewrite).
func collisions(es []*Entry, to func(i int) string) map[int]bool {
	drop := map[int]bool{}
	first := map[string]int{} // renamed entries' new paths: the first to take each
	var renamed []int
	for i, e := range es {
		if p := to(i); p != e.Path {
			renamed = append(renamed, i)
			if _, ok := first[p]; !ok {
				first[p] = i
			}
		}
	}
	if len(renamed) == 0 {
		return drop
	}
	if !slices.IsSortedFunc(es, byPath) {
		// Built by hand: every path into a set, in order.
		seen := make(map[string]bool, len(es))
		for i := range es {
			p := to(i)
			drop[i] = seen[p]
			seen[p] = true
		}
		return drop
	}
	for _, i := range renamed {
		p := to(i)
		if first[p] != i {
			drop[i] = true // another renamed entry before it took p
			continue
		}
		// An entry that keeps p as its path.
		j, ok := slices.BinarySearchFunc(es, p, func(e *Entry, p string) int { return strings.Compare(e.Path, p) })
		if !ok || to(j) != p {
			continue
		}
		if j < i {
			drop[i] = true
		} else {
			drop[j] = true
		}
	}
	return drop
}

// mergeByPath sorts the entries of kept (sorted already, as a Recording's
// are, unless built by hand) and moved by path.
func mergeByPath(kept, moved []*Entry) []*Entry {
	if !slices.IsSortedFunc(kept, byPath) {
		out := append(kept, moved...)
		slices.SortFunc(out, byPath)
		return out
	}
	slices.SortFunc(moved, byPath)
	out := make([]*Entry, 0, len(kept)+len(moved))
	for len(kept) > 0 && len(moved) > 0 {
		if byPath(kept[0], moved[0]) <= 0 {
			out, kept = append(out, kept[0]), kept[1:]
		} else {
			out, moved = append(out, moved[0]), moved[1:]
		}
	}
	return append(append(out, kept...), moved...)
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

// replaceWord replaces v where it stands alone as a name: not inside a
// longer word (letters, digits, '_'); dots and dashes separate.
func replaceWord(s, v, tok string) string {
	var b strings.Builder
	for {
		i := strings.Index(s, v)
		if i < 0 {
			b.WriteString(s)
			return b.String()
		}
		end := i + len(v)
		left := i == 0 || !(isAlnum(s[i-1]) || s[i-1] == '_')
		right := end == len(s) || !(isAlnum(s[end]) || s[end] == '_')
		b.WriteString(s[:i])
		if left && right {
			b.WriteString(tok)
		} else {
			b.WriteString(v)
		}
		s = s[end:]
	}
}

func isAlnum(c byte) bool {
	return c >= '0' && c <= '9' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z'
}

// replaceSecret replaces occurrences of v. Values of 8 characters or more are
// replaced wherever they occur (inside an NQN or a by-id name too); shorter
// ones only where they stand alone (not inside a longer word or number).
func replaceSecret(s, v, tok string) string {
	if len(v) >= 8 {
		return strings.ReplaceAll(s, v, tok)
	}
	var b strings.Builder
	for {
		i := strings.Index(s, v)
		if i < 0 {
			b.WriteString(s)
			return b.String()
		}
		end := i + len(v)
		left := i == 0 || !isAlnum(s[i-1]) || (i >= 2 && s[i-2:i] == "0x")
		right := end == len(s) || !isAlnum(s[end])
		b.WriteString(s[:i])
		if left && right {
			b.WriteString(tok)
		} else {
			b.WriteString(v)
		}
		s = s[end:]
	}
}
