package snapshot

import (
	"bytes"
	"fmt"
	"sort"
	"strings"
)

const redactedHost = "redacted-host"

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
	if len(s.hosts) > 0 || len(s.hostNames) > 0 {
		count["host"] = 1
	}
	rec.rewrite(t.apply)
	rec.Redacted = true
	rec.RedactedValues = count
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
	return redactHostLines(s)
}

// startBits sizes the filter of mayHoldLong: a bit per hash, with room
// for a large machine's values and spellings to leave most bits clear, so
// that a text holding none rarely passes.
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
// start (a Bloom filter of one hash, B. H. Bloom, CACM 13(7), 1970: no
// false negatives, TestMayHoldLongLetsEveryValueThrough). Most of a
// recording (sysfs values, paths) holds none, and without it the
// Replacer's search of every byte misses the snapshot's budget (twice the
// check's wall time, issue #22).
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

// replaceWord replaces v, a host name, where it stands alone as a name:
// not inside a longer run of letters and digits. Dots, dashes and
// underscores separate: a host name has none of the last (RFC 1123 §2.1:
// letters, digits and hyphens), so one beside an underscore is the name
// itself (a mount point /mnt/data_chunk2 of host chunk2).
func replaceWord(s, v, tok string) string {
	var b strings.Builder
	for {
		i := strings.Index(s, v)
		if i < 0 {
			b.WriteString(s)
			return b.String()
		}
		end := i + len(v)
		left := i == 0 || !isAlnum(s[i-1])
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
