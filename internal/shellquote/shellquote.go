// Package shellquote turns one argument into one shell word, for the
// commands diskdoctor prints for people to paste (remediation, bench's
// recipes, hints). The doctor itself never runs a shell: it executes argv.
//
// A word made only of characters that no POSIX shell treats specially
// (letters, digits and "-_=./:,%+@") is printed as it is. Anything else is
// put in single quotes, inside which sh and bash expand nothing (POSIX
// XCU 2.2.2), with each ' written as '\”. A value holding a control
// character or bytes that are not UTF-8 is written in ANSI-C quoting,
// $'…' with \xHH escapes (bash, zsh, ksh93, and POSIX.1-2024 XCU 2.2.4),
// so that what reaches a terminal has no control byte and still pastes as
// the same bytes.
package shellquote

import (
	"strings"
	"unicode/utf8"
)

// Quote returns s as one shell word with no expansion.
func Quote(s string) string {
	if s != "" && strings.IndexFunc(s, func(r rune) bool { return !safe(r) }) < 0 {
		return s
	}
	if !needsANSIC(s) {
		return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
	}
	return ansiC(s)
}

// Join quotes each argument and joins them with spaces.
func Join(argv []string) string {
	out := make([]string, len(argv))
	for i, a := range argv {
		out[i] = Quote(a)
	}
	return strings.Join(out, " ")
}

func safe(r rune) bool {
	return r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || strings.ContainsRune("-_=./:,%+@", r)
}

func needsANSIC(s string) bool {
	if !utf8.ValidString(s) {
		return true
	}
	for _, r := range s {
		if r < 0x20 || r == 0x7f || (r >= 0x80 && r < 0xa0) {
			return true
		}
	}
	return false
}

func ansiC(s string) string {
	const hex = "0123456789abcdef"
	var b strings.Builder
	b.WriteString("$'")
	for i := 0; i < len(s); {
		r, n := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && n <= 1, r < 0x20, r == 0x7f, r >= 0x80 && r < 0xa0:
			for _, c := range []byte(s[i : i+n]) {
				b.WriteString(`\x`)
				b.WriteByte(hex[c>>4])
				b.WriteByte(hex[c&15])
			}
		case r == '\'' || r == '\\':
			b.WriteByte('\\')
			b.WriteRune(r)
		default:
			b.WriteString(s[i : i+n])
		}
		i += n
	}
	b.WriteByte('\'')
	return b.String()
}
