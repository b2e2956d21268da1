package report

import (
	"fmt"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/mattn/go-runewidth"
)

// DefaultWidth is the width of a report that goes to a pipe or a file.
const DefaultWidth = 80

// minWidth is the narrowest width a report is laid out for; below it
// lines are still wrapped, but tables and indents stop shrinking.
const minWidth = 40

// clean makes a string that came from the examined machine (a host name,
// a model, a log line, a udev property) safe to print on a terminal:
// control characters (ESC, CR, BEL, C1) and the bidirectional overrides
// that reorder what a person sees are shown as escapes, never sent raw. A
// recorded root whose hostname is "x\033[2J\033[HREADY" cannot clear the
// screen and print a fake verdict.
func clean(s string) string {
	if !needsCleaning(s) {
		return s
	}
	var b strings.Builder
	for i, r := range s {
		switch {
		case r == utf8.RuneError && !strings.HasPrefix(s[i:], "\uFFFD"):
			fmt.Fprintf(&b, `\x%02x`, s[i]) // not UTF-8: the byte
		case r == '\t':
			b.WriteByte(' ')
		case r < 0x20 || r == 0x7f || (r >= 0x80 && r < 0xa0):
			fmt.Fprintf(&b, `\x%02x`, r)
		case isBidiControl(r):
			fmt.Fprintf(&b, `\u%04x`, r)
		default:
			b.WriteRune(r)
		}
	}
	return b.String()
}

func needsCleaning(s string) bool {
	for _, r := range s {
		if r < 0x20 || r == 0x7f || (r >= 0x80 && r < 0xa0) || r == utf8.RuneError || isBidiControl(r) {
			return true
		}
	}
	return false
}

func isBidiControl(r rune) bool {
	return r == 0x061c || r == 0x200e || r == 0x200f || (r >= 0x202a && r <= 0x202e) || (r >= 0x2066 && r <= 0x2069)
}

// cleanLines is clean for text that may hold line feeds of its own (a
// multi-line command): each line is cleaned, the line feeds kept.
func cleanLines(s string) []string {
	lines := strings.Split(s, "\n")
	for i, l := range lines {
		lines[i] = clean(l)
	}
	return lines
}

// width is the display width of plain text (no escape sequences).
func width(s string) int { return runewidth.StringWidth(s) }

// wrap breaks plain text into lines of at most w columns at spaces, the
// first line after a prefix of firstIndent columns (already printed by the
// caller), the others indented by indent spaces. A word longer than a line
// is broken only when nothing else fits (a path, a hash).
func wrap(text string, w, firstIndent, indent int) []string {
	words := strings.Fields(text)
	if len(words) == 0 {
		return []string{""}
	}
	var lines []string
	var cur strings.Builder
	avail := w - firstIndent
	curW := 0
	flush := func() {
		lines = append(lines, cur.String())
		cur.Reset()
		curW = 0
		avail = w - indent
	}
	for _, word := range words {
		ww := width(word)
		switch {
		case curW > 0 && curW+1+ww <= avail:
			cur.WriteByte(' ')
			cur.WriteString(word)
			curW += 1 + ww
			continue
		case curW > 0:
			flush()
		}
		for ww > avail && avail > 0 {
			head, tail := splitAtWidth(word, avail)
			cur.WriteString(head)
			flush()
			word, ww = tail, width(tail)
		}
		cur.WriteString(word)
		curW = ww
	}
	lines = append(lines, cur.String())
	for i := 1; i < len(lines); i++ {
		lines[i] = strings.Repeat(" ", indent) + lines[i]
	}
	return lines
}

// wrapVerbatim is wrap for text whose spacing matters (evidence: a log
// line, a command's output): every character is kept; a line is broken at
// its last space that fits (that space is dropped), else at the width. The
// first line follows a prefix of firstIndent columns that the result
// includes as spaces; the others are indented by indent.
func wrapVerbatim(text string, w, firstIndent, indent int) []string {
	var out []string
	lead := strings.Repeat(" ", firstIndent)
	avail := w - firstIndent
	for {
		if width(text) <= avail || avail <= 0 {
			return append(out, lead+text)
		}
		head, _ := splitAtWidth(text, avail)
		cut := strings.LastIndexByte(head, ' ')
		switch {
		case cut > 0:
			out = append(out, lead+head[:cut])
			text = text[cut+1:]
		default:
			out = append(out, lead+head)
			text = text[len(head):]
		}
		lead, avail = strings.Repeat(" ", indent), w-indent
	}
}

// splitAtWidth cuts s after at most w columns (at least one rune).
func splitAtWidth(s string, w int) (string, string) {
	cw := 0
	for i, r := range s {
		rw := runewidth.RuneWidth(r)
		if cw+rw > w && i > 0 {
			return s[:i], s[i:]
		}
		cw += rw
	}
	return s, ""
}

// truncate shortens plain text to at most w columns at a word boundary,
// ending in "…".
func truncate(s string, w int) string {
	if width(s) <= w {
		return s
	}
	if w < 2 {
		return "…"
	}
	head, _ := splitAtWidth(s, w-1)
	if i := strings.LastIndexByte(head, ' '); i > len(head)/2 {
		head = head[:i]
	}
	return strings.TrimRightFunc(head, func(r rune) bool { return unicode.IsSpace(r) || r == ',' || r == ';' }) + "…"
}

// wrapCommand lays a shell command out in lines of at most w columns,
// the others indented by indent, so that pasting the lines runs exactly
// the command: a break outside quotes ends the line with " \" (a line
// continuation); a break inside '…' or "…" closes the quote, continues
// the line and opens the quote again on the next ('abc '\ + 'def' is the
// one word 'abc def'). A here-document's body and its delimiter are
// printed as they are, at column 0, never indented nor broken: the body is
// a file written byte for byte (a continuation there would become part of
// the text), and <<'EOF' ends only at a line that is exactly EOF. Rules
// keep those lines short by construction (the file format's own
// continuations), so they fit the terminal without the renderer's help.
func wrapCommand(cmd string, w, firstIndent, indent int) []string {
	var out []string
	inHeredoc := ""
	for i, line := range strings.Split(cmd, "\n") {
		fi := indent
		if i == 0 {
			fi = firstIndent
		}
		switch {
		case inHeredoc != "":
			if line == inHeredoc {
				inHeredoc = ""
			}
			out = append(out, line)
			continue
		case strings.Contains(line, "<<"):
			inHeredoc = heredocDelimiter(line)
		case strings.HasPrefix(line, "#"):
			// A comment ends at the end of its line: bash does not
			// continue it after a backslash (bash(1) COMMENTS), so
			// each wrapped line is a comment of its own.
			text := strings.TrimSpace(strings.TrimLeft(line, "#"))
			for j, l := range wrap(text, w-2, fi, indent) {
				if j > 0 {
					l = strings.Repeat(" ", indent) + "# " + strings.TrimLeft(l, " ")
				} else {
					l = "# " + l
				}
				if i > 0 && j == 0 {
					l = strings.Repeat(" ", indent) + l
				}
				out = append(out, l)
			}
			continue
		}
		for j, p := range breakShellLine(line, w-fi, w-indent, w) {
			text := p.text
			if (i > 0 || j > 0) && p.indentable {
				text = strings.Repeat(" ", indent) + text
			}
			out = append(out, text)
		}
	}
	return out
}

// heredocDelimiter is the word after << on a line ("EOF" of <<'EOF').
func heredocDelimiter(line string) string {
	_, rest, _ := strings.Cut(line, "<<")
	rest = strings.TrimLeft(rest, "-~ ")
	f := strings.Fields(rest)
	if len(f) == 0 {
		return ""
	}
	return strings.Trim(f[0], `'"`)
}

// shellPiece is one line of a wrapped command; indentable is false when it
// continues a word (inside quotes or mid-word), where an indent would
// split the word in two.
type shellPiece struct {
	text       string
	indentable bool
}

// breakShellLine breaks one line of shell into pieces of at most first
// (then rest, or full for a piece at column 0) columns, each but the last ending in a continuation. It
// breaks at a space outside quotes where it can, else inside a quoted
// string or a word (the next piece then starts at column 0).
func breakShellLine(line string, first, rest, full int) []shellPiece {
	if width(line) <= first {
		return []shellPiece{{line, true}}
	}
	type pos struct {
		byteAt int
		quote  rune // the quote open at this position, 0 outside
	}
	var ps []pos
	var quote rune
	escaped := false
	for i, r := range line {
		ps = append(ps, pos{i, quote})
		switch {
		case escaped:
			escaped = false
		case quote != '\'' && r == '\\':
			escaped = true
		case quote == 0 && (r == '\'' || r == '"'):
			quote = r
		case r == quote:
			quote = 0
		}
	}
	ps = append(ps, pos{len(line), quote})
	var out []shellPiece
	start, limit, indentable := 0, first, true
	for {
		prefix := ""
		if q := ps[start].quote; q != 0 && start > 0 {
			prefix = string(q)
		}
		if width(prefix+line[ps[start].byteAt:]) <= limit {
			return append(out, shellPiece{prefix + line[ps[start].byteAt:], indentable})
		}
		// The farthest break that leaves room for the continuation (" \"
		// outside quotes, "'\" inside), a space outside quotes first.
		outside, quoted, any := -1, -1, -1
		cw := width(prefix)
		for k := start + 1; k < len(ps); k++ {
			r, _ := utf8.DecodeRuneInString(line[ps[k-1].byteAt:])
			cw += runewidth.RuneWidth(r)
			if cw+2 > limit {
				break
			}
			if escapedAt(line, ps[k].byteAt) {
				continue // never between a backslash and what it escapes
			}
			any = k
			switch {
			case line[ps[k].byteAt-1] != ' ' || escapedAt(line, ps[k].byteAt-1):
				// not after a space, or after an escaped one (a\ b is one word)
			case ps[k].quote == 0:
				outside = k
			default:
				quoted = k
			}
		}
		best := outside
		if best < 0 {
			best = quoted
		}
		if best < 0 {
			best = any
		}
		if best < 0 {
			best = start + 1
		}
		piece := prefix + line[ps[start].byteAt:ps[best].byteAt]
		if q := ps[best].quote; q != 0 {
			piece += string(q)
		}
		out = append(out, shellPiece{piece + `\`, indentable})
		indentable = best == outside
		start, limit = best, rest
		if !indentable {
			limit = full // from column 0
		}
	}
}

// escapedAt: the byte before i is a backslash that escapes what is at i.
func escapedAt(s string, i int) bool {
	n := 0
	for j := i - 1; j >= 0 && s[j] == '\\'; j-- {
		n++
	}
	return n%2 == 1
}

// Wrap breaks text that came from the machine into lines of at most w
// columns at spaces, as the text report does: the first line after a
// prefix of firstIndent columns (printed by the caller), the others
// indented by indent spaces. Control characters are shown as escapes.
func Wrap(text string, w, firstIndent, indent int) []string {
	return wrap(clean(text), max(w, minWidth), firstIndent, indent)
}
