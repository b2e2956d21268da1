package report

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// TestWrappedCommandsPasteAsPrinted: a remediation command wrapped to fit
// the width is, for the shell, exactly the command: bash reads the same
// words from the wrapped lines as from the one long line. Every command
// of every fixture, at several widths.
func TestWrappedCommandsPasteAsPrinted(t *testing.T) {
	bash, err := exec.LookPath("bash")
	if err != nil {
		t.Skip("bash is not installed")
	}
	// Operators become words, so that bash only prints what it parsed.
	neutral := strings.NewReplacer(">>", " GTGT ", ">", " GT ", "<", " LT ", "|", " PIPE ", ";", " SEMI ", "&", " AMP ")
	words := func(cmd string) string {
		out, err := exec.Command(bash, "-c", "set -f; printf '%s\\0' "+cmd).CombinedOutput()
		if err != nil {
			t.Fatalf("bash on %q: %v %s", cmd, err, out)
		}
		return string(bytes.ReplaceAll(out, []byte{0}, []byte("⏎")))
	}
	seen := map[string]bool{}
	extra := []string{
		`echo 'a long quoted string with spaces inside it, "double quotes" and $dollar signs that must stay' >> /etc/x`,
		`printf "%s\n" "a double-quoted string that is long enough to need wrapping at forty columns" x`,
		`tool --option=averyveryveryverylongvaluewithoutanyspacesthatcannotbreakatspacesatall done`,
		`echo a\ b\ c\ d\ e\ f\ g\ h\ i\ j\ k\ l\ m\ n\ o\ p\ q\ r\ s\ t\ u\ v\ w\ x\ y\ z end`,
	}
	var cmds []string
	for _, name := range fixtures(t) {
		for _, f := range plainReport(t, name).Findings {
			for _, m := range f.Remediation {
				cmds = append(cmds, m.Command)
			}
		}
	}
	n := 0
	for _, c := range append(cmds, extra...) {
		if seen[c] || strings.ContainsAny(c, "`\n") || strings.Contains(c, "$(") {
			continue
		}
		seen[c] = true
		c = neutral.Replace(c)
		want := words(c)
		for _, w := range []int{40, 57, 80} {
			lines := wrapCommand(c, w, 16, 16)
			for _, l := range lines {
				if width(l) > w {
					t.Errorf("width %d: line of %d columns: %q", w, width(l), l)
				}
			}
			if got := words(strings.Join(lines, "\n")); got != want {
				t.Errorf("width %d: the wrapped command reads differently:\n%s\nwant %s\ngot  %s", w, strings.Join(lines, "\n"), want, got)
			}
			n++
		}
	}
	t.Logf("%d wrapped commands read by bash as the originals", n)
}

// TestHeredocFixesPasteAsPrinted: a fix that writes a file with
// cat > FILE <<'EOF' … EOF, pasted as the report prints it at 40, 57 and
// 80 columns, writes the same file, byte for byte, and runs the same
// commands with the same words as the fix itself. bash runs both with
// every command but cat recorded instead of run, and the files written
// into a directory of the test's own.
func TestHeredocFixesPasteAsPrinted(t *testing.T) {
	bash, err := exec.LookPath("bash")
	if err != nil {
		t.Skip("bash is not installed")
	}
	catPath, err := exec.LookPath("cat")
	if err != nil {
		t.Skip("cat is not installed")
	}
	target := regexp.MustCompile(`(?m)^cat > (/\S+) <<'EOF'$`)
	// What a pasted snippet runs: every command is recorded (PATH leads
	// nowhere), cat without arguments writes the here-document.
	prelude := "PATH=/nonexistent\ncommand_not_found_handle() { printf '%s\\0' \"$@\"; }\n" +
		"cat() { if [ $# -eq 0 ]; then " + catPath + "; else printf '%s\\0' cat \"$@\"; fi; }\n"
	run := func(cmd string, files []string) string {
		t.Helper()
		dir := t.TempDir()
		for _, f := range files {
			if err := os.MkdirAll(filepath.Join(dir, filepath.Dir(f)), 0o755); err != nil {
				t.Fatal(err)
			}
		}
		c := exec.Command(bash, "--norc", "--noprofile", "-c", prelude+cmd)
		c.Env = []string{"D=" + dir}
		out, err := c.CombinedOutput()
		if err != nil {
			t.Fatalf("bash: %v\n%s\n%s", err, cmd, out)
		}
		for _, f := range files {
			body, err := os.ReadFile(filepath.Join(dir, f))
			if err != nil {
				t.Fatalf("the snippet did not write %s: %v\n%s", f, err, cmd)
			}
			out = append(out, "\n--- "+f+"\n"...)
			out = append(out, body...)
		}
		return string(out)
	}
	seen := map[string]bool{}
	n := 0
	for _, name := range fixtures(t) {
		for _, f := range plainReport(t, name).Findings {
			for _, m := range f.Remediation {
				if seen[m.Command] || !target.MatchString(m.Command) {
					continue
				}
				seen[m.Command] = true
				var files []string
				for _, p := range target.FindAllStringSubmatch(m.Command, -1) {
					files = append(files, p[1])
				}
				// The files go to the test's directory, never to /etc.
				cmd := target.ReplaceAllString(m.Command, `cat > "$$D"$1 <<'EOF'`)
				if strings.Count(cmd, ">") != strings.Count(cmd, `> "$D"`)+strings.Count(m.Command, "=>")+bodyGreaterThans(m.Command) {
					t.Fatalf("%s: a redirection this test does not contain:\n%s", f.Rule, m.Command)
				}
				want := run(cmd, files)
				for _, w := range []int{40, 57, 80} {
					lines := wrapCommand(strings.Join(cleanLines(cmd), "\n"), w, 16, 16)
					if got := run(strings.Join(lines, "\n"), files); got != want {
						t.Errorf("%s at %d columns: the pasted fix does something else:\n%s\n--- want\n%s\n--- got\n%s", f.Rule, w, strings.Join(lines, "\n"), want, got)
					}
					n++
				}
			}
		}
	}
	if n == 0 {
		t.Fatal("no fixture has a fix that writes a file: the test proves nothing")
	}
	t.Logf("%d printed here-document fixes write what the fixes write", n)
}

// bodyGreaterThans counts the > inside here-document bodies.
func bodyGreaterThans(cmd string) int {
	n, in := 0, false
	for _, l := range strings.Split(cmd, "\n") {
		switch {
		case in && l == "EOF":
			in = false
		case in:
			n += strings.Count(l, ">")
		case strings.HasSuffix(l, "<<'EOF'"):
			in = true
		}
	}
	return n
}

// TestWrapCommandComment: a shell comment wrapped to fit is a comment on
// every line (a backslash does not continue a comment), each line within
// the width.
func TestWrapCommandComment(t *testing.T) {
	cmd := "# firmware update: with the vendor tool named in the note, from its own media (the doctor runs no update)"
	lines := wrapCommand(cmd, 40, 16, 16)
	if len(lines) < 2 {
		t.Fatalf("not wrapped: %q", lines)
	}
	for i, l := range lines {
		if !strings.HasPrefix(strings.TrimLeft(l, " "), "# ") || strings.HasSuffix(l, "\\") {
			t.Errorf("line %d is not a comment of its own: %q", i, l)
		}
		if w := width(l); (i == 0 && w > 40-16) || w > 40 {
			t.Errorf("line %d too wide (%d): %q", i, w, l)
		}
	}
}
