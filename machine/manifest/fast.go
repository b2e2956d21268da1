package manifest

import (
	"strconv"
	"strings"
)

// fastManifest reads the one shape a manifest is written in (Write, the
// fixtures) without yaml.v3's decoder, whose node per scalar is the
// largest cost of opening a recorded machine of many disks, and the
// kernel-log, SMART and write-cache checks wait for it (the one fast
// reader that #22's review kept: without it the 1,000-disk check misses
// its budget, docs/performance.md). ok is false on anything outside that
// shape, which then goes to yaml.v3; when ok, the entries are what yaml.v3
// would decode (FuzzManifestFastPathIsYAMLs).
func fastManifest(b []byte) ([]Entry, bool) {
	s := string(b) // one copy: every value is a substring of it
	entries := make([]Entry, 0, strings.Count(s, "\n- ")+1)
	// Every argv is a window on one array instead of a slice of its own.
	words := make([]string, 0, strings.Count(s, ",")+cap(entries))
	var seen uint8 // the keys the current entry has: yaml.v3 refuses a repeated one
	for s != "" {
		var line string
		line, s, _ = strings.Cut(s, "\n")
		switch {
		case line == "":
		case line[0] == '#':
			// A comment ends at the line's end; only printable ASCII, so
			// that no byte of it can be a line break or invalid to yaml.v3.
			for i := 1; i < len(line); i++ {
				if line[i] < 0x20 || line[i] > 0x7e {
					return nil, false
				}
			}
		case strings.HasPrefix(line, "- argv: ["):
			n, ok := len(words), false
			if words, ok = flowWords(words, line[len("- argv: ["):]); !ok {
				return nil, false
			}
			entries = append(entries, Entry{Argv: words[n:len(words):len(words)]})
			seen = 0
		case strings.HasPrefix(line, "  ") && len(entries) > 0:
			key, v, found := strings.Cut(line[2:], ": ")
			e := &entries[len(entries)-1]
			var bit uint8
			var ok bool
			switch key {
			case "stdout":
				bit = 1
				e.Stdout, ok = manifestScalar(v)
			case "stderr":
				bit = 2
				e.Stderr, ok = manifestScalar(v)
			case "exit":
				bit = 4
				e.Exit, ok = manifestInt(v)
			case "timeout":
				bit = 8
				e.Timeout, ok = manifestBool(v)
			case "missing":
				bit = 16
				e.Missing, ok = manifestBool(v)
			}
			if !found || !ok || bit == 0 || seen&bit != 0 {
				return nil, false
			}
			seen |= bit
		default:
			return nil, false
		}
	}
	// No entry: "[]", an empty file, only comments: yaml.v3 tells those
	// apart (nil or empty), and they cost it nothing.
	return entries, len(entries) > 0
}

// flowWords appends the items of the rest of a one-line flow sequence
// "a, "b c", d]" to argv: items separated by exactly ", ", at least one.
func flowWords(argv []string, s string) ([]string, bool) {
	body, ok := strings.CutSuffix(s, "]")
	if !ok || body == "" {
		return nil, false
	}
	for {
		end := len(body)
		if body[0] == '"' {
			if q := strings.IndexByte(body[1:], '"'); q >= 0 {
				end = q + 2
			}
		} else if c := strings.IndexByte(body, ','); c >= 0 {
			end = c
		}
		v, ok := manifestScalar(body[:end])
		if !ok {
			return nil, false
		}
		argv = append(argv, v)
		if end == len(body) {
			return argv, true
		}
		if body, ok = strings.CutPrefix(body[end:], ", "); !ok || body == "" {
			return nil, false
		}
	}
}

// manifestScalar is a plain word, or a double-quoted string without an
// escape or a character that would need one: both mean their own text.
func manifestScalar(v string) (string, bool) {
	if len(v) >= 2 && v[0] == '"' && v[len(v)-1] == '"' {
		v = v[1 : len(v)-1]
		for i := 0; i < len(v); i++ {
			if v[i] < 0x20 || v[i] > 0x7e || v[i] == '"' || v[i] == '\\' {
				return "", false
			}
		}
		return v, true
	}
	return v, readsPlain(v)
}

// readsPlain answers the reader's question: does yaml.v3 read this
// unquoted scalar back as the same string? It accepts what plainWord (the
// writer's question: may this be written unquoted?) accepts, and also '='
// inside a word and "--" before an option's name (--output-format=json),
// which a hand-written fixture holds unquoted.
func readsPlain(v string) bool {
	if v == "" {
		return false
	}
	for i := 0; i < len(v); i++ {
		c := v[i]
		if !(isLetter(c) || c >= '0' && c <= '9' || c == '/' || c == '_' || c == '.' || c == '-' || c == '=') {
			return false
		}
	}
	switch c := v[0]; {
	case isLetter(c) || c == '/':
	case c == '-':
		if o := strings.TrimPrefix(v[1:], "-"); o == "" || !isLetter(o[0]) {
			return false // "-", "-1", "-.inf"
		}
	case c >= '0' && c <= '9':
		// 001-dmesg.out: digits, a dash, and a letter after it somewhere
		// (not a number, a date or a time).
		i := strings.IndexByte(v, '-')
		if i < 1 || strings.TrimLeft(v[:i], "0123456789") != "" || !strings.ContainsAny(v[i:], "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ") {
			return false
		}
	default:
		return false
	}
	if len(v) <= 5 {
		// YAML 1.1's booleans and null, in any case.
		for _, w := range [...]string{"y", "n", "yes", "no", "on", "off", "true", "false", "null"} {
			if strings.EqualFold(v, w) {
				return false
			}
		}
	}
	return true
}

func isLetter(c byte) bool { return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' }

// manifestBool is a bool the way the recorder writes it; yaml.v3 also takes
// True, yes, on... into a bool field: those go to it.
func manifestBool(v string) (bool, bool) {
	return v == "true", v == "true" || v == "false"
}

// manifestInt is a decimal exit status without a sign other than '-' or a
// leading zero (yaml.v3 reads 010 as octal).
func manifestInt(v string) (int, bool) {
	d := strings.TrimPrefix(v, "-")
	if d == "" || d[0] == '0' && (len(d) > 1 || d != v) || strings.Trim(d, "0123456789") != "" {
		return 0, false
	}
	n, err := strconv.Atoi(v)
	return n, err == nil
}
