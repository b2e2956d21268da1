package report

import (
	"bytes"
	"os/exec"
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
