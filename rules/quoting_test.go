package rules

import (
	"bytes"
	"os/exec"
	"strconv"
	"strings"
	"testing"
	"text/template/parse"

	"github.com/diskdoctor/diskdoctor/internal/shellquote"
)

// hostileNames are device names, links and serials as a crafted snapshot or
// udev property could carry them (issue #16 item 2).
var hostileNames = []string{
	"sd;rm",
	"ata-X$(touch${IFS}/tmp/PWNED)",
	`it's "quoted"`,
	"new\nline",
	"`touch /tmp/PWNED`",
	"a b\tc",
	`back\slash|pipe*glob?[x]`,
	"EOF",
	"x\nEOF\ntouch /tmp/PWNED",
}

// fields lists the facts a template reads (.name at any depth of the tree).
func fields(n parse.Node, out map[string]bool) {
	switch x := n.(type) {
	case *parse.ListNode:
		if x == nil {
			return
		}
		for _, c := range x.Nodes {
			fields(c, out)
		}
	case *parse.ActionNode:
		fields(x.Pipe, out)
	case *parse.PipeNode:
		if x == nil {
			return
		}
		for _, c := range x.Cmds {
			fields(c, out)
		}
	case *parse.CommandNode:
		for _, a := range x.Args {
			fields(a, out)
		}
	case *parse.FieldNode:
		out[x.Ident[0]] = true
	case *parse.ChainNode:
		fields(x.Node, out)
	case *parse.IfNode:
		fields(x.Pipe, out)
		fields(x.List, out)
		fields(x.ElseList, out)
	case *parse.RangeNode:
		fields(x.Pipe, out)
		fields(x.List, out)
		fields(x.ElseList, out)
	case *parse.WithNode:
		fields(x.Pipe, out)
		fields(x.List, out)
		fields(x.ElseList, out)
	}
}

// renderWith renders a remedy's command with every fact it reads set to v
// (lists hold v once; .hits holds one such subject).
func renderWith(m Remedy, v string) string {
	names := map[string]bool{}
	fields(m.cmd.Tree.Root, names)
	env := map[string]any{}
	for n := range names {
		env[n] = v
	}
	// Facts that are lists in real runs.
	for _, n := range []string{"wc_own_rule_serials", "mountpoints", "zfs_pools", "trim_blocked_by", "zfs_pool_devices"} {
		if names[n] {
			env[n] = []string{v}
		}
	}
	env["item"] = v
	hit := map[string]any{}
	for k, x := range env {
		hit[k] = x
	}
	env["hits"] = []map[string]any{hit}
	return render(m.cmd, env)
}

// word is one shell token: a word (its literal value after quote removal)
// or an operator; expands says an unquoted or double-quoted $ or ` is in it.
type word struct {
	text    string
	op      bool
	expands bool
}

// lex splits a command the way a POSIX shell tokenizes it, without
// expanding anything; a here-document with a quoted delimiter is one word
// (its body, literal).
func lex(t *testing.T, s string) []word {
	t.Helper()
	var out []word
	var cur strings.Builder
	inWord, expands := false, false
	var heredocs []string
	flush := func() {
		if inWord {
			out = append(out, word{text: cur.String(), expands: expands})
		}
		cur.Reset()
		inWord, expands = false, false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c == '$' && i+1 < len(s) && s[i+1] == '\'':
			// ANSI-C quoting: \xHH, \' and \\ are the escapes Quote writes.
			inWord = true
			for i += 2; i < len(s) && s[i] != '\''; i++ {
				if s[i] == '\\' && i+1 < len(s) {
					i++
					if s[i] == 'x' && i+2 < len(s) {
						v, err := strconv.ParseUint(s[i+1:i+3], 16, 8)
						if err != nil {
							t.Fatalf("bad \\x escape in %q", s)
						}
						cur.WriteByte(byte(v))
						i += 2
						continue
					}
				}
				cur.WriteByte(s[i])
			}
			if i >= len(s) {
				t.Fatalf("unterminated $' quote in %q", s)
			}
		case c == '\'':
			j := strings.IndexByte(s[i+1:], '\'')
			if j < 0 {
				t.Fatalf("unterminated single quote in %q", s)
			}
			cur.WriteString(s[i+1 : i+1+j])
			inWord = true
			i += j + 1
		case c == '"':
			inWord = true
			for i++; i < len(s) && s[i] != '"'; i++ {
				if s[i] == '\\' && i+1 < len(s) && strings.IndexByte("$`\"\\\n", s[i+1]) >= 0 {
					i++
				} else if s[i] == '$' || s[i] == '`' {
					expands = true
				}
				cur.WriteByte(s[i])
			}
			if i >= len(s) {
				t.Fatalf("unterminated double quote in %q", s)
			}
		case c == '\\' && i+1 < len(s):
			i++
			cur.WriteByte(s[i])
			inWord = true
		case c == '$' || c == '`':
			expands = true
			cur.WriteByte(c)
			inWord = true
		case c == '\n':
			flush()
			out = append(out, word{text: "\n", op: true})
			for _, delim := range heredocs {
				end := strings.Index(s[i+1:], "\n"+delim+"\n")
				if strings.HasPrefix(s[i+1:], delim+"\n") {
					end = -1
				}
				body := ""
				if end >= 0 {
					body = s[i+1 : i+1+end+1]
				} else if !strings.HasPrefix(s[i+1:], delim+"\n") {
					t.Fatalf("here-document %s not closed in %q", delim, s)
				}
				out = append(out, word{text: body})
				i += len(body) + len(delim) + 1
			}
			heredocs = nil
		case c == ' ' || c == '\t':
			flush()
		case strings.IndexByte(";&|<>()", c) >= 0:
			flush()
			op := string(c)
			for i+1 < len(s) && strings.IndexByte(";&|<>", s[i+1]) >= 0 {
				i++
				op += string(s[i])
			}
			out = append(out, word{text: op, op: true})
			if op == "<<" {
				// the delimiter follows; only quoted ones are allowed
				rest := strings.TrimLeft(s[i+1:], " ")
				if !strings.HasPrefix(rest, "'") {
					t.Fatalf("here-document with an unquoted delimiter expands its body: %q", s)
				}
				j := strings.IndexByte(rest[1:], '\'')
				heredocs = append(heredocs, rest[1:1+j])
			}
		default:
			cur.WriteByte(c)
			inWord = true
		}
	}
	flush()
	return out
}

func shape(ws []word) string {
	var b strings.Builder
	for _, w := range ws {
		if w.op {
			b.WriteString(w.text)
		} else {
			b.WriteString("W")
		}
		b.WriteByte(' ')
	}
	return b.String()
}

// TestHostileNamesInEveryRemediation renders every command of every rule
// with each hostile name in every fact it reads: bash must accept the
// result, nothing may expand, the command must have the same shape (words
// and operators) as with a plain name, and each value must be one word.
func TestHostileNamesInEveryRemediation(t *testing.T) {
	bash, err := exec.LookPath("bash")
	if err != nil {
		t.Skip("bash is not installed: cannot check the syntax of the commands")
	}
	rs, err := Load()
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, r := range rs {
		for i, m := range r.Remediation {
			plain := lex(t, renderWith(m, "sdx"))
			for _, v := range hostileNames {
				cmd := renderWith(m, v)
				n++
				sh := exec.Command(bash, "-n")
				sh.Stdin = strings.NewReader(cmd)
				var stderr bytes.Buffer
				sh.Stderr = &stderr
				if err := sh.Run(); err != nil {
					t.Errorf("%s remediation %d with %q: bash -n: %v %s\n%s", r.ID, i+1, v, err, stderr.String(), cmd)
					continue
				}
				ws := lex(t, cmd)
				if shape(ws) != shape(plain) {
					t.Errorf("%s remediation %d: %q changes the command's shape:\n%s\nplain: %s\ngot:   %s", r.ID, i+1, v, cmd, shape(plain), shape(ws))
					continue
				}
				for j, w := range ws {
					// Where the plain name sits in a word, the hostile one
					// sits whole in the same word (here-document bodies hold
					// udev patterns, checked by TestUdevMatchValue).
					if !w.op && strings.Contains(plain[j].text, "sdx") && !strings.Contains(plain[j].text, "\n") && !strings.Contains(w.text, v) {
						t.Errorf("%s remediation %d: %q is not one word of the command:\n%s", r.ID, i+1, v, cmd)
					}
					if w.expands && !plain[j].expands {
						t.Errorf("%s remediation %d: %q expands in word %q", r.ID, i+1, v, w.text)
					}
					if !strings.Contains(plain[j].text, "\n") {
						continue // the checks below are for here-document bodies
					}
					if strings.Count(w.text, "\n") != strings.Count(plain[j].text, "\n") {
						t.Errorf("%s remediation %d: %q adds lines to a here-document or word:\n%s", r.ID, i+1, v, cmd)
					}
					if strings.Count(w.text, `"`) != strings.Count(plain[j].text, `"`) {
						t.Errorf("%s remediation %d: %q breaks out of a quoted udev value:\n%s", r.ID, i+1, v, cmd)
					}
				}
				if strings.Contains(cmd, "sdx") {
					t.Errorf("%s remediation %d: plain value left in the hostile rendering", r.ID, i+1)
				}
			}
		}
	}
	if n == 0 {
		t.Fatal("no remediation rendered")
	}
}

// A value interpolated into a command stays exactly one word whose value
// is the original (quote removal gives it back).
func TestShellQuoteKeepsOneWord(t *testing.T) {
	for _, v := range append(hostileNames, "", "/dev/disk/by-id/ata-WDC_WDS200T1R0A-68A4W0_21343D800458", "-") {
		ws := lex(t, "cmd "+shellquote.Quote(v))
		if len(ws) != 2 || ws[1].text != v || ws[1].expands {
			t.Errorf("shellquote.Quote(%q) = %s lexes as %+v", v, shellquote.Quote(v), ws)
		}
	}
	if got := shellquote.Quote("/dev/disk/by-id/ata-WDC_X_1"); got != "/dev/disk/by-id/ata-WDC_X_1" {
		t.Errorf("a plain path should stay bare, got %s", got)
	}
}

// udev match values: the pattern cannot leave its quotes and matches the
// original serial (each '?' stands for exactly the byte it replaced).
func TestUdevMatchValue(t *testing.T) {
	for _, v := range append(hostileNames, "WDC_WDS200T1R0A-68A4W0_21343D800458", "S/N#1+2=3@x", "naïve") {
		p := UdevMatchValue(v)
		if strings.ContainsAny(p, "\"\\|*[]\n`$") {
			t.Errorf("UdevMatchValue(%q) = %q keeps a special character", v, p)
		}
		if len(p) != len(v) {
			t.Fatalf("UdevMatchValue(%q) changes the length", v)
		}
		for i := range len(v) {
			if p[i] != '?' && p[i] != v[i] {
				t.Errorf("UdevMatchValue(%q) = %q does not match the original", v, p)
			}
		}
	}
	if got := UdevMatchValue("S/N#1+2=3@x"); got != "S/N#1+2=3@x" {
		t.Errorf("#+=@ are ordinary in a quoted udev value and must be kept, got %q", got)
	}
}
